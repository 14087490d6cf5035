"""The table as a player sees it: a state of any game drawn as cards, piles and chips.

The FAQ shows a parting step, and the situation a clarification starts from, with this
instead of the engine's slots. Everything comes from the spec: its zones (shared, per
player, per member of an index set), its kinds (names, the attributes the spec declares
for cards and for tokens), its variables (their types, starting values and `note:`s).

- a shared pile shows how many cards it holds and the one on top; a bag (a hand, a pool)
  its kinds with their multiplicities, in the spec's order of kinds;
- each player's own zones and variables, and their score, make one row; each member of
  an index set another;
- a variable is shown only where it is not at its starting value (a constant `init`), or
  where it changed: `quit False` or `unpaid 0` tell a player nothing; a boolean reads
  `yes`/`no`, a player-typed one `player N`;
- an empty zone of a player or an index member is left out unless it changed;
- each entry is marked `changed` where it differs from the same entry of another state
  (the step before, or the other reading after the same action);
- `legend` gives the spec's notes of the zones and variables shown, in its own words.

`build` makes the `Table`; `markdown_lines` and `html` draw it. Spec text is escaped with
`properties.concrete.text_safety` (Markdown) and `html.escape` (HTML); a colour for a
card's drawing is taken only if it is a plain word (`_COLOUR_WORD`), so it cannot reach
outside the style it is put in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from html import escape
from pathlib import Path
from typing import Any

import attrs

from model import State, ir
from model.loader import _read_spec
from model.situation import member_names

from ..concrete.text_safety import markdown_text as _md


@attrs.frozen
class Entry:
    """One thing on the table: a zone or a variable of one owner (or the score)."""

    key: str  # what it is: the zone's or variable's name, or "score"
    label: str  # how it reads: the name with its underscores as spaces
    items: tuple[tuple[str, int], ...] = ()  # cards or tokens: kind names with counts
    text: str = ""  # a variable in plain words: "yes", "player 2", "return"
    pile: bool = False  # `items` is the top card of a pile
    count: str = ""  # how many the zone holds, where that is not plain: "12 cards"
    changed: bool = False
    seen: str = ""  # who sees a zone that not everyone does: "only its player sees it"

    def words(self) -> str:
        """The entry as plain text (what is compared between two states): `5 ×2, 6
        (3 cards)`, `4 on top (12 cards)`, `yes`, `empty`."""
        if self.text or not self.items:
            return self.text or "empty"
        kinds = ", ".join(f"{k} ×{n}" if n > 1 else k for k, n in self.items)
        return (f"{kinds} on top" if self.pile else kinds) + (
            f" ({self.count})" if self.count else "")


@attrs.frozen
class Row:
    """The entries of one owner: the table itself, a player, an index member."""

    key: str
    title: str
    entries: tuple[Entry, ...]
    to_act: bool = False


@attrs.frozen
class Legend:
    """What the spec says of its names: zone and variable notes, kinds' attributes."""

    notes: Mapping[str, str] = attrs.field(factory=dict)
    #: per item class ("cards", "tokens"): the attributes the spec declares for it
    attributes: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict)


@attrs.frozen
class Table:
    round: int
    to_act: int | None  # None: the game is over
    winners: tuple[int, ...]
    rows: tuple[Row, ...]
    legend: tuple[tuple[str, str], ...] = ()  # (name, note) of what is shown
    kinds: Mapping[str, ir.Kind] = attrs.field(factory=dict, eq=False)
    attributes: Mapping[str, tuple[str, ...]] = attrs.field(factory=dict, eq=False)

    @property
    def heading(self) -> str:
        """`Round 2, player 3 to act`, or `Round 3, the game is over, won by player 1`."""
        return f"Round {self.round}, " + (
            f"player {self.to_act} to act" if self.to_act is not None else
            "the game is over" + (f", won by {self.won_by}" if self.winners else ""))

    @property
    def won_by(self) -> str:
        names = [f"player {p}" for p in self.winners]
        return (" and ".join(names) if len(names) < 3
                else ", ".join(names[:-1]) + " and " + names[-1]) or "nobody"


def legend(spec: Path) -> Legend:
    """The notes of a spec's zones and variables and the attributes of its cards and
    tokens, as the spec file writes them."""
    data = _read_spec(Path(spec)).data
    notes: dict[str, str] = {}
    for section in ("zones", "vars"):
        for name, decl in (data.get(section) or {}).items():
            if isinstance(decl, Mapping) and isinstance(decl.get("note"), str):
                notes[str(name)] = decl["note"]
    attributes = {section: tuple(str(a) for a in ((data.get(section) or {}).get("attributes")
                                                  or {}))
                  for section in ("cards", "tokens")}
    return Legend(notes, attributes)


def build(state: State, other: State | None = None, spec_legend: Legend | None = None
          ) -> Table:
    """The table of `state`; with `other`, every entry that differs from the same entry
    of `other` is marked changed (and shown, even where it would be left out)."""
    spec_legend = spec_legend or Legend()
    mine = _rows(state)
    if other is not None:
        theirs = {(r.key, e.key): (e, shown) for r, entries in _rows(other)
                  for e, shown in entries}
        mine = [(r, [(attrs.evolve(e, changed=(r.key, e.key) not in theirs
                                   or theirs[(r.key, e.key)][0].words() != e.words()),
                      shown or theirs.get((r.key, e.key), (None, False))[1])
                     for e, shown in entries]) for r, entries in mine]
    rows = []
    for r, entries in mine:
        kept = tuple(e for e, shown in entries if shown or e.changed)
        if kept or r.to_act:
            rows.append(attrs.evolve(r, entries=kept))
    used = {e.key for r in rows for e in r.entries}
    notes = tuple((k, v) for k, v in spec_legend.notes.items() if k in used)
    d = state.to_dict()
    return Table(int(d["round"]), None if d["terminal"] else int(d["active"]),
                 tuple(sorted(state.winners)), tuple(rows), notes,
                 {k.name: k for k in state.game.ir.kinds}, spec_legend.attributes)


def differences(a: State, b: State, spec_legend: Legend | None = None
                ) -> list[tuple[str, str, str]]:
    """What a player sees differ between two tables (the same step under two readings):
    (what, as `a` has it, as `b` has it): first the round, who is to act (or that the
    game is over) and the winners, then entry by entry in the table's order (`pool`,
    `player 2's score`)."""
    ta, tb = build(a, b, spec_legend), build(b, a, spec_legend)
    out: list[tuple[str, str, str]] = []
    if ta.round != tb.round:
        out.append(("the round", str(ta.round), str(tb.round)))
    if ta.to_act != tb.to_act:
        to_act_a, to_act_b = (f"player {t.to_act}" if t.to_act is not None
                              else "nobody (the game is over)" for t in (ta, tb))
        out.append(("to act", to_act_a, to_act_b))
    if ta.winners != tb.winners and (ta.to_act is None or tb.to_act is None):
        out.append(("the winners", ta.won_by, tb.won_by))
    theirs = {(r.key, e.key): e for r in tb.rows for e in r.entries}
    entries = [(r, e) for r in ta.rows for e in r.entries if e.changed]
    for r, e in sorted(entries, key=lambda re_: re_[1].key != "score"):  # the scores first
        other = theirs.get((r.key, e.key))
        owner = "" if r.key == "table" else f"{r.title[:1].lower()}{r.title[1:]}'s "
        out.append((owner + e.label, e.words(), other.words() if other is not None else "empty"))
    return out


def label(name: str) -> str:
    """A spec name as it reads: its underscores as spaces."""
    return name.replace("_", " ")


Shown = list[tuple[Entry, bool]]  # every entry of a row, with whether it is shown unchanged


def _rows(state: State) -> list[tuple[Row, Shown]]:
    """Every row of the table, with every entry it could show, in the spec's order."""
    g, d = state.game.ir, state.to_dict()
    order = {k: i for i, k in enumerate(state.game.kind_names)}
    shared: Shown = [(_zone(z, d["zones"][z.name], order), True) for z in g.zones
                     if z.per is None]
    shared += [_var(v, d["vars"][v.name]) for v in g.vars if v.per is None]
    rows = [(Row("table", "On the table", ()), shared)]
    for ix in g.indices:
        for i, member in enumerate(member_names(g, ix.name)):
            rows.append((Row(f"{ix.name}:{member}", f"{label(ix.name)} {member}", ()),
                         _owned(g, d, ix.name, i, order)))
    scores = list(state.scores)
    for p in range(state.game.players):
        entries = _owned(g, d, "player", p, order)
        if p < len(scores):
            entries.append((Entry("score", "score", text=str(scores[p])), bool(scores[p])))
        rows.append((Row(f"player:{p}", f"Player {p}", (),
                         to_act=not d["terminal"] and d["active"] == p), entries))
    return rows


def _owned(g: ir.GameIR, d: dict[str, Any], per: str, i: int, order: Mapping[str, int]
           ) -> Shown:
    """The zones and variables of one player or index member (of the state `d`): an empty
    zone is left out, and so is a variable at its start."""
    out: Shown = [(e, bool(e.items)) for z in g.zones if z.per == per
                  for e in [_zone(z, d["zones"][z.name][i], order)]]
    return out + [_var(v, d["vars"][v.name][i]) for v in g.vars if v.per == per]


def _zone(decl: ir.ZoneDecl, value: Any, order: Mapping[str, int]) -> Entry:
    name, shown, seen = decl.name, label(decl.name), seen_by(decl)
    if isinstance(value, list):  # a pile, bottom first
        if not value:
            return Entry(name, shown, seen=seen)
        n = len(value)
        return Entry(name, shown, ((str(value[-1]), 1),), pile=True,
                     count=f"{n} {_noun(decl.holds, n)}", seen=seen)
    counts = sorted(((str(k), int(c)) for k, c in value.items() if c),
                    key=lambda kc: order.get(kc[0], len(order)))
    total = sum(c for _, c in counts)
    return Entry(name, shown, tuple(counts),
                 count=f"{total} {_noun(decl.holds, total)}" if len(counts) > 1 else "",
                 seen=seen)


def seen_by(decl: ir.ZoneDecl) -> str:
    """Who sees a zone, in a player's words, where not everyone does (its `sees:` and
    `top:`); the others see how many it holds."""
    owner = "its player" if decl.per == "player" else f"its {label(decl.per or 'owner')}"
    if decl.sees == "everyone":
        return ""
    whole = f"only {owner} sees it" if decl.sees == "owner" else "face down"
    top = {"everyone": "the top card face up", "owner": f"only {owner} sees the top card"}
    return whole + (f", {top[decl.top]}" if decl.top in top else "")


def _noun(holds: str, n: int) -> str:
    """`cards`/`tokens` as the spec names the item class, singular for one."""
    return holds[:-1] if n == 1 and holds.endswith("s") else holds


def _var(decl: ir.VarDecl, value: Any) -> tuple[Entry, bool]:
    """A variable in plain words, and whether it is shown unchanged: not where it is at
    its (constant) starting value."""
    at_start = isinstance(decl.init, ir.Const) and value == decl.init.value
    kind = decl.type.name
    if kind == "bool":
        text = "yes" if value else "no"
    elif kind == "player":
        text = f"player {value}"
    else:
        text = str(value)
    return Entry(decl.name, label(decl.name), text=text), not at_start


# ------------------------------------------------------------------ drawing it
def markdown_lines(t: Table) -> list[str]:
    """The table as Markdown list items (a line each: the heading, the shared zones, each
    index member and each player), changed entries in bold; then the notes."""
    lines = [f"- {_md(t.heading)}."]
    for r in t.rows:
        parts = [_md_entry(e) for e in r.entries] or ["nothing"]
        title = _md(r.title) + (" (to act)" if r.to_act else "")
        lines.append(f"- {title}: " + "; ".join(parts) + ".")
    if t.legend:
        lines.append("- What the names mean: " + "; ".join(
            f"{_md(label(k))}: {_md(v)}" for k, v in t.legend) + ".")
    return lines


def _md_entry(e: Entry) -> str:
    words = e.words()
    if e.seen:  # `6 ×2 (3 cards; only its player sees it)`
        words = f"{words[:-1]}; {e.seen})" if words.endswith(")") else f"{words} ({e.seen})"
    text = f"{_md(e.label)} {_md(words)}"
    return f"**{text}**" if e.changed else text


def html(t: Table) -> str:
    """The table as HTML: a row per owner, each card or token drawn as a small tile with
    its kind's name (and its attributes as a tooltip), changed entries of class
    `changed`."""
    heading, rows, notes = html_parts(t)
    return join_html(heading, rows, notes)


def html_parts(t: Table) -> tuple[str, list[tuple[str, list[list[str]]]], str]:
    """The pieces `html` joins (`join_html`): the heading paragraph, each row's `<dt>`
    with each of its entries as the pieces of its HTML (the name, each tile, the rest),
    and the paragraph of notes (empty where none is shown). The explorer (`explorer.py`,
    `explorer.js`) keeps each piece once and joins them in the page the same way."""
    rows = []
    for r in t.rows:
        cls = ' class="to-act"' if r.to_act else ""
        title = escape(r.title) + (" (to act)" if r.to_act else "")
        rows.append((f"<dt{cls}>{title}</dt>", [_entry_parts(t, e) for e in r.entries]))
    notes = ""
    if t.legend:
        notes = ('<p class="legend">' + "; ".join(
            f"<em>{escape(label(k))}</em>: {escape(v)}" for k, v in t.legend) + ".</p>")
    return f'<p class="heading">{escape(t.heading)}.</p>', rows, notes


def join_html(heading: str, rows: list[tuple[str, list[list[str]]]], notes: str) -> str:
    """The table's HTML from its pieces (`html_parts`); explorer.js's `tableHtml` joins
    them alike."""
    body = "".join(f"{dt}<dd>{''.join(''.join(e) for e in entries) or 'nothing'}</dd>"
                   for dt, entries in rows)
    return f'<div class="table">{heading}<dl>{body}</dl>{notes}</div>'


def _entry_parts(t: Table, e: Entry) -> list[str]:
    """One entry's HTML in pieces: its opening with its name, each tile (a kind and its
    `×n`), then the rest (`on top`, the count, the closing tag)."""
    cls = "entry changed" if e.changed else "entry"
    head = f'<span class="{cls}"><span class="name">{escape(e.label)}</span> '
    seen = f' <span class="seen">({escape(e.seen)})</span>' if e.seen else ""
    if e.text or not e.items:
        return [head + escape(e.words()) + seen + "</span>"]
    tail = (" on top" if e.pile else "") + (
        f' <span class="count">({escape(e.count)})</span>' if e.count else "")
    return [head, *(_tile(t, k, n) for k, n in e.items), tail + seen + "</span>"]


#: A colour for a drawing: a plain word (a CSS colour keyword, or a word CSS ignores).
_COLOUR_WORD = re.compile(r"[A-Za-z]{3,20}")
#: Attribute names that give a card's colour.
_COLOUR_ATTRIBUTES = ("colour", "color")


def _tile(t: Table, kind: str, n: int) -> str:
    """One kind's tile: its name, `×n`, its declared attributes as the tooltip, and a
    colour stripe where it has a colour attribute (else its name, for a token)."""
    k = t.kinds.get(kind)
    if k is None:
        return f'<span class="tile">{escape(kind)}</span>' + (f"<sub>×{n}</sub>" if n > 1 else "")
    declared = t.attributes.get(k.item_class, ())
    shown = [(a, k.attrs[a]) for a in declared if a in k.attrs]
    tip = ", ".join(f"{a} {_attr_text(v)}" for a, v in shown)
    colour = next((str(v) for a, v in shown if a in _COLOUR_ATTRIBUTES), None)
    if colour is None and k.item_class != "cards":
        colour = k.name
    style = f' style="--c:{colour}"' if colour and _COLOUR_WORD.fullmatch(colour) else ""
    shape = "tile card" if k.item_class == "cards" else "tile chip"
    title = f' title="{escape(tip)}"' if tip else ""
    return (f'<span class="{shape}"{style}{title}>{escape(kind)}</span>'
            + (f"<sub>×{n}</sub>" if n > 1 else ""))


def _attr_text(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "/".join(map(str, value))
    return str(value)
