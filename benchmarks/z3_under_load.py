"""Whether z3's verdicts depend on the machine's load: the same `rulespec check` run
twice, once as it is and once beside N CPU-bound processes, and its z3 rows compared.

A benchmark, not a test (tests/test_verdicts.py checks the same on a small game): it runs
the command as a user does, with a fresh cache each time, and prints for every z3 row its
status, bound and the z3 resource units it spent in both runs, with the wall time of each.
The budgets are resource units, so the rows must be equal; the wall times are not.

    python benchmarks/z3_under_load.py [SPEC] [-p N] [--hogs 3] [--z3-budget MILLIONS]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def spin() -> None:
    while True:
        pass


def z3_rows(spec: str, players: int, budget: str | None, folder: Path) -> tuple[dict, float]:
    out = folder / "rows.json"
    cmd = [sys.executable, "-m", "properties.cli", "check", spec, "-p", str(players), "--games",
           "2", "--profile", "none", "--json", str(out)]
    if budget:
        cmd += ["--z3-budget", budget]
    t0 = time.perf_counter()
    subprocess.run(cmd, cwd=ROOT, env={**os.environ, "RULESPEC_CACHE": str(folder / "cache")},
                   capture_output=True, check=False)
    rows = json.loads(out.read_text())["rows"]
    return ({r["property"]: (r["status"], r["bound"], r["z3_units"]) for r in rows
             if r["property"].startswith("z3_")}, time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("spec", nargs="?", default="lambada")
    ap.add_argument("-p", "--players", type=int, default=2)
    ap.add_argument("--hogs", type=int, default=3, help="CPU-bound processes beside the run")
    ap.add_argument("--z3-budget", default=None, help="millions of units (default: check's)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "a").mkdir()
        (Path(tmp) / "b").mkdir()
        print(f"load average before: {os.getloadavg()[0]:.1f}", flush=True)
        plain, t_plain = z3_rows(a.spec, a.players, a.z3_budget, Path(tmp) / "a")
        hogs = [mp.Process(target=spin, daemon=True) for _ in range(a.hogs)]
        for h in hogs:
            h.start()
        try:
            loaded, t_loaded = z3_rows(a.spec, a.players, a.z3_budget, Path(tmp) / "b")
            load = os.getloadavg()[0]
        finally:
            for h in hogs:
                h.kill()
    print(f"{a.spec} {a.players}p: {t_plain:.1f} s as it is, {t_loaded:.1f} s beside "
          f"{a.hogs} CPU-bound processes (load average then {load:.1f})")
    print(f"{'row':18} {'as it is':40} beside the load")
    for prop in plain:
        print(f"{prop:18} {plain[prop]!s:40} {loaded.get(prop)}")
    same = plain == loaded
    print("the same rows, bounds and units spent" if same else "THE ROWS DIFFER")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
