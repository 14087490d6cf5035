"""Play statistics: what a version of a game does in play, with confidence intervals.

`play_statistics(version, ...) -> Statistics` plays games under generic policies
(`policies.py`) at each player count until every seat's win-share interval is narrower
than a target or a time budget runs out, and summarises them: game length, each seat's
share of wins, final scores, how often each action and each round-end and game-end
condition fires, and games stopped by the safety cap. `compare_play(old, new, ...) ->
StatisticsComparison` plays two versions on the same seeds (common random numbers) and
puts each statistic old beside new with the difference, its interval and, after Holm's
correction over all rows, whether it is significant; `compare_statistics(old, new)` does
the same for two `Statistics` already played. The results are the data of report.py,
defined there with their renderings (terminal text, markdown, JSON data and an HTML
fragment with plots) and importable from here as well.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import attrs

import model
from model.loader import any_player_count

from . import intervals as iv
from .policies import POLICIES, GameRecord, require_policies
from .report import Cell, Compared, Row, Statistics, StatisticsComparison  # also offered here
from .runner import Chunk, Version, make_runner

FIRST_BATCH = 1000  # games per player count and policy before the first look at precision
CHUNK = 200  # games per unit of work
#: Games every player count, policy and version plays whatever the time budget (the
#: budget applies after them), so that no cell is left with none: one chunk.
MIN_GAMES = CHUNK
MAX_ACTIONS = 10_000  # the safety cap: a game still going after this many actions stops
DEFAULT_PRECISION = 0.01  # +-1 percentage point on win shares
DEFAULT_BUDGET = 60.0  # seconds


@attrs.frozen
class Progress:
    """What a progress display needs: games done and planned so far, time used."""

    done: int
    planned: int
    elapsed: float
    budget: float | None
    note: str


ProgressFn = Callable[[Progress], None]


# ------------------------------------------------------------------ public API
def play_statistics(version: Version | str, *, players: Sequence[int] | None = None,
                    policies: Sequence[str] = POLICIES, precision: float = DEFAULT_PRECISION,
                    budget: float | None = DEFAULT_BUDGET, games: int | None = None,
                    jobs: int | None = None, scheduler: Any = None, seed: int = 0,
                    max_actions: int = MAX_ACTIONS,
                    progress: ProgressFn | None = None) -> Statistics:
    """Play one version at each player count (default: all it allows) and policy.

    Games are added in batches until every seat's win-share interval is within
    +-`precision` (a fraction: 0.01 is one percentage point) or `budget` seconds pass;
    `games` asks for exactly that many games per player count and policy instead.
    `jobs` local processes (default: every core), or a Dask cluster at `scheduler` (an
    address or a `distributed.Client`). Raises SpecError for a bad spec or argument.
    """
    v = Version.of(version) if isinstance(version, str) else version
    (stats,) = _run([v], players, policies, precision, budget, games, jobs, scheduler, seed,
                    max_actions, progress)
    return stats


def compare_play(old: Version | str, new: Version | str, *,
                 players: Sequence[int] | None = None, policies: Sequence[str] = POLICIES,
                 precision: float = DEFAULT_PRECISION, budget: float | None = DEFAULT_BUDGET,
                 games: int | None = None, jobs: int | None = None, scheduler: Any = None,
                 seed: int = 0, max_actions: int = MAX_ACTIONS,
                 progress: ProgressFn | None = None,
                 alpha: float = 1 - iv.CONFIDENCE) -> StatisticsComparison:
    """Play two versions on the same seeds and compare them (see `compare_statistics`).

    The default player counts are those both versions allow. Both versions get the
    same number of games; play stops when every win share of both is within precision.
    """
    a = Version.of(old) if isinstance(old, str) else old
    b = Version.of(new) if isinstance(new, str) else new
    if players is None:
        counts = set(_player_counts(a)) & set(_player_counts(b))
        if not counts:
            raise model.SpecError(None, f"{a.label} and {b.label} allow no common player count")
        players = sorted(counts)
    sa, sb = _run([a, b], players, policies, precision, budget, games, jobs, scheduler, seed,
                  max_actions, progress)
    return compare_statistics(sa, sb, alpha=alpha)


#: a row of a comparison before Holm's correction: Compared's fields but `significant`
_Side = tuple[int, str, str, str, str, iv.Interval | None, iv.Interval | None,
              iv.Difference | None]


def compare_statistics(old: Statistics, new: Statistics,
                       alpha: float = 1 - iv.CONFIDENCE) -> StatisticsComparison:
    """Each statistic old beside new, the difference new - old with its 95% interval, and
    whether it is significant after Holm's correction (family-wise error <= alpha).

    Games pair up when both were played with the same seed (game i has the same deal in
    both): the difference is then the mean of per-game differences over the games both
    played. Otherwise the samples are treated as independent.
    """
    paired = old.seed == new.seed
    rows: list[_Side] = []
    for cn in new.cells:
        co = next((c for c in old.cells if c.players == cn.players and c.policy == cn.policy),
                  None)
        if co is None:
            continue
        n = min(co.games, cn.games)
        shown = [o for o in ("stuck", "error") if co.outcomes.get(o) or cn.outcomes.get(o)]
        cols_old = _columns(co, co.records[:n] if paired else co.records, shown)
        cols_new = _columns(cn, cn.records[:n] if paired else cn.records, shown)
        for key in dict.fromkeys([*cols_old, *cols_new]):
            label, kind, _ = cols_new.get(key) or cols_old[key]
            a, b = cols_old.get(key), cols_new.get(key)
            diff = None if a is None or b is None else _difference(a[2], b[2], kind, paired)
            rows.append((cn.players, cn.policy, key, label, kind,
                         _estimate(kind, a[2]) if a else None,
                         _estimate(kind, b[2]) if b else None, diff))
    marks = iv.holm([d.p if d is not None else None for *_, d in rows], alpha)
    return StatisticsComparison(old, new, tuple(Compared(*r, significant=m)
                                                for r, m in zip(rows, marks, strict=True)),
                                paired, alpha)


# ------------------------------------------------------------------ statistics
Values = list[float | None]  # one per game; None where the game does not count


def _columns(cell: Cell, records: Sequence[GameRecord], outcomes: Sequence[str] = ()
             ) -> dict[str, tuple[str, str, Values]]:
    """Every statistic's key -> (label, kind, per-game values). `outcomes`: which of
    "stuck" and "error" get a row (those that happened, in either version)."""
    na = len(cell.action_names)
    out: dict[str, tuple[str, str, Values]] = {}

    def add(key: str, label: str, kind: str, f: Callable[[GameRecord], float | None]) -> None:
        out[key] = (label, kind, [f(r) for r in records])

    def end(f: Callable[[GameRecord], float]) -> Callable[[GameRecord], float | None]:
        return lambda r: f(r) if r.outcome == "end" else None

    # per seat, action, condition or outcome: closures, as `lambda r, s=s:` is to mypy untyped
    def win_share(s: int) -> Callable[[GameRecord], float]:
        return lambda r: 1 / len(r.winners) if s in r.winners else 0.0

    def score(s: int) -> Callable[[GameRecord], float]:
        return lambda r: r.scores[s]

    def tallied(i: int) -> Callable[[GameRecord], float]:
        return lambda r: r.tally[i]

    def ended(j: int) -> Callable[[GameRecord], float]:
        return lambda r: float(r.ends[j])

    def outcome_is(o: str) -> Callable[[GameRecord], float | None]:
        return lambda r: float(r.outcome == o)

    for s in range(cell.players):
        add(f"win_share/{s}", f"win share, seat {s}", "share",
            end(win_share(s)))
    add("actions", "actions per game", "count", end(lambda r: r.actions))
    add("rounds", "rounds per game", "count", end(lambda r: r.rounds))
    for s in range(cell.players):
        add(f"score_mean/{s}", f"final score, seat {s}", "mean", end(score(s)))
    for s in range(cell.players):
        add(f"score_sd/{s}", f"final score spread (SD), seat {s}", "spread",
            end(score(s)))
    for i, name in enumerate(cell.action_names):
        add(f"action/{name}", f"action {name} per game", "count", end(tallied(i)))
    for j, name in enumerate(cell.round_end_names):
        add(f"round_end/{name}", f"round end {name} per game", "count",
            end(tallied(na + j)))
    for j, name in enumerate(cell.game_end_names):
        add(f"game_end/{name}", f"game end {name} (share of games)", "share",
            end(ended(j)))
    add("capped", f"stopped by the safety cap of {cell.max_actions:,} actions (share)", "share",
        lambda r: float(r.outcome == "cap"))
    labels = {"stuck": "stuck: no legal action (share)", "error": "stopped by a model error (share)"}
    for outcome in outcomes:
        add(outcome, labels[outcome], "share", outcome_is(outcome))
    return out


def _estimate(kind: str, column: Values) -> iv.Interval:
    values = [x for x in column if x is not None]
    if kind == "share":
        return iv.wilson(values)
    if kind == "spread":
        return iv.sd_delta(values)
    return iv.mean_t(values, floor=0.0 if kind == "count" else None)


def _difference(old: Values, new: Values, kind: str, paired: bool) -> iv.Difference:
    if paired:
        pairs = [(a, b) for a, b in zip(old, new, strict=False) if a is not None and b is not None]
        xs, ys = [a for a, _ in pairs], [b for _, b in pairs]
        if kind == "spread":
            return iv.sd_unpaired(xs, ys)
        return iv.paired(xs, ys)
    xs = [a for a in old if a is not None]
    ys = [b for b in new if b is not None]
    if kind == "spread":
        return iv.sd_unpaired(xs, ys)
    return iv.unpaired(xs, ys, share=kind == "share")


def make_cell(game: model.Game, policy: str, records: Sequence[GameRecord], reached: bool | None,
              max_actions: int) -> Cell:
    records = tuple(sorted(records, key=lambda r: r.number))
    outcomes = {o: sum(r.outcome == o for r in records) for o in ("end", "cap", "stuck", "error")}
    cell = Cell(game.players, policy, len(records), outcomes, (), reached, records,
                tuple(a.name for a in game.ir.actions), tuple(c.name for c in game.ir.round_end),
                tuple(c.name for c in game.ir.game_end), max_actions=max_actions)
    happened = [o for o in ("stuck", "error") if outcomes[o]]
    rows = tuple(Row(key, label, kind, _estimate(kind, values))
                 for key, (label, kind, values) in _columns(cell, records, happened).items())
    return attrs.evolve(cell, rows=rows)


def _win_half_width(game_players: int, records: Iterable[GameRecord]) -> float:
    """The widest win-share interval's half-width (inf before any game ended)."""
    finished = [r for r in records if r.outcome == "end"]
    worst = 0.0
    for s in range(game_players):
        shares = [1 / len(r.winners) if s in r.winners else 0.0 for r in finished]
        worst = max(worst, iv.wilson(shares).half_width)
    return worst


# ------------------------------------------------------------------ sampling
def _player_counts(v: Version) -> list[int]:
    """Every player count the version allows."""
    g = v.load(any_player_count(v.file()))
    return list(range(g.ir.min_players, g.ir.max_players + 1))


@attrs.define
class _Slot:
    """The games of one player count and policy, for each version played."""

    players: int
    policy: str
    target: int  # games planned (indices 0 .. target - 1)
    done: list[dict[int, list[GameRecord]]]  # per version: chunk start -> records
    finished: bool = False
    reached: bool = False

    def prefix(self, v: int) -> list[GameRecord]:
        """The records of the longest run of complete chunks from game 0."""
        out: list[GameRecord] = []
        start = 0
        while start in self.done[v]:
            out.extend(self.done[v][start])
            start += len(self.done[v][start])
        return out

    def common(self) -> int:
        """Games complete from 0 in every version (the pairs a comparison can use)."""
        return min(len(self.prefix(v)) for v in range(len(self.done)))


def _run(versions: list[Version], players: Sequence[int] | None, policies: Sequence[str],
         precision: float, budget: float | None, games: int | None, jobs: int | None,
         scheduler: Any, seed: int, max_actions: int,
         progress: ProgressFn | None) -> list[Statistics]:
    _check_arguments(policies, precision, budget, games, jobs, seed, max_actions)
    t0 = time.monotonic()
    counts = list(players) if players else _player_counts(versions[0])
    counts = list(dict.fromkeys(counts))
    policies = list(dict.fromkeys(policies))
    loaded = {(i, p): v.load(p) for i, v in enumerate(versions) for p in counts}
    for (i, _), g in loaded.items():
        require_policies(versions[i].label, g.ir, policies)
    slots = [_Slot(p, pol, games or FIRST_BATCH, [{} for _ in versions])
             for p in counts for pol in policies]
    deadline = None if budget is None or math.isinf(budget) else t0 + budget
    runner = make_runner(jobs or os.cpu_count() or 1, scheduler)
    out_of_time = False
    try:
        while not out_of_time:
            chunks = []
            for s in slots:
                if s.finished:
                    continue
                for vi, v in enumerate(versions):
                    start = max([k + len(r) for k, r in s.done[vi].items()], default=0)
                    for c in range(start, s.target, CHUNK):
                        chunks.append(Chunk(v, s.players, s.policy, seed, c,
                                            min(CHUNK, s.target - c), max_actions))
            if not chunks:
                break
            done = sum(len(r) for s in slots for d in s.done for r in d.values())
            planned = done + sum(c.count for c in chunks)
            by_key = {(s.players, s.policy): s for s in slots}
            got = 0
            # each cell's first MIN_GAMES games whatever the budget; then the cells in turn,
            # chunk by chunk, so that a budget running out leaves them alike
            chunks.sort(key=lambda ch: ch.start)  # stable: the cells' order within a start
            first = [ch for ch in chunks if ch.start < MIN_GAMES]
            rest = [ch for ch in chunks if ch.start >= MIN_GAMES]
            for part, until in ((first, None), (rest, deadline)):
                for chunk, records in runner.run(part, until):
                    slot = by_key[(chunk.players, chunk.policy)]
                    slot.done[versions.index(chunk.version)][chunk.start] = records
                    got += 1
                    done += len(records)
                    if progress is not None:
                        progress(Progress(done, planned, time.monotonic() - t0, budget,
                                          f"{chunk.players} players, {chunk.policy}"))
            out_of_time = got < len(chunks)
            for s in slots:
                if s.finished:
                    continue
                if games is not None:
                    s.finished = not out_of_time
                    continue
                widths = [_win_half_width(s.players, s.prefix(v)) for v in range(len(versions))]
                worst = max(widths)
                if worst <= precision:
                    s.finished = s.reached = True
                    continue
                n = s.target
                if s.common() < n:
                    continue  # the batch did not finish in time
                # the games that would make the widest interval narrow enough (its width
                # shrinks as 1/sqrt(n)), with a margin; growing at most eightfold at once
                need = n * 8 if math.isinf(worst) else math.ceil(n * (worst / precision) ** 2 * 1.1)
                need = min(max(need, n + CHUNK), n * 8)
                s.target = -(-need // CHUNK) * CHUNK
            if deadline is not None and time.monotonic() >= deadline and not all(
                    s.finished for s in slots):
                out_of_time = True
    finally:
        runner.close()
    stopped_by = "budget" if out_of_time else "games" if games is not None else "precision"
    seconds = time.monotonic() - t0
    results = []
    for vi, v in enumerate(versions):
        cells = []
        for s in slots:
            n = s.common()
            game = loaded[(vi, s.players)]
            cells.append(make_cell(game, s.policy, s.prefix(vi)[:n],
                                   None if games is not None else s.reached, max_actions))
        title = loaded[(vi, counts[0])].ir.title
        results.append(Statistics(v.label, title, seed, None if games is not None else precision,
                                  budget, stopped_by, seconds, runner.jobs, max_actions,
                                  tuple(cells)))
    return results


def _check_arguments(policies: Sequence[str], precision: float, budget: float | None,
                     games: int | None, jobs: int | None, seed: int, max_actions: int) -> None:
    def bad(message: str) -> model.SpecError:
        return model.SpecError(None, message)

    unknown = [p for p in policies if p not in POLICIES]
    if unknown or not policies:
        raise bad(f"unknown policy {', '.join(map(repr, unknown)) or 'none'}; "
                  f"the policies are: {', '.join(POLICIES)}")
    if not precision > 0 or math.isinf(precision):
        raise bad(f"the precision must be a positive number, not {precision}")
    if budget is not None and not budget > 0:
        raise bad(f"the budget must be a positive number of seconds, not {budget}")
    if games is not None and games < 1:
        raise bad(f"the number of games must be at least 1, not {games}")
    if jobs is not None and jobs < 1:
        raise bad(f"the number of jobs must be at least 1, not {jobs}")
    if seed < 0:
        raise bad(f"the seed must not be negative, not {seed}")
    if max_actions < 1:
        raise bad(f"the safety cap must be at least 1 action, not {max_actions}")
