"""One comparison of two versions, start to end: the rules, where play parts at each player
count (with its replay file), the properties — gathered into a `Report`."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs

from ..concrete import trace as tr
from . import runner
from .checks import compare_checks, compared_configurations
from .diff_report import Report, Side
from .parting import Parting, find_parting
from .policies import POLICIES, require_policies
from .rules import diff_rules
from .shorten import STEPS as SHORTEN_STEPS
from .stats import DEFAULT_BUDGET, DEFAULT_PRECISION, ProgressFn, compare_play
from .versions import Version, player_counts


@attrs.frozen
class Options:
    players: tuple[int, ...] = ()  # () for every count both versions allow
    use_z3: bool = True
    z3_limit: int = 300_000_000  # z3 resource units per player count, for the parting search
    max_depth: int = 40
    games: int = 200  # random lock-step games per player count
    examples: int = 100  # Hypothesis-generated games per player count
    max_actions: int = 400
    seed: int = 0
    shorten_steps: int = SHORTEN_STEPS  # lock-step steps to shorten a concrete parting game
    properties: bool = True
    check_games: int = 100  # random games per player count for the property rows
    profile: str | None = "ci"  # the property suite's Hypothesis profile (None: playouts only)
    check_z3_limit: int = 400_000_000  # z3 resource units per query, as `rulespec check`
    jobs: int = 1  # worker processes for the property table and the play statistics
    replays: Path = Path("replays")
    statistics: bool = True
    policies: tuple[str, ...] = POLICIES
    precision: float = DEFAULT_PRECISION  # a fraction: 0.01 is +-1 percentage point
    budget: float | None = DEFAULT_BUDGET  # seconds of play
    stats_games: int | None = None  # exactly this many games per cell instead
    scheduler: Any = None  # a Dask scheduler's address (or Client) to play on


#: Why no statistics are played when every player count is proved to play the same.
PROVED_SAME = ("Not played: the versions are proved to play the same at every player count "
               "compared, so they have the same statistics.")


def compare(old: Version, new: Version, options: Options,
            progress: Callable[[str], None] | None = None,
            play_progress: ProgressFn | None = None) -> Report:
    """Compare two versions: the rules, where play parts at each player count, the property
    table and the play statistics (as `options` asks). `progress` gets a line of text at each
    stage; `play_progress` the games played so far while the statistics run."""
    t0 = time.perf_counter()
    say = progress or (lambda _m: None)
    counts = player_counts(old, new, options.players)
    if options.statistics:  # before minutes of other work, not after
        for v in (old, new):
            with v.errors():
                require_policies(v.label, v.ir(counts[0]), options.policies)
    say(f"diff: the rules of {old.label} and {new.label}")
    rules = diff_rules(old, new, counts, use_z3=options.use_z3)
    partings: list[Parting] = []
    replays: dict[int, str] = {}
    for n in counts:
        found = find_parting(old.game(n), new.game(n), use_z3=options.use_z3,
                             z3_limit=options.z3_limit, max_depth=options.max_depth,
                             games=options.games, max_actions=options.max_actions,
                             examples=options.examples, seed=options.seed,
                             renames=rules.renames, shorten_steps=options.shorten_steps,
                             progress=say)
        say(f"diff: {n} players: {found.summary()} ({found.seconds:.1f} s)")
        partings.append(found)
        if found.parted:
            replays[n] = str(write_parting(found, old, new, options.replays))
    properties = None
    if options.properties:
        properties = tuple(compare_checks(
            old, new, counts, games=options.check_games, profile=options.profile,
            use_z3=options.use_z3, z3_limit=options.check_z3_limit, jobs=options.jobs,
            replays=options.replays, seed=options.seed, progress=say))
    statistics, note = None, ""
    if not options.statistics:
        note = "Not played (--no-statistics)."
    elif all(p.status == "proved_same" for p in partings):
        note = PROVED_SAME
    else:
        say("diff: play statistics of both versions on the same seeds")
        statistics = compare_play(
            played(old, new), played(new, old), players=counts, policies=options.policies,
            precision=options.precision, budget=options.budget, games=options.stats_games,
            jobs=options.jobs, scheduler=options.scheduler, seed=options.seed,
            progress=play_progress)
    chosen_o, chosen_n = old.ir(counts[0]).chosen, new.ir(counts[0]).chosen
    z3 = (f"with z3 ({options.z3_limit / 1e6:g} million resource units per player count), "
          "then " if options.use_z3 else "")
    searched = (f"Searched {z3}{options.games} random and {options.examples} "
                f"Hypothesis-generated games in lock-step per player count (up to "
                f"{options.max_actions} actions), unless the rules or z3 settled it first.")
    return Report(Side(old.shown(new), old.label, dict(chosen_o)),
                  Side(new.shown(old), new.label, dict(chosen_n)), tuple(counts), rules,
                  tuple(partings), replays, properties, statistics, note,
                  time.perf_counter() - t0, searched, compared_configurations(old, new))


def played(v: Version, other: Version) -> runner.Version:
    """A version as the statistics play it: its text (a worker elsewhere needs no file)."""
    with v.errors():
        return runner.Version.of(v.path, v.variants, label=v.shown(other))


def write_parting(p: Parting, old: Version, new: Version, folder: Path) -> Path:
    """The parting game as a replay file under the new version (`rulespec replay FILE --spec
    OLD` shows it under the old one)."""
    g = new.ir(p.players)
    stem = Path(new.label.split("@")[0]).stem or g.id
    path = folder / f"{stem}-{p.players}p-parting.yaml"
    d = p.replay(new.label, g.chosen)
    return tr.write_replay(path, spec=d["spec"], players=d["players"], seed=d["seed"],
                           variants=d["variants"], actions=d["actions"], note=d["note"],
                           shuffles=d.get("shuffles"), unrecorded="unrecorded" in d)
