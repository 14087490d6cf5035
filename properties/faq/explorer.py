"""The rules explorer: every parting game of a game's FAQ stepped through in the browser,
under the ruling and the other reading side by side, from the deal to the step where they
part.

`page(faq)` gives the body of `<game>-explorer.html` (the site wraps it, `site.py`): a
list of the parting games, the explorer's controls, the data as JSON and the script that
shows it (`explorer.js`; its style is `explorer.css`). Nothing is fetched: the page runs
from `file://`.

Nothing is taken from the FAQ's own account of a parting: each stored replay file
(`Store.replay`, so only the store's own files) is replayed on the model once under each
reading (`partings.replay_states`), and every position of the game — the deal, then the
state after each action — gives, per reading, the table as a player sees it
(`table.html_parts`, the drawing of the FAQ), the legal actions there and the round-end
conditions the action taken there made true. The step where they part is the first
position where the readings allow other actions (they part there), or where their states
differ (the action before it parted them; at the deal, the deals differ).

A table is highlighted against the step before, except where the readings' states differ:
there each reading's table is highlighted against the other's. Every piece of HTML (a
heading, a row's title, the start of an entry, a card's tile, the notes) is kept once in
`pieces`, every table once in `tables`, every action once in `actions` and every list of
legal actions (indices into `actions`) once in `legals`, so that a game of a few hundred
steps stays a page of a few hundred kilobytes. The JSON is escaped for a `<script>` element
(`script_json`): `<`, `>` and `&` as `\\u003c`, `\\u003e`, `\\u0026`, so no text of the
spec can close the element; the script puts spec text into the page as text, and only the
pieces (escaped by `table.py`) as HTML.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from html import escape
from pathlib import Path
from typing import Any

from model import ModelError, SpecError, State

from ..compare.lockstep import observe
from ..compare.lockstep import seen as visible
from . import commands, table
from .entries import GameFaq, Parting, Question
from .markdown import found_by, replay_commands
from .partings import Store, replay_states

_HERE = Path(__file__).parent
SCRIPT = (_HERE / "explorer.js").read_text(encoding="utf-8")
STYLE = (_HERE / "explorer.css").read_text(encoding="utf-8")


def page_name(faq: GameFaq) -> str:
    """The explorer's file in the site."""
    return f"{faq.id}-explorer.html"


def anchor(q: Question, p: Parting) -> str:
    """The id (and `#` target) of one parting game in the explorer."""
    return f"x-{q.id}={p.reading}"


def explorable(faq: GameFaq) -> list[tuple[Question, Parting]]:
    """The readings with a stored parting game to step through."""
    if faq.store is None:
        return []
    return [(q, p) for q in faq.questions for p in q.partings
            if p.parted and p.replay is not None]


def script_json(value: Any) -> str:
    """`value` as JSON that is safe inside `<script type="application/json">`: no `<`, `>`
    or `&` (written `\\u003c`, `\\u003e`, `\\u0026`; JSON reads them back alike), nor the
    line separators U+2028 and U+2029."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                    ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text


class _Pool:
    """Values kept once each (by their JSON), referred to by index."""

    def __init__(self) -> None:
        self.values: list[Any] = []
        self._index: dict[str, int] = {}

    def add(self, value: Any) -> int:
        key = value if isinstance(value, str) else "\0" + json.dumps(value, separators=(",", ":"))
        if key not in self._index:
            self._index[key] = len(self.values)
            self.values.append(value)
        return self._index[key]


class _Data:
    """The explorer's data for one game, built parting game by parting game."""

    def __init__(self, faq: GameFaq) -> None:
        self.faq = faq
        self.legend = table.legend(faq.spec)
        self.store = Store(faq.store, faq.spec.stem, faq.spec) if faq.store else None
        self.pieces, self.tables, self.legals, self.actions = _Pool(), _Pool(), _Pool(), _Pool()

    def table(self, state: State, other: State | None) -> int:
        heading, rows, notes = table.html_parts(table.build(state, other, self.legend))
        add = self.pieces.add
        return self.tables.add([add(heading), add(notes) if notes else -1,
                                [[add(dt), [[add(x) for x in e] for e in entries]]
                                 for dt, entries in rows]])

    def game(self, q: Question, p: Parting) -> dict[str, Any] | None:
        """One parting game, replayed under both readings; None where it does not replay."""
        assert self.store is not None and p.replay is not None
        try:
            data = self.store.replay(p.replay)
            both = [replay_states(data, {q.id: v}) for v in (q.ruling, p.reading)]
        except (ModelError, SpecError):  # the FAQ read it back; a file changed since
            return None
        (ruling, ruling_ends), (other, other_ends) = both
        if len(ruling) != len(other):
            return None
        seen = [[observe(s) for s in states] for states in (ruling, other)]
        legal = [[[str(a) for a in s.legal_actions()] for s in states]
                 for states in (ruling, other)]
        part, kind = _parting_position([[visible(s) for s in states]
                                        for states in (ruling, other)], legal)
        actions = [str(a) for a in data["actions"]]
        steps = []
        for k in range(len(ruling)):
            apart = seen[0][k] != seen[1][k]
            columns: list[list[Any]] = []
            for c, (states, ends) in enumerate(((ruling, ruling_ends), (other, other_ends))):
                if apart:
                    shown = self.table(states[k], (other, ruling)[c][k])
                elif c == 1 and (k == 0 or seen[0][k - 1] == seen[1][k - 1]):
                    shown = int(columns[0][0])  # the same state after the same step: the same table
                else:
                    shown = self.table(states[k], states[k - 1] if k else None)
                ended = list(ends[k]) if k < len(actions) else []
                state = states[k]
                columns.append([shown, self.legals.add([self.actions.add(a) for a in legal[c][k]]), ended,
                                None if state.is_terminal else state.active_player])
            steps.append({"label": _label(k, len(actions), kind),
                          "player": ruling[k].active_player if not ruling[k].is_terminal
                          else None,
                          "action": actions[k] if k < len(actions) else None,
                          "apart": apart, "columns": columns})
        return self._about(q, p, data, kind, part, steps, ruling[-1], other[-1])

    def _about(self, q: Question, p: Parting, data: dict[str, Any], kind: str, part: int,
               steps: list[dict[str, Any]], ruling: State, other: State) -> dict[str, Any]:
        faq = self.faq
        readings = {v.name: v.reading for v in q.readings}
        situation = data.get("situation") is not None  # a replay may start from one
        seed = None if "shuffles" in data or situation else int(data.get("seed", 0))
        players = int(data["players"])
        play = commands.play(faq.spec_argument, players, seed) if seed is not None else None
        replays = list(replay_commands(faq, q, p))
        found = [(w, a, b) for w, a, b in table.differences(ruling, other, self.legend)]
        return {"id": anchor(q, p), "question": q.question, "kind": q.kind_words,
                "ruling": q.ruling, "reading": p.reading,
                "texts": [readings.get(q.ruling, ""), readings.get(p.reading, "")],
                "players": players, "seed": seed, "play": play, "replays": replays,
                "situation": situation,
                "found_by": found_by(p.how), "part": part, "parts_by": kind,
                "differences": found if kind != "legal" else [], "steps": steps,
                "faq": f"{faq.id}.html#q-{q.id}"}


def _parting_position(seen: list[list[dict]], legal: list[list[list[str]]]) -> tuple[int, str]:
    """Where the two readings part, and how: `deal` (they deal differently), `legal` (other
    legal actions at that position) or `outcome` (the action taken there leads to states
    a player tells apart: `seen` gives what some player sees of each). A game that never
    parts (it cannot be stored so) is marked at its end."""
    for k in range(len(seen[0])):
        if seen[0][k] != seen[1][k]:
            return (0, "deal") if k == 0 else (k - 1, "outcome")
        if set(legal[0][k]) != set(legal[1][k]):
            return k, "legal"
    return len(seen[0]) - 1, "legal"


def _label(k: int, actions: int, kind: str) -> str:
    """Position `k` as the FAQ numbers it: step k+1 is the (k+1)-th action, taken at the
    table after k actions; the deal is step 0 where the readings deal differently; the
    tables after the parting action are `After step N`."""
    if kind == "deal":
        return "The deal"
    if k == actions and kind == "outcome":
        return f"After step {actions}"
    return f"Step {k + 1}" + (" (the deal)" if k == 0 else "")


def page(faq: GameFaq) -> tuple[str, list[str], set[str]]:
    """The explorer of one game: its title, its body (the site adds the page around it and
    the style `STYLE`) and the parting games it shows (their `anchor`s)."""
    found = _Data(faq)
    games = []
    for q, p in explorable(faq):
        g = found.game(q, p)
        if g is not None:
            games.append(g)
    data = {"title": faq.title, "partings": games, "pieces": found.pieces.values,
            "tables": found.tables.values, "legals": found.legals.values,
            "actions": found.actions.values}
    title = f"{faq.title}: rules explorer"
    return title, list(_body(faq, title, games, data)), {g["id"] for g in games}


def _body(faq: GameFaq, title: str, games: list[dict[str, Any]], data: dict[str, Any]
          ) -> Iterator[str]:
    yield f"<h1>{escape(title)}</h1>"
    yield (f'<p class="muted">Each game where a reading of the <a href="{escape(faq.id)}.html">'
           "clarified rules</a> parts from the ruling, stepped through under both readings "
           "side by side, from the deal to the step where they part: the table as a player "
           "sees it, the legal actions under each reading (those only one allows are "
           "marked) and the action taken. Each game is its stored replay file played on the "
           "model under each reading.</p>")
    yield ('<noscript><p>The explorer needs JavaScript; <a href="'
           f'{escape(faq.id)}.html">the FAQ page</a> shows every parting step without it.</p>'
           "</noscript>")
    if not games:
        yield "<p>No parting game is stored for this game.</p>"
        return
    yield '<div id="explorer" hidden>'
    yield ('<p class="pick"><label for="pick">Parting game</label> <select id="pick">'
           + "".join(f'<option value="{escape(g["id"])}">{escape(g["ruling"])} / '
                     f'{escape(g["reading"])}: {escape(g["question"])}</option>' for g in games)
           + "</select></p>")
    yield ('<div class="about"><h2 id="question"></h2><p id="readings"></p>'
           '<p id="start" class="muted"></p></div>')
    yield ('<div class="controls" role="group" aria-label="steps">'
           '<button type="button" id="first" title="the deal (Home)">◀◀ Deal</button>'
           '<button type="button" id="prev" title="the step before (←)">◀ Back</button>'
           '<button type="button" id="next" title="the next step (→)">Next ▶</button>'
           '<button type="button" id="part" title="the step where they part (P)">'
           "⚑ Where they part</button>"
           '<input type="range" id="slider" min="0" value="0" aria-label="step">'
           '<span id="where" aria-live="polite"></span></div>')
    yield '<p id="marker" class="marker" hidden></p>'
    yield '<div id="differences" hidden></div>'
    # the legal actions side by side at every width, then the tables (one above the other
    # on a phone)
    yield '<div class="columns both">' + "".join(
        f'<section class="column" id="col-{c}"><h3 class="reading"></h3>'
        '<p class="reading-text muted"></p><p class="legal-title"></p><ul class="legal"></ul>'
        '<p class="took"></p></section>' for c in (0, 1)) + "</div>"
    yield '<div class="columns tables">' + "".join(
        f'<section class="column" id="table-{c}"><h3 class="reading"></h3>'
        '<div class="shown"></div></section>' for c in (0, 1)) + "</div>"
    yield ('<details class="timeline"><summary>Every step of this game</summary>'
           '<ol id="timeline"></ol></details>')
    yield "</div>"
    yield "<h2>The parting games</h2><ul class=\"partings\">"
    for g in games:
        n, where = len(g["steps"]), g["steps"][g["part"]]["label"]
        yield (f'<li id="{escape(g["id"])}"><a href="#{escape(g["id"])}">'
               f'{escape(g["question"])}</a> <code>{escape(g["ruling"])}</code> against '
               f'<code>{escape(g["reading"])}</code>, {g["players"]} players: they part at '
               f'{escape(where[:1].lower() + where[1:])} ({n} position{"s" if n != 1 else ""})'
               "</li>")
    yield "</ul>"
    yield f'<script type="application/json" id="explorer-data">{script_json(data)}</script>'
    yield f"<script>{SCRIPT}</script>"
