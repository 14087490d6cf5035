"""The FAQ of one spec as data, for the Markdown and HTML renderers.

`build` reads the spec once: every ambiguity, gap, conflict, assumption and option
becomes a `Question` with its readings, the ruling and, for each other reading, a
`Parting` — where that reading parts from the ruling, or what was shown when it does
not — and every citation is kept for the annotated rulebook.
"""

from __future__ import annotations

from pathlib import Path

import attrs

import model
from model import SpecError, Where, ir
from model.loader import _read_spec, any_player_count, find_rulebook, rulebook_folders
from model.source import read_text

from ..concrete.clarify import read_situation, situation_path
from .citations import Citation, citations
from .search import Divergence, example_divergence, find_divergence

KIND_WORDS = {"ambiguity": "Ambiguity (two readings of the text)",
              "gap": "Gap (the text is silent)",
              "conflict": "Conflict (the sources disagree)",
              "assumption": "Assumption (a fact from outside the text)",
              "option": "Option (a choice the rules offer)"}


@attrs.frozen
class Step:
    """One action of an example game: who took it and what it was."""

    player: int
    action: str


@attrs.frozen
class Parting:
    """Where `reading` parts from the ruling, or what was shown when it does not.

    `status`: `parted` (an example follows), `different_components` (the readings
    set up different cards or tokens), or `not_found` (`shown` says what was searched).
    For `parted`: the game from the deal (`seed`) or a situation file, the actions
    before the parting step, the state there, the legal actions each reading allows,
    and — when those agree — the action whose outcome differs and how.
    """

    reading: str
    status: str
    shown: str
    players: int | None = None
    seed: int | None = None
    situation: str | None = None
    steps: tuple[Step, ...] = ()
    active: int | None = None
    state: dict = attrs.field(factory=dict, eq=False)
    ruling_legal: tuple[str, ...] = ()
    reading_legal: tuple[str, ...] = ()
    action: str | None = None
    differences: tuple[tuple[str, str, str], ...] = ()  # (what, under the ruling, this reading)


@attrs.frozen
class Question:
    id: str
    kind: str
    question: str
    cite: tuple[str, ...]
    readings: tuple[ir.Variant, ...]
    ruling: str
    rationale: str
    partings: tuple[Parting, ...]

    @property
    def kind_words(self) -> str:
        return KIND_WORDS.get(self.kind, self.kind)


@attrs.frozen
class Answered:
    """A clarification: a question the rulebooks do answer, with its checked example
    (the situation's players and state, and what the model does there)."""

    clarification: ir.Clarification
    situation: Path
    players: int
    state: dict = attrs.field(eq=False)

    @property
    def id(self) -> str:
        return self.clarification.id


@attrs.frozen
class GameFaq:
    id: str
    title: str
    spec: Path
    sources: tuple[str, ...]
    players: int
    questions: tuple[Question, ...]
    citations: tuple[Citation, ...]
    answered: tuple[Answered, ...] = ()

    def rulebook(self, source: str) -> list[str]:
        """The lines of one source (as `grep -n` numbers them)."""
        book = find_rulebook(str(self.spec), source)
        if book is not None:
            return read_text(book).splitlines()
        raise SpecError(Where(str(self.spec)), f"no rulebook {source}.txt in "
                        + ", ".join(map(str, rulebook_folders(str(self.spec)))))


def build(spec: str, *, players: int | None = None, games: int = 40) -> GameFaq:
    """The FAQ of `spec` (a path or a game id), its examples at `players` (default 4, or the
    nearest count the game allows)."""
    path = model.resolve_spec_path(spec)
    n = players if players is not None else _default_players(path)
    g = model.load_ir(path, players=n)
    questions = tuple(
        Question(a.id, a.kind, a.question, a.cite, a.variants, a.default, a.rationale,
                 tuple(_parting(path, a, v.name, n, games) for v in a.variants
                       if v.name != a.default))
        for a in g.ambiguities)
    return GameFaq(g.id, g.title, path, g.sources, n, questions,
                   tuple(citations(_read_spec(path))),
                   tuple(_answered(path, c) for c in g.clarifications))


def _answered(path: Path, c: ir.Clarification) -> Answered:
    situation = situation_path(path, c.example)
    data = read_situation(situation)
    return Answered(c, situation, int(data["players"]), data)


def _default_players(path: Path) -> int:
    g = model.load_ir(path, players=any_player_count(path))
    return max(g.min_players, min(4, g.max_players))


def _parting(path: Path, amb: ir.Ambiguity, reading: str, players: int, games: int) -> Parting:
    found = example_divergence(path, amb, reading) if amb.example else None
    if found is None:
        found = find_divergence(str(path), players, amb, reading, games=games)
    if found is None:
        return Parting(reading, "not_found", f"no situation where they part was found in "
                                             f"{games} random games")
    if found.seed is None and found.situation is None:
        return Parting(reading, "different_components", found.detail)
    return _from_divergence(path, amb, found, found.players or players)


def _from_divergence(path: Path, amb: ir.Ambiguity, d: Divergence, players: int) -> Parting:
    """Replays a divergence under the ruling to recover who acted, and the state there."""
    game = model.load(str(path), players=players)
    other = model.load(str(path), players=players, variants={amb.id: d.variant})
    if d.situation is not None:
        from model.source import read_yaml

        data = read_yaml(d.situation).data
        state = game.state_from_dict(data.get("situation", data), d.situation)
    else:
        state = game.initial_state(d.seed or 0)
    steps = []
    for text in d.actions:
        steps.append(Step(state.active_player, text))
        state = state.apply(game.parse_action(text))
    action, differences = None, ()
    if d.ruling_legal == d.variant_legal and d.detail.startswith("after "):
        action = d.detail[len("after "):].split(":", 1)[0]
        # Both sides from the same written-down situation, so both draw the same chance.
        mine = game.state_from_dict(state.to_dict()).apply(game.parse_action(action)).to_dict()
        twin = other.state_from_dict(state.to_dict(), checked=False)  # the ruling's state
        theirs = twin.apply(other.parse_action(action)).to_dict()
        differences = tuple(_differences(game, mine, theirs))
    return Parting(d.variant, "parted", "", players, d.seed, d.situation, tuple(steps),
                   state.active_player, state.to_dict(), d.ruling_legal, d.variant_legal,
                   action, differences)


def _differences(game: model.Game, a: dict, b: dict) -> list[tuple[str, str, str]]:
    """What differs between two situations, per player or index where a family differs."""
    families = {z.name for z in game.ir.zones if z.per} | {v.name for v in game.ir.vars if v.per}
    out = []
    for key in ("active", "round", "terminal"):
        if a[key] != b[key]:
            out.append((key, str(a[key]), str(b[key])))
    for section in ("zones", "vars"):
        for name, value in a[section].items():
            other = b[section][name]
            if value == other:
                continue
            if name in families and len(value) == len(other):
                out += [(f"{name}[{i}]", str(x), str(y))
                        for i, (x, y) in enumerate(zip(value, other, strict=True)) if x != y]
            else:
                out.append((name, str(value), str(other)))
    return out
