"""The report of play statistics: its data (`Statistics` of one version, made of a
`Cell` of `Row`s per player count and policy, and `StatisticsComparison` of two, made of
`Compared` rows) and its four renderings — terminal text, markdown, JSON data and HTML
fragments with plots (`plots.py`). `stats.py` plays the games and fills the data in (and
offers these types under its own name too, as docs/api.md documents them).

Proportions are shown in percent and their differences in percentage points (pp);
means and spreads as numbers. Every value has its 95% interval and the number of games
behind it; a difference marked `*` is significant after Holm's correction.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import Any

import attrs

from ..concrete.text_safety import code_span as _code
from ..concrete.text_safety import markdown_cell as _md
from . import intervals as iv
from . import phone
from . import plots as pl
from .policies import GameRecord


@attrs.frozen
class Row:
    """One statistic of one cell: a stable key, what it is in words, and its estimate."""

    key: str  # e.g. "win_share/0", "actions", "score_mean/1", "action/play", "capped"
    label: str
    kind: str  # "share" (a proportion, in [0, 1]), "count" (a mean of counts), "mean", "spread"
    estimate: iv.Interval


@attrs.frozen
class Cell:
    """The statistics of one version at one player count under one policy."""

    players: int
    policy: str
    games: int
    outcomes: dict[str, int]
    rows: tuple[Row, ...]
    reached: bool | None  # every win share within the precision target (None: fixed games)
    records: tuple[GameRecord, ...] = attrs.field(repr=False, eq=False)
    action_names: tuple[str, ...] = ()
    round_end_names: tuple[str, ...] = ()
    game_end_names: tuple[str, ...] = ()
    max_actions: int = attrs.field(kw_only=True)  # the safety cap the games were played under

    def row(self, key: str) -> Row:
        return next(r for r in self.rows if r.key == key)

    @property
    def lengths(self) -> list[int]:
        """Actions per finished game (the game-length distribution)."""
        return [r.actions for r in self.records if r.outcome == "end"]


@attrs.frozen
class Statistics:
    """Play statistics of one version: one Cell per player count and policy."""

    label: str
    title: str
    seed: int
    precision: float | None
    budget: float | None
    stopped_by: str  # "precision", "budget" or "games" (a fixed number was asked for)
    seconds: float
    jobs: int
    max_actions: int
    cells: tuple[Cell, ...]

    def cell(self, players: int, policy: str) -> Cell:
        return next(c for c in self.cells if c.players == players and c.policy == policy)

    @property
    def games(self) -> int:
        return sum(c.games for c in self.cells)

    def to_text(self) -> str:
        return statistics_text(self)

    def to_markdown(self) -> str:
        return statistics_markdown(self)

    def to_json(self) -> dict[str, Any]:
        return statistics_json(self)

    def to_html_fragment(self, plots: bool = True) -> str:
        return statistics_html(self, plots)


@attrs.frozen
class Compared:
    """One statistic of one cell, old beside new."""

    players: int
    policy: str
    key: str
    label: str
    kind: str
    old: iv.Interval | None  # None: the statistic exists in one version only
    new: iv.Interval | None
    difference: iv.Difference | None
    significant: bool  # after Holm's correction over every row of the comparison


@attrs.frozen
class StatisticsComparison:
    """Two versions' statistics side by side, with the differences that are significant."""

    old: Statistics
    new: Statistics
    rows: tuple[Compared, ...]
    paired: bool  # same seeds: the games pair up (common random numbers)
    alpha: float

    @property
    def significant(self) -> tuple[Compared, ...]:
        return tuple(r for r in self.rows if r.significant)

    @property
    def plays_differently(self) -> bool:
        return bool(self.significant)

    def to_text(self) -> str:
        return comparison_text(self)

    def to_markdown(self) -> str:
        return comparison_markdown(self)

    def to_json(self) -> dict[str, Any]:
        return comparison_json(self)

    def to_html_fragment(self, plots: bool = True) -> str:
        return comparison_html(self, plots)


HOLM_NOTE = ("* significant: the 95% interval of the difference excludes 0 and the difference "
             "survives Holm's correction over all {m} compared statistics (at most a {a:.0%} chance "
             "of marking any difference when the versions play alike)")


# ------------------------------------------------------------------ numbers
def value(kind: str, x: float | None) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if kind == "share":  # small shares (the cap's, say) keep a digit that is not 0
        return f"{100 * x:.2f}%" if 0 < abs(x) < 0.01 else f"{100 * x:.1f}%"
    return f"{x:,.2f}"


def interval(kind: str, e: iv.Interval | None) -> str:
    if e is None:
        return ""
    if e.low is None or e.high is None:
        return f"(fewer than {iv.MIN_N} games)"
    return f"[{value(kind, e.low)}, {value(kind, e.high)}]"


def difference(kind: str, d: iv.Difference | None) -> str:
    if d is None:
        return ""
    scale, unit = (100, " pp") if kind == "share" else (1, "")
    if d.low is None or d.high is None:
        return f"{scale * d.value:+,.2f}{unit} (fewer than {iv.MIN_N} pairs)"
    return f"{scale * d.value:+,.2f}{unit} [{scale * d.low:+,.2f}, {scale * d.high:+,.2f}]"


def stopping(s: Statistics, games: int | None = None) -> str:
    """How many games were played, how fast, and what stopped play (`games`: the total
    over both versions of a comparison, which shared the time)."""
    games = s.games if games is None else games
    if s.stopped_by == "games":
        why = "a fixed number of games"
    elif s.stopped_by == "precision":
        why = f"precision reached: every win share within ±{100 * (s.precision or 0):g} pp"
    elif s.precision is None:
        why = f"the time budget of {s.budget:g} s, before the games asked for were played"
    else:
        why = (f"the time budget of {s.budget:g} s, before every win share was within "
               f"±{100 * s.precision:g} pp")
    return (f"{games:,} games in {s.seconds:.1f} s on {s.jobs} job{'s' * (s.jobs != 1)} "
            f"({games / max(s.seconds, 1e-9):,.0f} games/s); stopped by {why}")


def cell_title(c: Cell) -> str:
    mark = " (precision not reached)" if c.reached is False else ""
    extra = [f"{n} {o}" for o, n in c.outcomes.items() if o != "end" and n]
    return (f"{c.players} players, {c.policy} policy: {c.games:,} games"
            + (f" ({', '.join(extra)})" if extra else "") + mark)


def _table(header: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        return "  ".join(c.rjust(w) if i in right else c.ljust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    return [line(header), line(["-" * w for w in widths]), *(line(r) for r in rows)]


NOTES = ("95% intervals: Wilson for shares, Student's t for means (from 30 games), delta "
         "method for spreads; a tie shares the win equally among the tied winners; win shares, "
         "lengths and scores count the games that ended")


# ------------------------------------------------------------------ one version
def statistics_text(s: Statistics) -> str:
    out = [f"Play statistics of {s.title} ({s.label}), seed {s.seed}", stopping(s), NOTES, ""]
    for c in s.cells:
        out.append(cell_title(c))
        rows = [[r.label, value(r.kind, r.estimate.value), interval(r.kind, r.estimate),
                 f"{r.estimate.n:,}"] for r in c.rows]
        out += ["  " + ln for ln in _table(["statistic", "value", "95% interval", "games"], rows,
                                           {1, 3})]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def statistics_markdown(s: Statistics) -> str:
    out = [f"### Play statistics of {_md(s.title)} ({_code(s.label)})", "",
           f"Seed {s.seed}; {stopping(s)}. {NOTES}.", ""]
    for c in s.cells:
        out += [f"**{_md(cell_title(c))}**", "", "| statistic | value | 95% interval | games |",
                "|---|---:|---|---:|"]
        out += [f"| {_md(r.label)} | {value(r.kind, r.estimate.value)} | "
                f"{interval(r.kind, r.estimate)} | {r.estimate.n:,} |" for r in c.rows]
        out.append("")
    return "\n".join(out)


def _interval_json(e: iv.Interval) -> dict[str, Any]:
    return {"value": _num(e.value), "low": _num(e.low), "high": _num(e.high), "n": e.n,
            "method": e.method}


def _num(x: float | None) -> float | None:
    return None if x is None or math.isnan(x) else x


def statistics_json(s: Statistics) -> dict[str, Any]:
    return {
        "label": s.label, "title": s.title, "seed": s.seed, "precision": s.precision,
        "budget": s.budget, "stopped_by": s.stopped_by, "seconds": round(s.seconds, 3),
        "jobs": s.jobs, "max_actions": s.max_actions, "confidence": iv.CONFIDENCE,
        "cells": [{
            "players": c.players, "policy": c.policy, "games": c.games, "outcomes": c.outcomes,
            "precision_reached": c.reached,
            "statistics": [{"key": r.key, "label": r.label, "kind": r.kind,
                            **_interval_json(r.estimate)} for r in c.rows],
            "length_histogram": _histogram(c.lengths),
        } for c in s.cells],
    }


def _histogram(xs: list[int]) -> dict[str, int]:
    counts: dict[int, int] = {}
    for x in xs:
        counts[x] = counts.get(x, 0) + 1
    return {str(k): counts[k] for k in sorted(counts)}


def statistics_html(s: Statistics, plots: bool = True) -> str:
    out = [f'<section class="rulespec-stats"><h2>Play statistics of {_h(s.title)} '
           f"<code>{_h(s.label)}</code></h2>",
           f"<p>Seed {s.seed}; {_h(stopping(s))}.</p><p class=note>{_h(NOTES)}.</p>"]
    for c in s.cells:
        out.append(f"<h3>{_h(cell_title(c))}</h3>")
        if plots:
            out.append(_figures([c], [s.label]))
        out.append("<table><tr><th>statistic</th><th>value</th><th>95% interval</th>"
                   "<th>games</th></tr>")
        out += [f"<tr><td>{_h(r.label)}</td><td class=num>{value(r.kind, r.estimate.value)}"
                f"</td><td>{_h(interval(r.kind, r.estimate))}</td>"
                f"<td class=num>{r.estimate.n:,}</td></tr>" for r in c.rows]
        out.append("</table>")
    out.append("</section>")
    return "\n".join(out)


# ------------------------------------------------------------------ comparison
def _groups(c: StatisticsComparison) -> list[tuple[int, str, list[Compared]]]:
    out: dict[tuple[int, str], list[Compared]] = {}
    for r in c.rows:
        out.setdefault((r.players, r.policy), []).append(r)
    return [(p, pol, rows) for (p, pol), rows in out.items()]


def _how(c: StatisticsComparison) -> str:
    pairing = ("the same seeds for both versions (common random numbers); differences are "
               "paired game by game" if c.paired else
               "different seeds; differences treat the versions' games as independent")
    tested = sum(r.difference is not None and r.difference.p is not None for r in c.rows)
    return (f"{pairing}. " + HOLM_NOTE.format(m=tested, a=c.alpha) + ". Spreads are compared "
            "as if unpaired.")


def _both(c: StatisticsComparison) -> str:
    if c.old.seconds == c.new.seconds:  # played together (compare_play)
        return stopping(c.old, c.old.games + c.new.games)
    return f"old {stopping(c.old)}; new {stopping(c.new)}"


def _verdict(c: StatisticsComparison) -> str:
    n = len(c.significant)
    if n:
        return f"{n} statistic{'s' * (n != 1)} differ{'s' * (n == 1)} significantly"
    return "no statistic differs significantly"


def _games(c: StatisticsComparison, players: int, policy: str) -> str:
    o, n = c.old.cell(players, policy), c.new.cell(players, policy)
    pairs = "pairs of games" if c.paired else "games each"
    games = (f"{min(o.games, n.games):,} {pairs}" if o.games == n.games or c.paired
             else f"{o.games:,} and {n.games:,} games")
    mark = " (precision not reached)" if False in (o.reached, n.reached) else ""
    return f"{players} players, {policy} policy: {games}{mark}"


def comparison_text(c: StatisticsComparison) -> str:
    out = [f"Play statistics, old {c.old.label} against new {c.new.label}: {_verdict(c)}",
           f"both versions: {_both(c)}", _how(c), NOTES, ""]
    for players, policy, rows in _groups(c):
        out.append(_games(c, players, policy))
        table = [[r.label, value(r.kind, r.old.value if r.old else None),
                  value(r.kind, r.new.value if r.new else None), difference(r.kind, r.difference),
                  "*" if r.significant else ("only old" if r.new is None else
                                             "only new" if r.old is None else "")]
                 for r in rows]
        out += ["  " + ln for ln in _table(["statistic", "old", "new",
                                            "difference [95% interval]", ""], table, {1, 2})]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def comparison_markdown(c: StatisticsComparison) -> str:
    out = [f"### Play statistics: {_verdict(c)}", "",
           f"Old {_code(c.old.label)}, new {_code(c.new.label)}; {_both(c)}. {_md(_how(c))} "
           f"{NOTES}.", ""]
    for players, policy, rows in _groups(c):
        out += [f"**{_games(c, players, policy)}**", "",
                "| statistic | old | new | difference [95% interval] | |", "|---|---:|---:|---|---|"]
        for r in rows:
            mark = "**\\***" if r.significant else ("only old" if r.new is None else
                                                     "only new" if r.old is None else "")
            diff = difference(r.kind, r.difference)
            out.append(f"| {_md(r.label)} | {value(r.kind, r.old.value if r.old else None)} | "
                       f"{value(r.kind, r.new.value if r.new else None)} | "
                       f"{'**' + diff + '**' if r.significant else diff} | {mark} |")
        out.append("")
    return "\n".join(out)


def comparison_json(c: StatisticsComparison) -> dict[str, Any]:
    def diff(d: iv.Difference | None) -> dict[str, Any] | None:
        if d is None:
            return None
        return {"value": _num(d.value), "low": _num(d.low), "high": _num(d.high),
                "p": _num(d.p), "n": d.n, "paired": d.paired}

    return {
        "old": statistics_json(c.old), "new": statistics_json(c.new), "paired": c.paired,
        "alpha": c.alpha, "correction": "holm", "plays_differently": c.plays_differently,
        "rows": [{"players": r.players, "policy": r.policy, "key": r.key, "label": r.label,
                  "kind": r.kind, "old": _interval_json(r.old) if r.old else None,
                  "new": _interval_json(r.new) if r.new else None,
                  "difference": diff(r.difference), "significant": r.significant}
                 for r in c.rows],
    }


def comparison_html(c: StatisticsComparison, plots: bool = True) -> str:
    out = [f'<section class="rulespec-stats"><h2>Play statistics: {_h(_verdict(c))}</h2>',
           f"<p>Old <code>{_h(c.old.label)}</code>, new <code>{_h(c.new.label)}</code>; "
           f"{_h(_both(c))}.</p><p class=note>{_h(_how(c))} {_h(NOTES)}.</p>"]
    for players, policy, rows in _groups(c):
        out.append(f"<h3>{_h(_games(c, players, policy))}</h3>")
        if plots:
            out.append(_figures([c.old.cell(players, policy), c.new.cell(players, policy)],
                                    ["old", "new"]))
        out.append("<table><tr><th>statistic</th><th>old</th><th>new</th>"
                   "<th>difference [95% interval]</th><th></th></tr>")
        for r in rows:
            cls = " class=significant" if r.significant else ""
            out.append(f"<tr{cls}><td>{_h(r.label)}</td>"
                       f"<td class=num>{value(r.kind, r.old.value if r.old else None)}</td>"
                       f"<td class=num>{value(r.kind, r.new.value if r.new else None)}</td>"
                       f"<td>{_h(difference(r.kind, r.difference))}</td>"
                       f"<td>{'*' if r.significant else ''}</td></tr>")
        out.append("</table>")
    out.append("</section>")
    return "\n".join(out)


def _figures(cells: Sequence[Cell], names: Sequence[str]) -> str:
    """The figures of cells of one player count and policy, one series per cell."""
    return pl.cell_figures([c.lengths for c in cells],
                           [[c.row(f"win_share/{s}").estimate for s in range(c.players)]
                            for c in cells], names)


# ------------------------------------------------------------------ pages
STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 70em; padding: 0 1em;
       color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 1.5em; }
th, td { padding: 0.15em 0.7em; border-bottom: 1px solid #ddd; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.significant td { background: #fff3cd; font-weight: 600; }
.note { color: #555; font-size: 0.9em; }
.figures { display: flex; flex-wrap: wrap; gap: 1em; }
.figures svg { max-width: 100%; height: auto; }
"""


def html_page(title: str, *fragments: str) -> str:
    """A self-contained page (no external assets) around HTML fragments, phone-ready
    (`phone.py`)."""
    return (f"<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>{phone.VIEWPORT}"
            f"<title>{_h(title)}</title><style>{STYLE}{phone.CSS}</style></head><body>\n"
            + phone.scrolling_tables("\n".join(fragments)) + "\n</body></html>\n")


def _h(text: str) -> str:
    return html.escape(text, quote=True)
