"""Benchmark (not a test): play statistics of two LAMA versions at 4 players to +-1 pp.

The issue's target: `rulespec diff` of two LAMA versions at 4 players, statistics to
+-1 percentage point on every win share, within 60 s on 2 cores. This plays the same
statistics part (`compare_play`: both versions on the same seeds, until every win share
of both is within the precision) for each policy alone and for both, and prints games
per second (wall and CPU) and the time to precision.

    python benchmarks/stats_precision.py [--jobs 2] [--players 4]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from properties.compare.runner import Version
from properties.compare.stats import compare_play, play_statistics

SPEC = Path(__file__).resolve().parent.parent / "spec" / "lama.yaml"
OLD = "{name: llama, rank: 7, points: 10, copies: 8}"
NEW = "{name: llama, rank: 7, points: 7, copies: 8}"  # a llama worth 7 instead of 10


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--budget", type=float, default=600)
    args = ap.parse_args()
    text = SPEC.read_text(encoding="utf-8")
    assert text.count(OLD) == 1
    old = Version("lama", text, path=str(SPEC))
    new = Version("lama, llama worth 7", text.replace(OLD, NEW))
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; jobs {args.jobs}")
    for policy in ("random", "greedy"):
        c0 = time.process_time()
        s = play_statistics(old, players=[args.players], policies=[policy], games=3000, jobs=1)
        print(f"one process, {policy}: {s.games / (time.process_time() - c0):,.0f} games per "
              f"CPU-second ({s.games:,} games, statistics included)")
    for policies in (["random"], ["greedy"], ["random", "greedy"]):
        t0 = time.perf_counter()
        c = compare_play(old, new, players=[args.players], policies=policies, jobs=args.jobs,
                         budget=args.budget)
        wall = time.perf_counter() - t0
        games = c.old.games + c.new.games
        per = ", ".join(f"{pol} {c.old.cell(args.players, pol).games:,} per version"
                        for pol in policies)
        print(f"{'+'.join(policies):>13}: {games:,} games ({per}) to ±1 pp in {wall:.1f} s "
              f"wall, stopped by {c.old.stopped_by}; {games / wall:,.0f} games/s wall; "
              f"{len(c.significant)} significant differences")


if __name__ == "__main__":
    main()
