"""How long `rulespec check` takes: cold, warm, and after a one-clause change.

A benchmark, not a test: it runs the command as a user does, on copies of the specs in
a temporary folder with a fresh cache, and prints wall time and CPU time (this process's
children: the command and its worker processes) for each run:

1. each spec alone, cold;
2. all specs, cold;
3. all specs again, nothing changed (every result from the cache);
4. all specs after a one-clause change to one spec: who starts LAMA's next round under
   the default reading of next_round_starter (the 11 of its 13 configurations with that
   reading take the clause; the other two, and the other specs, come from the cache).

    python benchmarks/check_cache.py [--z3] [--jobs N] [--skip-alone] [--json rows.json]

Without --z3 the runs pass --no-z3. The machine's load average is printed too: on a
shared machine the wall time depends on it, the CPU time much less.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The one-clause change: (spec, old text, new text): the player after the one who ended
#: the round starts the next, under LAMA's default reading of next_round_starter.
CHANGE = ("lama", "then: [starter = round_ender]",
          "then: [\"starter = (round_ender + 1) % player_count\"]")


def run(args: list[str], cache: Path, cwd: Path) -> tuple[float, float, int, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    env = {**os.environ, "RULESPEC_CACHE": str(cache)}
    p = subprocess.run([sys.executable, "-m", "properties.cli", "check", *args],
                       cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else p.stderr[-300:]
    return wall, cpu, p.returncode, last


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--z3", action="store_true", help="also run the z3 queries")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--skip-alone", action="store_true", help="skip the per-spec cold runs")
    ap.add_argument("--json", type=Path, help="write the cold run's rows to this file (the "
                    "z3 rows' outcomes and seconds, for docs/symbolic.md's table)")
    opts = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="rulespec-bench-"))
    specs = work / "spec"
    shutil.copytree(ROOT / "spec", specs)
    # the situations the specs' clarifications name (`../tests/situations/...`); the
    # witnesses they record are in spec/witnesses, copied with the specs
    shutil.copytree(ROOT / "tests" / "situations", work / "tests" / "situations")
    paths = sorted(str(p) for p in specs.glob("*.yaml"))
    common = ["--jobs", str(opts.jobs)] + ([] if opts.z3 else ["--no-z3"])

    def report(name: str, result: tuple[float, float, int, str]) -> None:
        wall, cpu, code, last = result
        load = os.getloadavg()[0]
        print(f"{name:<34} {wall:7.1f} s wall {cpu:7.1f} s CPU  exit {code}  "
              f"load {load:4.1f}  | {last}", flush=True)

    print(f"rulespec check {' '.join(common)} on {os.cpu_count()} CPUs", flush=True)
    if not opts.skip_alone:
        for path in paths:
            report(f"cold, {Path(path).stem} alone", run([path, *common], work / "alone", ROOT))
            shutil.rmtree(work / "alone")
    cache = work / "cache"
    rows = ["--json", str(opts.json.resolve())] if opts.json else []
    report("cold, all specs", run([*paths, *common, *rows], cache, ROOT))
    report("warm, nothing changed", run([*paths, *common], cache, ROOT))
    game, old, new = CHANGE
    target = specs / f"{game}.yaml"
    text = target.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"the change's clause is not in {target}"
    target.write_text(text.replace(old, new), encoding="utf-8")
    report(f"after a one-clause change ({game})", run([*paths, *common], cache, ROOT))
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
