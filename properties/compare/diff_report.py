"""The report of `rulespec diff`: its data (`Report`) and its four renderings — terminal
tables, Markdown (a pull-request comment), JSON (for scripts) and one self-contained HTML
page.

Four parts, in the order a designer reads them: what changed in the rules, where play
parts, the properties old beside new, and the play statistics (compare/report.py's
`StatisticsComparison`, which renders itself, in HTML with compare/plots.py's figures).
"""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING, Any

import attrs

from ..concrete.text_safety import code_span, markdown_cell
from . import phone
from .checks import UNCHANGED, PropertyPair
from .parting import Parting
from .rules import Change, RulesDiff

if TYPE_CHECKING:  # types only: run.py builds the report from both
    from .report import StatisticsComparison


@attrs.frozen
class Side:
    """One version as the report names it."""

    label: str  # as written on the command line, with readings where they tell sides apart
    spec: str  # what `rulespec replay --spec` takes for it
    variants: dict[str, str] = attrs.field(factory=dict)  # its readings, all ambiguities


@attrs.frozen
class Report:
    old: Side
    new: Side
    players: tuple[int, ...]
    rules: RulesDiff
    partings: tuple[Parting, ...]
    replays: dict[int, str] = attrs.field(factory=dict)  # players -> parting replay file
    properties: tuple[PropertyPair, ...] | None = None  # None: not run
    statistics: StatisticsComparison | None = None  # None: not played (see statistics_note)
    statistics_note: str = ""  # why there are no statistics
    seconds: float = 0.0
    searched: str = ""  # what the parting search was allowed (z3, games)
    compared: str = ""  # which configurations the property table compares

    @property
    def plays_differently(self) -> bool:
        """A game where they part, or a statistic that differs significantly."""
        return any(p.parted for p in self.partings) or self.statistics_differ

    @property
    def statistics_differ(self) -> bool:
        return self.statistics is not None and self.statistics.plays_differently

    def verdict(self) -> str:
        parted = [p.players for p in self.partings if p.parted]
        differ = len(self.statistics.significant) if self.statistics is not None else 0
        also = (f"; {differ} play statistic{'s' * (differ != 1)} differ"
                f"{'s' * (differ == 1)} significantly" if differ else "")
        if parted:
            return f"The versions play differently (with {_counts(parted)} players{also})."
        if differ:
            return (f"The versions play differently: {also[2:]}, though no game where they "
                    "part was found.")
        proved = all(p.status == "proved_same" for p in self.partings)
        if proved:
            return "The versions play the same: proved for every player count compared."
        return ("No difference in play was found (see what was shown for each player count "
                "below).")

    def replay_commands(self, players: int) -> list[tuple[str, str]]:
        """How to replay the parting game under each version."""
        path = self.replays.get(players)
        if path is None:
            return []
        old_variants = "".join(f" --variant {k}={v}" for k, v in sorted(self.old.variants.items())
                               if self.new.variants.get(k) != v)
        return [(f"rulespec replay {path}", "the new version"),
                (f"rulespec replay {path} --spec {self.old.spec}{old_variants}",
                 "the old version")]

    def to_json(self) -> dict[str, Any]:
        return {
            "old": attrs.asdict(self.old), "new": attrs.asdict(self.new),
            "players": list(self.players), "verdict": self.verdict(),
            "plays_differently": self.plays_differently,
            "rules": {"summary": self.rules.summary(), "renames": self.rules.renames,
                      "warnings": list(self.rules.warnings),
                      "changes": [attrs.asdict(c) for c in self.rules.changes]},
            "parting": [dict(attrs.asdict(p), replay=self.replays.get(p.players),
                             summary=p.summary()) for p in self.partings],
            "searched": self.searched,
            "properties": (None if self.properties is None
                           else [attrs.asdict(r) for r in self.properties]),
            "statistics": None if self.statistics is None else self.statistics.to_json(),
            "statistics_note": self.statistics_note or None,
            "seconds": round(self.seconds, 2),
        }


def _counts(ns: list[int]) -> str:
    return ", ".join(map(str, ns[:-1])) + (" and " if len(ns) > 1 else "") + str(ns[-1])


def _play(c: Change) -> str:
    return {True: "changes play", False: "not a change in play", None: "may change play"}[c.play]


def _where(c: Change) -> str:
    return f"{c.section}: {c.name}" + (f" ({len(c.players)}p: {_counts(list(c.players))})"
                                       if c.players else "")


# ------------------------------------------------------------------ terminal
def terminal(r: Report) -> str:
    out = [f"rulespec diff: {r.old.label} -> {r.new.label}, "
           f"{_counts(list(r.players))} players", "", r.verdict(), ""]
    out += ["What changed in the rules", "-" * 25, r.rules.summary() + "."]
    for c in r.rules.changes:
        out.append(f"  {_where(c)} — {c.what} [{_play(c)}]")
        if c.old or c.new:
            out.append(f"      old: {c.old or '(none)'}")
            out.append(f"      new: {c.new or '(none)'}")
        if c.cite:
            out.append(f"      cites: {', '.join(c.cite)}")
        if c.note:
            out.append(f"      {c.note}")
    for w in r.rules.warnings:
        out.append(f"  WARNING: {w}")
    out += ["", "Where play parts", "-" * 16]
    if r.searched:
        out.append(r.searched)
    for p in r.partings:
        out += _parting_text(r, p)
    out += ["", "Properties (rulespec check), old beside new", "-" * 43]
    out += _properties_text(r)
    out += ["", "Play statistics", "-" * 15, r.statistics_note if r.statistics is None
            else r.statistics.to_text().rstrip(), "", f"({r.seconds:.1f} s)"]
    return "\n".join(out) + "\n"


def _parting_text(r: Report, p: Parting) -> list[str]:
    head = f"{p.players} players: "
    if not p.parted:
        word = {"proved_same": "the same (proved)", "bounded": "no parting game found",
                "none_in_games": "no parting game found"}.get(p.status, p.status)
        lines = [head + f"{word} — {p.detail}"]
        lines += [f"    note: {n}" for n in p.notes]
        return lines
    lines = [head + f"they part — {p.summary()} (found by {p.how}, {p.seconds:.1f} s)"]
    if p.actions:
        shown = list(p.actions[:-1] if p.mode == "state" else p.actions)
        lines.append(f"    the game from the deal: {' / '.join(shown) or '(no action)'}"
                     + (f", then {p.actions[-1]}" if p.mode == "state" else ""))
    for cmd, what in r.replay_commands(p.players):
        lines.append(f"    replay under {what}: {cmd}")
    lines.append(f"    where they part ({_step_words(p)}):")
    if p.situation:
        lines += ["      " + s for s in p.situation.splitlines()]
    rows = _side_rows(p)
    w = max([len(a) for a, _, _ in rows] + [10])
    wo = max([len(b) for _, b, _ in rows] + [len("old")])
    lines.append(f"      {'':<{w}}  {'old':<{wo}} | new")
    for name, o, n in rows:
        lines.append(f"      {name:<{w}}  {o:<{wo}} | {n}")
    lines += [f"    note: {n}" for n in p.notes]
    return lines


def _step_words(p: Parting) -> str:
    if p.mode == "deal":
        return "the deal"
    if p.mode == "legal":
        return f"player {p.player} to act after {len(p.actions)} action(s)"
    return f"action {p.step}, {p.actions[-1]} by player {p.player}"


def _side_rows(p: Parting) -> list[tuple[str, str, str]]:
    rows = []
    if p.mode == "legal":
        only_o = [a for a in p.old_legal if a not in p.new_legal]
        only_n = [a for a in p.new_legal if a not in p.old_legal]
        rows.append(("legal actions", ", ".join(p.old_legal) or "none",
                     ", ".join(p.new_legal) or "none"))
        rows.append(("only legal in", ", ".join(only_o) or "-", ", ".join(only_n) or "-"))
    for d in p.differences:
        rows.append((d.name, d.old, d.new))
    return rows


def _row_at(x: PropertyPair) -> str:
    """A row's player count, and its readings where they are not the default."""
    return str(x.players or "all") + (f" {x.variants}" if x.variants else "")


def _properties_text(r: Report) -> list[str]:
    if r.properties is None:
        return ["not run (--no-properties)"]
    changed = [x for x in r.properties if x.change not in UNCHANGED]
    undecided = sum(x.change == "undecided" for x in r.properties)
    lines = [f"{len(r.properties)} rows ({r.compared}); {len(changed)} changed"
             + (": " + ", ".join(sorted({x.change for x in changed})) if changed else "")
             + (f"; {undecided} undecided on a side, so not compared" if undecided else "")]
    header = ("players", "property", "old", "new", "change")
    table = [(_row_at(x), x.property, x.old_status, x.new_status,
              "" if x.change == "same" else x.change.upper()) for x in r.properties]
    widths = [max(len(h), *(len(t[i]) for t in table)) for i, h in enumerate(header)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    lines.append("  " + fmt.format(*header))
    lines.append("  " + fmt.format(*("-" * w for w in widths)))
    for t in table:
        lines.append("  " + fmt.format(*t).rstrip())
    for x in changed:
        lines.append(f"  {_row_at(x)}p {x.property}: {x.change} — old: {x.old_detail}")
        lines.append(f"      new: {x.new_detail}")
        if x.replay:
            lines.append(f"      replay: rulespec replay {x.replay}")
    return lines


# ------------------------------------------------------------------ markdown
_md = markdown_cell  # spec text in the Markdown report: in a table cell or on one line


def _code(text: str) -> str:
    """Spec text as code in a table cell (nothing, when there is none)."""
    return code_span(text, cell=True) if text else ""


def markdown(r: Report) -> str:
    out = [f"## rulespec diff: {code_span(r.old.label)} → {code_span(r.new.label)}", "",
           f"**{r.verdict()}** Players compared: {_counts(list(r.players))}.", "",
           "### What changed in the rules", "", r.rules.summary() + ".", ""]
    if r.rules.changes:
        out += ["| where | change | old | new | cites | play |", "|---|---|---|---|---|---|"]
        for c in r.rules.changes:
            out.append(f"| {_md(_where(c))} | {_md(c.what)} | {_code(c.old)} | {_code(c.new)} | "
                       f"{_md(', '.join(c.cite))} | {_md(_play(c))}"
                       + (f": {_md(c.note)}" if c.note else "") + " |")
        out.append("")
    for w in r.rules.warnings:
        out += [f"> **Warning:** {_md(w)}", ""]
    out += ["### Where play parts", ""]
    if r.searched:
        out += [_md(r.searched), ""]
    for p in r.partings:
        if not p.parted:
            out.append(f"- **{p.players} players:** {_md(p.status.replace('_', ' '))} — "
                       f"{_md(p.detail)}")
            out += [f"  - note: {_md(n)}" for n in p.notes]
            continue
        out.append(f"- **{p.players} players:** {_md(p.summary())} (found by {p.how})")
        if p.actions:
            out.append(f"  - game from the deal: {code_span(' / '.join(p.actions))}")
        for cmd, what in r.replay_commands(p.players):
            out.append(f"  - under {_md(what)}: {code_span(cmd)}")
        out += ["", f"  | {_md(_step_words(p))} | old | new |", "  |---|---|---|"]
        for name, o, n in _side_rows(p):
            out.append(f"  | {_md(name)} | {_md(o)} | {_md(n)} |")
        out += [f"  - note: {_md(n)}" for n in p.notes]
        out.append("")
    out += ["", "### Properties, old beside new", ""]
    if r.properties is None:
        out.append("Not run (`--no-properties`).")
    else:
        out += [f"Compared: {_md(r.compared)}.", "",
                "| players | property | old | new | change |", "|---|---|---|---|---|"]
        for x in r.properties:
            mark = "" if x.change == "same" else f"**{x.change}**"
            if x.replay:
                mark += f" ({_code(f'rulespec replay {x.replay}')})"
            out.append(f"| {_md(_row_at(x))} | {_md(x.property)} | {_md(x.old_status)} | "
                       f"{_md(x.new_status)} | {mark} |")
    if r.statistics is None:
        out += ["", "### Play statistics", "", _md(r.statistics_note), ""]
    else:
        out += ["", r.statistics.to_markdown().rstrip(), ""]
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ json
def as_json(r: Report) -> str:
    return json.dumps(r.to_json(), indent=1, default=str) + "\n"


# ------------------------------------------------------------------ html
_CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:70em;padding:0 1em;color:#222}
h1{font-size:1.4em}h2{font-size:1.15em;border-bottom:1px solid #ccc;padding-bottom:.2em}
table{border-collapse:collapse;margin:.5em 0 1em}td,th{border:1px solid #ccc;padding:.25em .5em;
vertical-align:top;text-align:left}th{background:#f3f3f3}code{background:#f6f6f6;padding:0 .2em}
.verdict{font-weight:bold;font-size:1.1em}.play{color:#a00}.same{color:#666}.warn{color:#a60}
.changed td{background:#fff6e0}.note{color:#555;font-size:.9em}
td.num{text-align:right;font-variant-numeric:tabular-nums}
tr.significant td{background:#fff3cd;font-weight:600}
.figures{display:flex;flex-wrap:wrap;gap:1em}.figures svg{max-width:100%;height:auto}
"""


def _h(text: Any) -> str:
    return html.escape(str(text), quote=True)


def html_page(r: Report) -> str:
    title = f"rulespec diff: {r.old.label} → {r.new.label}"
    out = ["<!DOCTYPE html>", f'<html lang="en"><head><meta charset="utf-8">{phone.VIEWPORT}',
           f"<title>{_h(title)}</title><style>{_CSS}{phone.CSS}</style></head><body>",
           f"<h1>{_h(title)}</h1>", f'<p class="verdict">{_h(r.verdict())}</p>',
           f"<p>Players compared: {_h(_counts(list(r.players)))}.</p>",
           "<h2>What changed in the rules</h2>", f"<p>{_h(r.rules.summary())}.</p>"]
    if r.rules.changes:
        out.append("<table><tr><th>where</th><th>change</th><th>old</th><th>new</th>"
                   "<th>cites</th><th>play</th></tr>")
        for c in r.rules.changes:
            cls = "play" if c.play else "same" if c.play is False else ""
            out.append(f"<tr><td>{_h(_where(c))}</td><td>{_h(c.what)}</td>"
                       f"<td><code>{_h(c.old)}</code></td><td><code>{_h(c.new)}</code></td>"
                       f"<td>{_h(', '.join(c.cite))}</td><td class=\"{cls}\">{_h(_play(c))}"
                       + (f'<div class="note">{_h(c.note)}</div>' if c.note else "")
                       + "</td></tr>")
        out.append("</table>")
    for w in r.rules.warnings:
        out.append(f'<p class="warn">Warning: {_h(w)}</p>')
    out.append("<h2>Where play parts</h2>")
    if r.searched:
        out.append(f"<p>{_h(r.searched)}</p>")
    for p in r.partings:
        out.append(f"<h3>{p.players} players</h3>")
        if not p.parted:
            out.append(f"<p>{_h(p.status.replace('_', ' '))}: {_h(p.detail)}</p>")
            out += [f'<p class="note">{_h(n)}</p>' for n in p.notes]
            continue
        out.append(f"<p>{_h(p.summary())} (found by {_h(p.how)}).</p>")
        if p.actions:
            out.append(f"<p>The game from the deal: <code>{_h(' / '.join(p.actions))}</code></p>")
        for cmd, what in r.replay_commands(p.players):
            out.append(f"<p>Under {_h(what)}: <code>{_h(cmd)}</code></p>")
        if p.situation:
            out.append(f"<pre>{_h(p.situation)}</pre>")
        out.append(f"<table><tr><th>{_h(_step_words(p))}</th><th>old</th><th>new</th></tr>")
        for name, o, n in _side_rows(p):
            out.append(f"<tr><td>{_h(name)}</td><td>{_h(o)}</td><td>{_h(n)}</td></tr>")
        out.append("</table>")
        out += [f'<p class="note">{_h(n)}</p>' for n in p.notes]
    out.append("<h2>Properties, old beside new</h2>")
    if r.properties is None:
        out.append("<p>Not run (<code>--no-properties</code>).</p>")
    else:
        out.append(f"<p>Compared: {_h(r.compared)}.</p>")
        out.append("<table><tr><th>players</th><th>property</th><th>old</th><th>new</th>"
                   "<th>change</th></tr>")
        for x in r.properties:
            cls = ' class="changed"' if x.change not in UNCHANGED else ""
            extra = f"<div><code>rulespec replay {_h(x.replay)}</code></div>" if x.replay else ""
            out.append(f"<tr{cls}><td>{_h(_row_at(x))}</td><td>{_h(x.property)}</td>"
                       f"<td title=\"{_h(x.old_detail)}\">{_h(x.old_status)}</td>"
                       f"<td title=\"{_h(x.new_detail)}\">{_h(x.new_status)}</td>"
                       f"<td>{_h('' if x.change == 'same' else x.change)}{extra}</td></tr>")
        out.append("</table>")
    if r.statistics is None:
        out += ["<h2>Play statistics</h2>", f"<p>{_h(r.statistics_note)}</p>"]
    else:  # tables and, with matplotlib, the figures: game length and win share by seat
        out.append(r.statistics.to_html_fragment())
    out += [f'<p class="note">{r.seconds:.1f} s</p>', "</body></html>"]
    return phone.scrolling_tables("\n".join(out)) + "\n"
