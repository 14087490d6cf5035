"""The `rulespec` command line: play, legal, check, diff, query, bench, stats, replay,
show-code.

Exit codes: 0 success; 1 a property failed (or an action was illegal); 2 a bad spec,
situation file or bad arguments; 4 a bug in rulespec (bug.py); 130 interrupted; 141 the
output's reader went away (`| head`), silently. A user's mistake is one clear line on
stderr, never a Python traceback.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import attrs
import click
import yaml

import model
from model import RulespecError
from model.safe_write import make_folder, write_text

from ..checks.plan import all_specs
from ..checks.rows import Row
from ..concrete import trace as tr
from .bug import report_bug
from .diff import diff as diff_command
from .params import OUTPUT_FILE, OUTPUT_FILE_OR_DASH, OUTPUT_FOLDER, Finite, z3_budget_option
from .stats import stats as stats_command
from .terminal import escaped_output

if TYPE_CHECKING:
    from ..symbolic.witness import Trace


def _variants(items: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise click.BadParameter(f"{item!r}: write a variant as AMBIGUITY=VARIANT",
                                     param_hint="--variant")
        out[key] = value
    return out


variant_option = click.option(
    "--variant", "variants", multiple=True, metavar="AMBIGUITY=VARIANT",
    help="Choose a reading of an ambiguity (repeatable); see the spec's ambiguities.")
players_option = click.option("--players", "-p", type=click.IntRange(min=1), required=True,
                              help="Number of players.")
as_option = click.option(
    "--as", "viewer", type=click.IntRange(min=0), default=None, metavar="P",
    help="Show what seat P sees (State.observation): zones hidden from P as their counts.")


def _seat(g: model.Game, viewer: int | None) -> None:
    """--as P names a seat of the game (a usage error, exit 2, before any output)."""
    if viewer is not None and viewer >= g.players:
        raise click.BadParameter(f"no seat {viewer}: the seats are 0 to {g.players - 1}",
                                 param_hint="'--as'")


unchecked_option = click.option(
    "--unchecked", is_flag=True,
    help="Load a situation even if the rules cannot reach it (a spec invariant fails, a round "
         "is over between turns): to explore an impossible state on purpose.")

#: Seconds and other times: more than zero (and finite).
SECONDS = Finite(min=0, min_open=True)
#: Counts of games, examples, steps and actions: at least one.
COUNT = click.IntRange(min=1)


#: The exit code when the output's reader goes away, as for a process SIGPIPE stops
#: (128 + 13), beside 130 for an interrupt.
EXIT_BROKEN_PIPE = 141


def _stop_writing() -> None:
    """Send what is left of the output nowhere, so that the interpreter's last flush does
    not fail on the closed pipe too."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


class _Group(click.Group):
    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["rulespec.argv"] = list(args)  # for a bug report (bug.py)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context):
        with escaped_output():  # no control character from a spec reaches the terminal
            try:
                return super().invoke(ctx)
            except RulespecError as exc:
                click.echo(f"error: {exc}", err=True)
                sys.exit(exc.exit_code)
            except (click.ClickException, click.exceptions.Exit, click.Abort):
                raise
            except BrokenPipeError:  # the reader stopped reading (`| head`): not a bug
                _stop_writing()
                sys.exit(EXIT_BROKEN_PIPE)
            except Exception as exc:  # not the user's fault: a bug in rulespec
                report_bug(exc, ctx.meta.get("rulespec.argv", ()))


@click.group(cls=_Group)
@click.version_option(package_name="rulespec")
def main() -> None:
    """rulespec: card-game rules as checkable specifications.

    A game is a YAML file in spec/ (or any path); GAME below is a game id such as
    a spec file name in spec/ without .yaml, or a path to a spec file.
    """


@main.command()
@click.argument("game")
@players_option
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the deal and choices.")
@click.option("--json", "as_json", is_flag=True, help="Print a machine-readable trace.")
@click.option("--max-actions", type=COUNT, default=10_000, show_default=True,
              help="Stop after this many actions.")
@click.option("--quiet", "-q", is_flag=True, help="Only the actions, not what each changes.")
@as_option
@variant_option
def play(game: str, players: int, seed: int, as_json: bool, max_actions: int, quiet: bool,
         viewer: int | None, variants: tuple[str, ...]) -> None:
    """Play one random game and print its trace (uniform choice among legal actions).

    Under each action: what it changed (per-player and per-index zones member by
    member), and at a round's end why it ended, the round's scores and the totals.
    With --as P, the deal and the changes as seat P sees them (the JSON's final state
    is then P's observation).
    """
    import random

    g = model.load(game, players=players, variants=_variants(variants))
    rng = random.Random(seed)
    state = g.initial_state(seed)
    _seat(g, viewer)
    steps: list[dict] = []
    if not as_json:
        click.echo(f"{g.ir.title}, {players} players, seed {seed}")
        click.echo(tr.describe(g, state, viewer))
    while not state.is_terminal and len(steps) < max_actions:
        actions = state.legal_actions()
        if not actions:
            click.echo(f"player {state.active_player} has no legal action", err=True)
            sys.exit(1)
        action = actions[rng.randrange(len(actions))]
        out = state.outcome(action)
        step: dict = {"step": len(steps) + 1, "round": state.round,
                      "player": state.active_player, "action": str(action)}
        if out.round_end is not None:
            step["round_end"] = {"reasons": list(out.reasons),
                                 "round_scores": list(out.round_scores or ()),
                                 "scores": list(out.round_end.scores)}
        steps.append(step)
        if not as_json:
            who = tr.actor(state.game, state.active_player, str(action))
            click.echo(f"{len(steps):4d}. r{state.round} {who}: {action}")
            if not quiet:
                shown = out.round_end if out.round_end is not None else out.state
                click.echo("      " + ("; ".join(tr.changes(g, state, shown, viewer))
                                       or "no change"))
            for line in tr.round_end_lines(state, out):
                click.echo(line)
        state = out.state
    if as_json:
        click.echo(json.dumps({"game": g.id, "players": players, "seed": seed,
                               "variants": g.ir.chosen, "actions": steps,
                               "scores": list(state.scores), "winners": list(state.winners),
                               **({"final": state.to_dict()} if viewer is None else
                                  {"as": viewer, "final": state.observation(viewer).to_dict()})},
                              indent=1))
    else:
        click.echo(f"final scores {list(state.scores)}; winners {list(state.winners)}")


@main.command()
@click.argument("game")
@players_option
@click.option("--state", "state_file", type=click.Path(path_type=Path, dir_okay=False),
              required=True,
              help="A situation file (YAML or JSON, at most 1 MB); see docs/api.md for the "
                   "format.")
@unchecked_option
@as_option
@variant_option
def legal(game: str, players: int, state_file: Path, unchecked: bool, viewer: int | None,
          variants: tuple[str, ...]) -> None:
    """List the legal actions in a written-down situation, and what each would do.

    For each action: the zones and variables it changes (per-player and per-index zones
    member by member); for one that ends the round, why, what the scoring changes, the
    round's scores, and then the next deal (not listed card by card). With --as P, the
    situation and the changes as seat P sees them.
    """
    g = model.load(game, players=players, variants=_variants(variants))
    _seat(g, viewer)
    state = g.read_state(state_file, checked=not unchecked)
    click.echo(tr.describe(g, state, viewer))
    actions = state.legal_actions()
    if not actions:
        click.echo("no legal actions" + (" (the game is over)" if state.is_terminal else ""))
        return
    for a in actions:
        try:
            text = tr.outcome_text(g, state, state.outcome(a), viewer)
        except model.ModelError as exc:
            text = f"the rules cannot carry it out: {exc}"
        click.echo(f"- {a}: {text}")


@main.command()
@click.argument("specs", nargs=-1)
@click.option("--games", type=COUNT, default=200, show_default=True,
              help="Random games per configuration (player count and variants).")
@click.option("--seed", type=int, default=0, show_default=True, help="First seed.")
@click.option("--players", "-p", "player_counts", type=COUNT, multiple=True,
              help="Only these player counts (repeatable); default: every supported count.")
@click.option("--replays", type=OUTPUT_FOLDER, default=Path("replays"), show_default=True,
              help="Where to write a replay file for each failure (an existing file of the "
                   "same name is kept: the new one is numbered).")
@click.option("--profile", type=click.Choice(["ci", "thorough", "none"]), default="ci",
              show_default=True,
              help="The property suite's Hypothesis profile (as pytest spec/ runs it); "
                   "none: seeded playouts only.")
@click.option("--examples", type=COUNT, default=None, help="Override the profile's examples.")
@click.option("--steps", type=COUNT, default=None, help="Override the profile's steps.")
@click.option("--z3/--no-z3", "use_z3", default=True, show_default=True,
              help="Also run the z3 queries (proofs over all states, witnesses).")
@z3_budget_option()
@click.option("--z3-safety-net", "z3_seconds", type=SECONDS, default=900.0, show_default=True,
              help="Seconds after which a z3 query is stopped whatever is left of its budget: "
                   "only for a machine far slower than expected. A query it stops is 'out of "
                   "time' (undecided) and is not cached.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=os.cpu_count() or 1,
              show_default="the number of CPUs",
              help="Jobs run side by side (configurations, and z3 queries of a player count), "
                   "each in its own process. The results do not depend on it.")
@click.option("--z3-jobs", type=click.IntRange(min=1), default=None,
              show_default="--jobs",
              help="Of those, at most this many running z3 queries (one player count "
                   "each).")
@click.option("--cache/--no-cache", "use_cache", default=True, show_default=True,
              help="Reuse results computed before for the same game, question and code "
                   "($RULESPEC_CACHE, default .rulespec-cache/); --no-cache computes every "
                   "result and stores none.")
@click.option("--verbose", "-v", is_flag=True,
              help="Print every row and the whole coverage report, not only the summary.")
@click.option("--json", "json_file", type=OUTPUT_FILE_OR_DASH, default=None,
              help="Also write every row as JSON to this file ('-': stdout).")
@variant_option
def check(specs: tuple[str, ...], games: int, seed: int, player_counts: tuple[int, ...],
          replays: Path, profile: str, examples: int | None, steps: int | None,
          use_z3: bool, z3_budget: int, z3_seconds: float, jobs: int, z3_jobs: int | None,
          use_cache: bool, verbose: bool, json_file: Path | None,
          variants: tuple[str, ...]) -> None:
    """Check every property of the given specs (default: every spec in spec/).

    Each player count (and, by the profile, each choice of variants) gets seeded random
    playouts and the Hypothesis state machine of the property suite, and each player
    count the z3 queries. A result computed before for the same game, question and code
    comes from the cache. Prints one line per game and property, the rows that need
    reading, and how many rows are proved, tested, shown, undecided and failing.

    Exit 0 when every row is decided as the spec declares (proved, tested, or shown by a
    witness where the spec declares a failure; an undecided row only where the spec
    accepts it), 1 when a property fails, 2 for a bad spec or bad arguments, 3 when rows
    stay undecided (bounded, unknown, out of time, a declared failure not shown, rules
    never exercised), 4 for a bug in rulespec, 130 when interrupted.
    """
    from ..checks.cache import Cache, default_folder
    from ..checks.plan import Job, Options, plan, rows_of_spec, store
    from ..checks.progress import Progress, Timings
    from ..checks.runner import run_jobs
    from ..checks.verdict import EXIT_INTERRUPTED, EXIT_UNDECIDED, Verdict, counts_line, exit_code
    from ..concrete.coverage import gaps, report_lines
    from .report import detail_lines, json_report, summary_lines, table_lines

    def warn(message: str) -> None:
        click.echo(message, err=True)

    t0 = time.perf_counter()
    opts = Options(games=games, seed=seed, players=player_counts,
                   variants=tuple(sorted(_variants(variants).items())),
                   profile=None if profile == "none" else profile, examples=examples,
                   steps=steps, z3=use_z3, z3_budget=z3_budget, z3_seconds=z3_seconds)
    cache = Cache(default_folder() if use_cache else None, warn)
    paths = list(specs) or [str(p) for p in all_specs()]
    plans = [plan(spec, opts, cache) for spec in paths]
    todo = [j for p in plans for j in p.jobs]
    results = cache.hits + cache.misses if use_cache else None
    warn(f"rulespec check: {len(paths)} spec{'s' * (len(paths) != 1)}; "
         + (f"{cache.hits} of {results} results from the cache; " if results else "")
         + (f"{len(todo)} job{'s' * (len(todo) != 1)} to run, {min(jobs, len(todo))} at a time"
            if todo else "nothing to run"))
    timings = Timings(cache.folder / "timings.json" if cache.folder is not None else None)
    progress = Progress(todo, jobs, timings, lambda text: click.echo(text, err=True, nl=False),
                        terminal=sys.stderr.isatty())
    finished = [0]

    def keep(job: Job, res: list) -> None:
        store(cache, job, res)
        finished[0] += 1

    try:
        run_jobs(todo, jobs, progress, keep, z3_jobs)
    except KeyboardInterrupt:
        progress.close()
        kept = (f"the {finished[0]} finished are kept in {cache.folder}, so running "
                "again goes on from there" if cache.folder is not None and finished[0]
                else "nothing was kept")
        warn(f"\ninterrupted: {finished[0]} of {len(todo)} jobs had finished; {kept}")
        sys.exit(EXIT_INTERRUPTED)
    finally:
        progress.close()
        timings.save()
    rows: list[Row] = []
    reports: list[str] = []
    spec_of: dict[str, str] = {}
    coverage: dict[str, list[dict]] = {}
    for p in plans:
        spec_rows, cov = rows_of_spec(p, opts)
        rows.extend(spec_rows)
        spec_of[p.base.id] = p.spec
        reports.extend(report_lines(p.spec, cov))
        coverage[p.base.id] = [attrs.asdict(g) for g in gaps(p.spec, cov)]
    replay_files = _write_replays(rows, replays, spec_of)
    verdicts = [(r.verdict, r.accepted) for r in rows]
    seconds = time.perf_counter() - t0
    to_stdout = json_file is not None and str(json_file) == "-"

    def say(line: str) -> None:  # the report for people; on stderr when stdout has the JSON
        click.echo(line, err=to_stdout)

    if verbose:
        for line in table_lines(rows):
            say(line)
        say("coverage:")
        for line in reports:
            say("  " + line)
    else:
        for line in summary_lines(rows):
            say(line)
        details = detail_lines(rows)
        if details:
            say("\nrows that need reading (every row: --verbose):")
            for line in details:
                say("  " + line)
    for _, (wanted, path, unreachable) in sorted(replay_files.items()):
        _said_replay(wanted, path, unreachable)
    cached = sum(r.cached for r in rows)
    now_decided = [r for r in rows if r.now_decided]
    if now_decided:
        say("\nrows the spec accepts as undecided that are decided now (the declaration can "
            "go):")
        for r in now_decided:
            say(f"  {r.game} {r.players or 'all'}p {r.property}: {r.verdict.value} "
                f"(accepted undecided because: {r.accepted_undecided})")
    code = exit_code(verdicts)
    say(f"{counts_line(verdicts)} in {seconds:.1f} s"
        + (f" ({cached} of {len(rows)} rows from the cache)" if cached else ""))
    undecided = [r for r in rows if r.verdict is Verdict.UNDECIDED and not r.accepted]
    if code == EXIT_UNDECIDED:
        say(f"not decided: {len(undecided)} row{'s' * (len(undecided) != 1)} neither proved "
            "nor shown (see above; a spec may accept a row as undecided, with its reason: "
            "docs/spec-language.md)")
    if json_file is not None:
        data = json_report(rows, spec_of, {i: str(p) for i, (_, p, _) in replay_files.items()},
                           coverage, seconds, code)
        text = json.dumps(data, indent=1)
        if to_stdout:
            click.echo(text)
        else:
            _write(lambda p: write_text(p, text + "\n"), json_file)
    sys.exit(code)


def _write_replays(rows: list[Row], replays: Path, spec_of: dict[str, str]
                   ) -> dict[int, tuple[Path, Path, bool]]:
    """A replay file for every row that failed (not as expected), by row index: the name
    wanted, the file written (numbered when the name held another replay), and whether it
    starts from a situation the rules cannot reach (a z3 witness may)."""
    from ..concrete.stateful import Config, replay_name

    out: dict[int, tuple[Path, Path, bool]] = {}
    for i, r in enumerate(rows):
        if r.ok:
            continue
        if not out:  # the folder is made for the first replay (refused if a link)
            _write(make_folder, replays)
        config = Config(r.players, tuple(_variant(v) for v in r.variants.split(",") if v))
        name = replay_name(r.game, config, r.property)
        if r.replay is not None:
            d = r.replay
            wanted = replays / name
            path = _write(functools.partial(
                tr.write_replay, spec=d["spec"], players=d["players"], seed=0,
                variants=d["variants"], actions=d["actions"], note=d.get("note", ""),
                shuffles=d.get("shuffles"), prop=r.property, situation=d.get("situation")),
                wanted)
            unreachable = d.get("situation") is not None and not _reachable(d)
        elif r.finding is not None:
            f = r.finding
            wanted = replays / name.replace(".yaml", f"-seed{f.seed}.yaml")
            path = _write(functools.partial(
                tr.write_replay, spec=spec_of.get(r.game, r.game), players=f.players,
                seed=f.seed, variants=f.variants, actions=f.actions, note=f.message,
                prop=r.property), wanted)
            unreachable = False
        else:
            continue
        out[i] = (wanted, path, unreachable)
    return out


def _reachable(replay: dict) -> bool:
    """Whether a replay's starting situation passes the checks of a situation file."""
    try:
        game = model.load(replay["spec"], players=replay["players"], variants=replay["variants"])
        game.state_from_dict(replay["situation"])
    except model.SpecError:
        return False
    return True


def _variant(text: str) -> tuple[str, str]:
    """A row's `a=v` as (a, v)."""
    name, value = text.split("=", 1)
    return name, value


def _write_witness(path: Path, trace: Trace, note: str = "") -> Path:
    d = trace.to_replay(note)
    return _write(lambda p: tr.write_replay(
        p, spec=d["spec"], players=d["players"], seed=0, variants=d["variants"],
        actions=d["actions"], note=note, shuffles=d["shuffles"], situation=d.get("situation"),
        output_folder=False), path)


_T = TypeVar("_T")


def _write(write: Callable[[Path], _T], path: Path) -> _T:
    """Run a file write; a file system error is the user's to fix: one line naming the
    file, exit 2."""
    try:
        return write(path)
    except OSError as exc:
        raise model.SpecError(model.Where(str(exc.filename or path)),
                              f"cannot write here: {exc.strerror or exc}") from None


def _said_replay(wanted: Path, written: Path, unreachable: bool = False) -> None:
    kept = f" ({wanted} exists with other contents and is kept)" if written != wanted else ""
    flag = " --unchecked" if unreachable else ""
    click.echo(f"replay: {written}{kept} (rulespec replay{flag} {written})", err=True)


def _unreachable(trace: Trace) -> bool:
    """Whether a z3 witness starts from a situation the rules cannot reach (z3 may start
    from any well-formed state), so that replaying it needs --unchecked."""
    if trace.situation is None:
        return False
    try:
        trace.game.state_from_dict(trace.situation)
    except model.SpecError:
        return True
    return False


@main.command()
@click.argument("spec")
@click.argument("condition")
@players_option
@z3_budget_option(150, "z3 may spend on the search", "--budget")
@click.option("--max-actions", type=COUNT, default=60, show_default=True,
              help="Longest action sequence to consider.")
@click.option("--out", type=OUTPUT_FILE, default=None,
              help="Write the witness as a replay file (for rulespec replay); an existing "
                   "file of that name is kept and the witness numbered.")
@variant_option
def query(spec: str, condition: str, players: int, z3_budget: int, max_actions: int,
          out: Path | None, variants: tuple[str, ...]) -> None:
    """Ask z3 for the shortest game reaching a situation described by CONDITION.

    CONDITION is a yes/no expression in the spec language, over the spec's zones, vars,
    params and defs, e.g. "quit[1] and count(hand[0]) == 7" or "empty(stock)". z3 picks
    the deal. Exit 0 with a witness, 1 if none exists within the bound or budget.
    """
    from ..checks.z3rows import trace_text
    from ..symbolic import queries as Q

    g = model.load(spec, players=players, variants=_variants(variants))
    t0 = time.perf_counter()
    res = Q.reach(g, condition, limit=z3_budget, max_depth=max_actions)
    if res.trace is None:
        click.echo(f"{res.detail} ({time.perf_counter() - t0:.1f} s)")
        sys.exit(1)
    click.echo(f"{res.detail} ({time.perf_counter() - t0:.1f} s)")
    click.echo(trace_text(g, res))
    if out is not None:
        written = _write_witness(out, res.trace)
        kept = f" ({out} exists with other contents and is kept)" if written != out else ""
        flag = " --unchecked" if _unreachable(res.trace) else ""
        click.echo(f"replay file: {written}{kept} (rulespec replay{flag} {written})")


@main.command()
@click.argument("game")
@players_option
@click.option("--seconds", type=SECONDS, default=3.0, show_default=True,
              help="How long to run each measurement.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--yardstick", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A hand-written Python playout of the same game to compare with (the "
                   "benchmarks/ folder has one): it defines game(rng, players) -> number of "
                   "actions. Runs its code.")
@variant_option
def bench(game: str, players: int, seconds: float, seed: int, yardstick: Path | None,
          variants: tuple[str, ...]) -> None:
    """Random-playout throughput: actions/s and games/s (uniform random legal choice).

    Through the State API and in place; with --yardstick, also the hand-written
    playout, in turns with the others so that machine load slows all alike, and the
    ratio of the rates ("State API / hand-written: 2.5x" means 2.5 times slower). Rates
    are per second of CPU time; --seconds is the time each of them runs.
    """
    from .bench import run_bench

    for line in run_bench(game, players, seconds, seed, _variants(variants), yardstick):
        click.echo(line)


@main.command()
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.option("--quiet", "-q", is_flag=True, help="Print only the actions, not the states.")
@click.option("--spec", "spec", default=None, metavar="SPEC",
              help="Replay under this spec instead of the file's (a path, a game id or "
                   "PATH@REV); the file's readings apply where this spec has the ambiguity.")
@variant_option
@unchecked_option
@as_option
def replay(file: Path, quiet: bool, spec: str | None, variants: tuple[str, ...],
           unchecked: bool, viewer: int | None) -> None:
    """Replay a trace file step by step, checking every property after every action.

    The file is what `rulespec check`, `rulespec query --out` or the property suite
    (pytest spec/) writes for a failure, or `rulespec diff` for the game where two versions
    part (`--spec` and `--variant` replay it under the other version). It names its spec
    by game id (a spec of spec/), absolute path or PATH@REV, so it replays from any
    folder. Exit 1 when a property fails on the
    way (the failure is reproduced), 0 when every property holds. With --as P, each
    state as seat P sees it.
    """
    from ..compare.versions import read_version

    data = tr.read_replay(file)
    chosen = dict(data.get("variants") or {})
    if spec is not None:
        data["spec"] = spec
    version = read_version(str(data["spec"]))
    if spec is None:  # the file's spec, not one the user named: its errors are not shown
        tr.check_replay_spec(data, version.path)
    if spec is not None:
        known = {a.id for a in version.ir(int(data["players"])).ambiguities}
        chosen = {k: v for k, v in chosen.items() if k in known}
    data["variants"] = {**chosen, **_variants(variants)}
    data["spec"] = version.spec
    with version.errors():
        g, state, problems, steps = tr.checked_replay(data, checked=not unchecked)
    _seat(g, viewer)
    for line in tr.deal_text(g, data, state, viewer)[:None if not quiet else 1]:
        click.echo(line)
    if data.get("note") and data.get("property"):
        click.echo(f"recorded failure: {data['property']}: {data['note']}")
    elif data.get("note"):
        click.echo(f"note: {data['note']}")
    failed = [(0, p, m) for p, m in problems]
    for p, m in problems:
        click.echo(f"     {p} FAILS after the deal: {m}")
    for step in steps:
        click.echo(tr.step_line(step))
        for line in tr.step_notes(step):
            click.echo(line)
        if not quiet:
            click.echo("     " + tr.describe(g, step.state, viewer).replace("\n", "\n     "))
        failed += [(step.number, p, m) for p, m in step.problems]
        state = step.state
    click.echo(f"scores {list(state.scores)}; winners {list(state.winners)}")
    if failed:
        recorded = [f for f in failed if f[1] == data.get("property")]
        n, p, m = (recorded or failed)[0]
        click.echo(f"reproduced: {p} fails {'after the deal' if n == 0 else f'at step {n}'}: {m}")
        sys.exit(1)
    if data.get("property"):
        click.echo(f"not reproduced: {data['property']} held at every step")


@main.command()
@click.argument("specs", nargs=-1)
@click.option("--players", "-p", type=COUNT, default=None,
              help="Player count of the examples (default: 4, or the nearest allowed).")
@click.option("--out", type=OUTPUT_FOLDER, default=None,
              help="Write <game>.md files into this folder instead of printing.")
@click.option("--html", "html_dir", type=OUTPUT_FOLDER, default=None,
              help="Write the FAQ as a static site into this folder: index.html, a page per "
                   "game and an annotated page per rulebook.")
@click.option("--partings", type=OUTPUT_FOLDER, default=None,
              help="Keep each reading's parting game here (docs/faq/partings for the published "
                   "FAQ): results stored for the same rules are reused, their games replayed; "
                   "the rest are searched and stored.")
@z3_budget_option(100, "z3 may spend searching both readings for a parting game, per "
                  "player count (0: no z3)", minimum=0)
@click.option("--games", type=click.IntRange(0, 100_000), default=200, show_default=True,
              help="Random games played on both readings in lock-step where z3 finds nothing.")
@click.option("--examples", type=click.IntRange(0, 100_000), default=100, show_default=True,
              help="Hypothesis-generated games, after the random ones.")
@click.option("--statistics-games", type=click.IntRange(0, 1_000_000), default=1000,
              show_default=True,
              help="Games per policy on both readings for the play statistics of each reading "
                   "that parts from the ruling (0: no statistics).")
def faq(specs: tuple[str, ...], players: int | None, out: Path | None, html_dir: Path | None,
        partings: Path | None, z3_budget: int, games: int, examples: int,
        statistics_games: int) -> None:
    """Write the clarified-rules FAQ: every ambiguity, its readings, the ruling and the
    shortest game where each other reading parts from the ruling (or what was proved where
    they never part), then every clarification with its example (default: every spec in
    spec/).

    Each reading's parting game is searched with z3 on both readings at once, then with
    games played on both in lock-step (as `rulespec diff` does); this takes minutes per game
    — keep the results with --partings to publish again in seconds."""
    from ..faq import commands, entries, markdown, site
    from ..faq.partings import Search

    paths = list(specs) or [str(p) for p in all_specs()]
    for folder in (out, html_dir, partings):  # made at once (the option type checked them)
        if folder is not None:
            _write(make_folder, folder)
    how = Search(z3_limit=z3_budget, games=games, examples=examples,
                 statistics_games=statistics_games)
    command = commands.faq(specs, store=partings, players=players, search=how, out=out,
                           html=html_dir)  # what the pages say wrote them
    faqs = []
    for spec in paths:
        click.echo(f"faq: {spec}", err=True)
        faqs.append(entries.build(spec, players=players, search=how, store=partings,
                                  say=lambda m: click.echo(f"  {m}", err=True),
                                  command=command))
    if html_dir is not None:
        written = _write(lambda p: site.write_site(faqs, p), html_dir)
        click.echo(f"wrote {len(written)} pages into {html_dir} (open {html_dir / 'index.html'})",
                   err=True)
    if out is not None:
        for f in faqs:
            target = _write(functools.partial(write_text, text=markdown.render(f)),
                            out / f"{f.spec.stem}.md")
            click.echo(f"wrote {target}", err=True)
    if out is None and html_dir is None:
        for f in faqs:
            click.echo(markdown.render(f))


@main.command("show-code")
@click.argument("game")
@players_option
@variant_option
@click.option("--fast", is_flag=True,
              help="The form that runs instead: slots by number, shortcuts, the playout loop.")
def show_code(game: str, players: int, variants: tuple[str, ...], fast: bool) -> None:
    """Print the Python the concrete back end generates for a game: the reference model,
    zones and variables named by the spec, each action once (its guard `check_<i>`, its
    effects `step_<i>`) with the rulebook lines it cites. The form that runs is compiled
    from the same IR and plays the same games."""
    g = model.load(game, players=players, variants=_variants(variants))
    click.echo(g.source if fast else g.readable().source)


@main.command()
@click.argument("game")
@players_option
@click.option("--seed", type=int, default=0, show_default=True)
@variant_option
def deal(game: str, players: int, seed: int, variants: tuple[str, ...]) -> None:
    """Print the situation after the deal as a situation file (a start for `legal`)."""
    g = model.load(game, players=players, variants=_variants(variants))
    click.echo(yaml.safe_dump(g.initial_state(seed).to_dict(), sort_keys=False))


main.add_command(diff_command)
main.add_command(stats_command, "stats")

if __name__ == "__main__":  # pragma: no cover
    main()
