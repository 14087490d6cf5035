"""`rulespec diff OLD NEW`: what a rule change does to play.

Exit codes as diff(1): 0 no difference in play was found, 1 the versions play differently,
2 bad input (one line on stderr).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import click

from model import SpecError

from ..compare.shorten import LIMIT as SHORTEN_LIMIT
from ..compare.shorten import STEPS as SHORTEN_STEPS
from ..compare.stats import DEFAULT_BUDGET, DEFAULT_PRECISION, MIN_GAMES
from .params import OUTPUT_FILE, OUTPUT_FOLDER, SCHEDULER, Finite, z3_budget_option


class _OneLine(click.Command):
    """A mistake on the command line is one line (file:line:column where there is a file),
    exit code 2, like a mistake in a spec."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            raise SpecError(None, f"rulespec diff: {exc.format_message()}") from None


def _pairs(items: tuple[str, ...], option: str) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise SpecError(None, f"{option} {item!r}: write AMBIGUITY=VARIANT, e.g. "
                                  "empty_stock=reshuffle")
        out[key.strip()] = value.strip()
    return out


@click.command("diff", cls=_OneLine)
@click.argument("old")
@click.argument("new")
@click.option("--variant", "both", multiple=True, metavar="AMBIGUITY=VARIANT",
              help="A reading for both versions (repeatable).")
@click.option("--old-variant", "old_v", multiple=True, metavar="AMBIGUITY=VARIANT",
              help="A reading for the old version only (repeatable).")
@click.option("--new-variant", "new_v", multiple=True, metavar="AMBIGUITY=VARIANT",
              help="A reading for the new version only (repeatable).")
@click.option("--players", "-p", "players", type=int, multiple=True,
              help="Player counts to compare (repeatable); default: every count both allow.")
@click.option("--z3/--no-z3", "use_z3", default=True, show_default=True,
              help="Search and prove with z3 (the rules' equivalences, the parting game, the "
                   "z3 property rows); --no-z3 is the concrete-only fast path.")
@z3_budget_option(300, "per player count for the parting search (the property rows "
                  "take `rulespec check`'s budget)")
@click.option("--games", type=click.IntRange(min=0), default=200, show_default=True,
              help="Random games per player count played in lock-step on both versions.")
@click.option("--examples", type=click.IntRange(min=0), default=100, show_default=True,
              help="Hypothesis-generated games per player count (steered and shrunk).")
@click.option("--max-actions", type=click.IntRange(min=1), default=400, show_default=True,
              help="Longest concrete game searched.")
@click.option("--shorten-steps", type=click.IntRange(min=0, max=SHORTEN_LIMIT),
              default=SHORTEN_STEPS, show_default=True,
              help="Lock-step steps the shortening of a parting game found by concrete games "
                   "may play (blocks of play cut out or replaced, choices lowered, a search "
                   "toward where the versions part); 0: report the game as found.")
@click.option("--seed", type=int, default=0, show_default=True, help="First seed.")
@click.option("--properties/--no-properties", "properties", default=True, show_default=True,
              help="Also run the property table (rulespec check) on both versions.")
@click.option("--check-games", type=click.IntRange(min=1), default=100, show_default=True,
              help="Random games per player count for the property table.")
@click.option("--profile", type=click.Choice(["ci", "thorough", "none"]), default="ci",
              show_default=True, help="The property table's Hypothesis profile.")
@click.option("--jobs", type=click.IntRange(min=1), default=None,
              show_default="the number of CPUs",
              help="Local worker processes for the property table and the statistics' games; "
                   "the numbers do not depend on it.")
@click.option("--replays", type=OUTPUT_FOLDER, default=Path("replays"),
              show_default=True, help="Where the parting games and new failures are written.")
@click.option("--statistics/--no-statistics", "statistics", default=True, show_default=True,
              help="Also play both versions on the same seeds and compare their statistics "
                   "(skipped when every player count is proved to play the same).")
@click.option("--policy", default="both", show_default=True, metavar="random|greedy|both",
              help="The statistics' policy: random (uniform among legal actions), greedy (the "
                   "action after which the actor's own score is best), or both.")
@click.option("--precision", type=Finite(), default=100 * DEFAULT_PRECISION, show_default=True,
              help="Play until every win share's 95% interval is within ± this many "
                   "percentage points, in both versions...")
@click.option("--budget", type=Finite(), default=DEFAULT_BUDGET, show_default=True,
              help="...or until this many seconds of play have passed, after the first "
                   f"{MIN_GAMES} games of each player count, policy and version (the report "
                   "says which).")
@click.option("--stats-games", type=int, default=None,
              help="Exactly this many games per player count and policy instead (no "
                   "sequential stopping).")
@click.option("--scheduler", type=SCHEDULER, default=None, metavar="ADDRESS",
              help="Play the statistics' games on a Dask distributed cluster "
                   "(pip install 'rulespec[cluster]').")
@click.option("--markdown", "md", type=OUTPUT_FILE, default=None,
              help="Also write the report as Markdown (a pull-request comment).")
@click.option("--json", "js", type=OUTPUT_FILE, default=None,
              help="Also write the report as JSON.")
@click.option("--html", "page", type=OUTPUT_FILE, default=None,
              help="Also write the report as one self-contained HTML page.")
def diff(old: str, new: str, both: tuple[str, ...], old_v: tuple[str, ...],
         new_v: tuple[str, ...], players: tuple[int, ...], use_z3: bool, z3_budget: int,
         games: int, examples: int, max_actions: int, shorten_steps: int, seed: int, properties: bool,
         check_games: int, profile: str, jobs: int | None, replays: Path, md: Path | None,
         js: Path | None, page: Path | None, statistics: bool, policy: str, precision: float,
         budget: float, stats_games: int | None, scheduler: str | None) -> None:
    """Compare two versions of a game: what changed in the rules, the shortest game where
    play parts, the properties old beside new, and the play statistics old beside new (the
    same seeds for both; differences marked where significant).

    OLD and NEW are each a spec path, a game id of spec/, or PATH@REV (that file at a git
    revision: `rulespec diff spec/game.yaml@HEAD spec/game.yaml` compares the working copy
    with the last commit). `rulespec diff game game --new-variant ambiguity=reading`
    compares the ruling with another reading. Exit 0 when no difference in play is found,
    1 when the versions play differently, 2 for bad input.
    """
    from ..compare.diff_report import as_json, html_page, markdown, terminal
    from ..compare.run import Options, compare
    from ..compare.versions import read_version
    from .stats import ProgressBar, check_numbers, policies_of, write_report

    try:
        check_numbers(precision, budget, jobs, stats_games, 1, seed)
        policies = policies_of(policy)
    except click.UsageError as exc:
        raise SpecError(None, f"rulespec diff: {exc.format_message()}") from None
    common = _pairs(both, "--variant")
    old_version = read_version(old, {**common, **_pairs(old_v, "--old-variant")})
    new_version = read_version(new, {**common, **_pairs(new_v, "--new-variant")})
    # every requested reading and count must load before any long run starts
    from ..compare.versions import player_counts

    for n in player_counts(old_version, new_version, players):
        old_version.ir(n)
        new_version.ir(n)
    options = Options(players=tuple(players), use_z3=use_z3, z3_limit=z3_budget,
                      games=games, examples=examples, max_actions=max_actions, seed=seed,
                      shorten_steps=shorten_steps, properties=properties, check_games=check_games,
                      profile=None if profile == "none" else profile,
                      jobs=jobs or os.cpu_count() or 1, replays=replays,
                      statistics=statistics, policies=policies, precision=precision / 100,
                      budget=budget, stats_games=stats_games, scheduler=scheduler)
    start = time.perf_counter()

    def progress(message: str) -> None:
        click.echo(f"[{time.perf_counter() - start:6.1f}s] {message}", err=True)

    bar = ProgressBar()
    try:
        report = compare(old_version, new_version, options, progress, bar)
    finally:
        bar.close()
    click.echo(terminal(report), nl=False)
    writers: list[tuple[Path | None, Any]] = [(md, markdown), (js, as_json), (page, html_page)]
    for target, render in writers:
        if target is not None:
            write_report(target, render(report))
    sys.exit(1 if report.plays_differently else 0)
