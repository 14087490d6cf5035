"""How long `rulespec diff` takes on a real rule change: LAMA with a llama worth 7 points
instead of 10 (the worked example of docs/rule-designers.md), at 4 players.

A benchmark, not a test: it runs the command as a user does, in a temporary folder with a
fresh cache, twice (cold, then warm: the property table from the cache), with the default
statistics (both policies, until every win share is within ±1 percentage point or 60 s
pass), and prints for each run the wall and CPU time (of the command and its worker
processes), the statistics' games, their time and games per second, and what stopped them.
The machine's load average is printed too: on a shared machine the wall time depends on it.

    python benchmarks/diff_lama.py [--jobs N] [--no-properties]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LLAMA = ("{name: llama, rank: 7, points: 10, copies: 8}",
         "{name: llama, rank: 7, points: 7, copies: 8}")


def run(args: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float, int]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "properties.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        sys.exit(f"rulespec diff failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.returncode


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--no-properties", action="store_true")
    opts = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="rulespec-bench-diff-") as tmp:
        folder = Path(tmp)
        text = (ROOT / "spec" / "lama.yaml").read_text(encoding="utf-8")
        if text.count(LLAMA[0]) != 1:
            sys.exit("spec/lama.yaml no longer declares the llama as this benchmark expects")
        (folder / "my-lama.yaml").write_text(text.replace(*LLAMA), encoding="utf-8")
        env = {**os.environ, "RULESPEC_CACHE": str(folder / "cache"),
               "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        print(f"rulespec diff lama my-lama.yaml -p 4, {opts.jobs} jobs, "
              f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
        for run_name in ("cold", "warm"):
            args = ["diff", str(ROOT / "spec" / "lama.yaml"), "my-lama.yaml", "-p", "4",
                    "--jobs", str(opts.jobs), "--json", "r.json"]
            if opts.no_properties:
                args.append("--no-properties")
            wall, cpu, code = run(args, folder, env)
            st = json.loads((folder / "r.json").read_text())["statistics"]
            games = sum(c["games"] for side in ("old", "new") for c in st[side]["cells"])
            seconds = st["old"]["seconds"]
            print(f"  {run_name}: exit {code}, {wall:.1f} s wall, {cpu:.1f} s CPU; statistics: "
                  f"{games:,} games in {seconds:.1f} s ({games / seconds:,.0f} games/s), "
                  f"stopped by {st['old']['stopped_by']}; load average "
                  f"{os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
