"""`rulespec stats SPEC`: play statistics of one version of a game, per player count and
policy, with confidence intervals (the engine is properties/compare/stats.py)."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Any, NoReturn, TextIO

import click

from model import RulespecError, SpecError, Where
from model.safe_write import write_text

from ..compare import stats as st
from ..compare.policies import POLICIES
from ..compare.runner import Version
from .params import OUTPUT_FILE, SCHEDULER, Finite


class OneLineErrors(click.Command):
    """Bad arguments and bad specs end in one line on stderr and exit 2 (no usage dump)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        try:
            return super().parse_args(ctx, args)
        except click.UsageError as exc:
            _fail(exc.format_message())

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:
            _fail(exc.format_message())
        except RulespecError as exc:
            _fail(str(exc), exc.exit_code)


def _fail(message: str, code: int = 2) -> NoReturn:
    click.echo(f"error: {' '.join(message.split())}", err=True)
    sys.exit(code)


def parse_variants(items: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise click.UsageError(f"--variant {item!r}: write a variant as AMBIGUITY=VARIANT")
        out[key] = value
    return out


def policies_of(name: str) -> tuple[str, ...]:
    if name == "both":
        return POLICIES
    if name not in POLICIES:
        raise click.UsageError(f"--policy {name!r}: choose one of {', '.join(POLICIES)}, both")
    return (name,)


def check_numbers(precision: float, budget: float, jobs: int | None, games: int | None,
                  max_actions: int, seed: int) -> None:
    """The numeric options, checked before any game is played."""
    if not precision > 0 or precision >= 100:
        raise click.UsageError(f"--precision {precision:g}: give percentage points above 0, "
                               "e.g. 1 for ±1 pp")
    if not budget > 0:
        raise click.UsageError(f"--budget {budget:g}: give a positive number of seconds")
    if jobs is not None and jobs < 1:
        raise click.UsageError(f"--jobs {jobs}: give 1 or more")
    if games is not None and games < 1:
        raise click.UsageError(f"--games {games}: give 1 or more")
    if max_actions < 1:
        raise click.UsageError(f"--max-actions {max_actions}: give 1 or more")
    if seed < 0:
        raise click.UsageError(f"--seed {seed}: give 0 or more")


class ProgressBar:
    """A progress line on stderr: a bar, games done and planned, and the time left."""

    def __init__(self, stream: TextIO = sys.stderr) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.last = 0.0
        self.shown = False

    def __call__(self, p: st.Progress) -> None:
        now = time.monotonic()
        if now - self.last < (0.1 if self.tty else 5.0) and p.done < p.planned:
            return
        self.last = now
        width = 24
        filled = int(width * p.done / max(p.planned, 1))
        rate = p.done / max(p.elapsed, 1e-9)
        left = (p.planned - p.done) / rate if rate else float("inf")
        if p.budget is not None:
            left = min(left, max(0.0, p.budget - p.elapsed))
        text = (f"[{'#' * filled}{'.' * (width - filled)}] {p.done:,}/{p.planned:,} games "
                f"({p.note}), {p.elapsed:.0f} s, ~{left:.0f} s left of this batch")
        if self.tty:
            self.stream.write("\r" + text.ljust(100)[:100])
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.tty and self.shown:
            self.stream.write("\n")
            self.stream.flush()


def common_options(f):
    """The sampling options `rulespec stats` has (and `rulespec diff` may share)."""
    options = [
        click.option("--players", "-p", "players", type=int, multiple=True,
                     help="Player count (repeatable); default: every count the spec allows."),
        click.option("--policy", default="both", show_default=True, metavar="random|greedy|both",
                     help="random (uniform among legal actions), greedy (the action after "
                          "which the actor's own score is best), or both."),
        click.option("--precision", type=Finite(), default=100 * st.DEFAULT_PRECISION,
                     show_default=True,
                     help="Play until every win share's 95% interval is within ± this many "
                          "percentage points."),
        click.option("--budget", type=Finite(), default=st.DEFAULT_BUDGET, show_default=True,
                     help="Seconds to spend at most, after the first "
                          f"{st.MIN_GAMES} games of each player count and policy (played "
                          "whatever the budget); the report says if precision was not "
                          "reached in time."),
        click.option("--games", type=int, default=None,
                     help="Exactly this many games per player count and policy (no "
                          "sequential stopping)."),
        click.option("--jobs", type=int, default=None, show_default="the number of CPUs",
                     help="Local processes playing games; the numbers do not depend on it."),
        click.option("--scheduler", type=SCHEDULER, default=None, metavar="ADDRESS",
                     help="Play on a Dask distributed cluster (pip install 'rulespec[cluster]')."),
        click.option("--seed", type=int, default=0, show_default=True,
                     help="Seed of the run: game i has seed (SEED, i)."),
        click.option("--max-actions", type=int, default=st.MAX_ACTIONS, show_default=True,
                     help="Safety cap: a game still going after this many actions stops and "
                          "counts as possibly endless."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def write_outputs(markdown: Path | None, json_path: Path | None, html: Path | None,
                  result: st.Statistics | st.StatisticsComparison, title: str) -> None:
    from ..compare.report import html_page

    if markdown is not None:
        write_report(markdown, result.to_markdown())
    if json_path is not None:
        write_report(json_path, json.dumps(result.to_json(), indent=1) + "\n")
    if html is not None:
        write_report(html, html_page(title, result.to_html_fragment()))


def write_report(path: Path, text: str) -> None:
    """Write a report file (never through a symbolic link) and say so; a file system error
    is one line naming the file."""
    try:
        write_text(path, text)
    except OSError as exc:
        raise SpecError(Where(str(exc.filename or path)),
                        f"cannot write here: {exc.strerror or exc}") from None
    click.echo(f"wrote {path}", err=True)


@click.command(cls=OneLineErrors)
@click.argument("spec")
@common_options
@click.option("--variant", "variants", multiple=True, metavar="AMBIGUITY=VARIANT",
              help="Choose a reading of an ambiguity (repeatable).")
@click.option("--markdown", type=OUTPUT_FILE, default=None,
              help="Also write the report as markdown (a pull-request comment).")
@click.option("--json", "json_path", type=OUTPUT_FILE, default=None,
              help="Also write the numbers as JSON.")
@click.option("--html", type=OUTPUT_FILE, default=None,
              help="Also write one self-contained HTML page with plots.")
def stats(spec: str, players: tuple[int, ...], policy: str, precision: float, budget: float,
          games: int | None, jobs: int | None, scheduler: str | None, seed: int,
          max_actions: int, variants: tuple[str, ...], markdown: Path | None,
          json_path: Path | None, html: Path | None) -> None:
    """Play statistics of SPEC (a path or a game id of spec/): game length, each seat's share
    of wins, final scores, how often each action and each end condition fires, and games
    stopped by the safety cap — each with its 95% interval and the games behind it.

    Games are added in batches until every seat's win-share interval is within
    ±PRECISION percentage points or BUDGET seconds pass. Game i is seeded by (SEED, i)
    alone, so the numbers are the same for any --jobs. Progress goes to stderr.
    """
    check_numbers(precision, budget, jobs, games, max_actions, seed)
    chosen = policies_of(policy)
    version = Version.of(spec, parse_variants(variants))
    bar = ProgressBar()
    try:
        result = st.play_statistics(version, players=players or None, policies=chosen,
                                    precision=precision / 100, budget=budget, games=games,
                                    jobs=jobs or os.cpu_count() or 1, scheduler=scheduler,
                                    seed=seed, max_actions=max_actions, progress=bar)
    finally:
        bar.close()
    click.echo(result.to_text(), nl=False)
    write_outputs(markdown, json_path, html, result, f"Play statistics of {result.title}")
