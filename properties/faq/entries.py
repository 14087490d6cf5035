"""The FAQ of one spec as data, for the Markdown and HTML renderers.

`build` reads the spec once: every ambiguity, gap, conflict, assumption and option
becomes a `Question` with its readings, the ruling and, for each other reading, a
`Parting` (`partings.py`) — where that reading parts from the ruling, or what was shown
when it does not — and every citation is kept for the annotated rulebook.
"""

from __future__ import annotations

from pathlib import Path

import attrs

import model
from model import SpecError, State, Where, ir
from model.loader import _read_spec, any_player_count
from model.rulebooks import find_rulebook, rulebook_folders
from model.source import read_text

from ..concrete.clarify import example_problems, read_situation, situation_path
from . import commands, effects, partings
from .citations import Citation, citations
from .partings import Parting, Say, Search, Store

KIND_WORDS = {"ambiguity": "Ambiguity (two readings of the text)",
              "gap": "Gap (the text is silent)",
              "conflict": "Conflict (the sources disagree)",
              "assumption": "Assumption (a fact from outside the text)",
              "option": "Option (a choice the rules offer)"}


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
    #: the situation as the model loads it, then the state after each step of the example
    #: the model can take (for drawing the table, `table.py`)
    states: tuple[State, ...] = attrs.field(default=(), eq=False)

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
    store: Path | None = None  # where the parting games' replay files are
    #: the `rulespec faq` run that writes this FAQ again (`commands.faq`)
    command: str = ""

    @property
    def spec_argument(self) -> str:
        """How the commands the FAQ prints name its spec: the game id, or the path."""
        return commands.spec_argument(self.spec)

    @property
    def spec_name(self) -> str:
        """The spec's file as the pages name it: `spec/<file>` for a spec of the package's
        spec/, else its path (relative to the current folder where it lies inside it)."""
        if self.spec_argument == self.spec.stem:
            return f"spec/{self.spec.name}"
        try:
            return str(self.spec.resolve().relative_to(Path.cwd().resolve()))
        except (OSError, ValueError):
            return str(self.spec)

    def rulebook(self, source: str) -> list[str]:
        """The lines of one source (as `grep -n` numbers them)."""
        book = find_rulebook(str(self.spec), source)
        if book is not None:
            return read_text(book).splitlines()
        raise SpecError(Where(str(self.spec)), f"no rulebook {source}.txt in "
                        + ", ".join(map(str, rulebook_folders(str(self.spec)))))


def build(spec: str, *, players: int | None = None, search: Search | None = None,
          store: Path | None = None, stored_only: bool = False, say: Say | None = None,
          command: str | None = None) -> GameFaq:
    """The FAQ of `spec` (a path or a game id), its examples at `players` (default 4, or the
    nearest count the game allows) where a reading parts there, else at another count.

    With `store`, results stored there for the same rules are read back (their parting
    games replayed) and the rest searched and stored; with `stored_only`, a reading with no
    current stored result is an error instead (for tests of the published FAQ).
    `command`: the `rulespec faq` run the FAQ says it was written by (default: the one
    that prints this FAQ, `commands.faq`)."""
    path = model.resolve_spec_path(spec)
    n = players if players is not None else _default_players(path)
    g = model.load_ir(path, players=n)
    how = search or Search()
    kept = Store(store, path.stem, path) if store is not None else None
    tell = say or (lambda _m: None)
    named = commands.spec_argument(path)
    # the examples first: a wrong one stops the FAQ before minutes of searching
    answered = tuple(_answered(path, c, i) for i, c in enumerate(g.clarifications))
    questions = []
    for a in g.ambiguities:
        others = [v.name for v in a.variants if v.name != a.default]
        found = []
        for reading in others:
            tell(f"{g.id}: {a.id}={reading}")
            shown = _parting(path, g, a, reading, n, how, kept, stored_only, tell)
            found.append(attrs.evolve(shown, properties=effects.property_changes(g, a, reading, named)))
        questions.append(Question(a.id, a.kind, a.question, a.cite, a.variants, a.default,
                                  a.rationale, tuple(found)))
    if kept is not None and not stored_only:
        kept.save()
    return GameFaq(g.id, g.title, path, g.sources, n, tuple(questions),
                   tuple(citations(_read_spec(path))),
                   answered,
                   store, command or commands.faq([named], store=store, players=players,
                                                  search=search))


def _answered(path: Path, c: ir.Clarification, index: int) -> Answered:
    """A clarification with its example played; an example the model does not bear out is
    an error that names it in the spec (the FAQ would publish a wrong answer), whichever
    folder the spec is in (the test suite checks those of spec/ too)."""
    problems = example_problems(path, c)
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise _read_spec(path).error(
            ("clarifications", index, "example"),
            f"the example of clarification {c.id} does not hold on the model, so the FAQ "
            f"is not written: {'; '.join(problems[:3])}{more}")
    situation = situation_path(path, c.example)
    data = read_situation(situation)
    return Answered(c, situation, int(data["players"]), data,
                    tuple(_example_states(path, c.example, situation, data)))


def _example_states(path: Path, e: ir.Example, situation: Path, data: dict
                    ) -> list[State]:
    """The situation of an example as the model loads it, then the state after each of its
    steps (`_answered` has checked that the model takes them all)."""
    game = model.load(str(path), players=int(data["players"]), variants=e.variants)
    states = [game.state_from_dict(data, str(situation))]
    for step in e.steps:
        states.append(states[-1].apply(game.parse_action(step.do)))
    return states


def _default_players(path: Path) -> int:
    g = model.load_ir(path, players=any_player_count(path))
    return max(g.min_players, min(4, g.max_players))


def _parting(path: Path, g: ir.GameIR, amb: ir.Ambiguity, reading: str, players: int,
             how: Search, store: Store | None, stored_only: bool, say: Say) -> Parting:
    """A reading's parting game: stored, else searched (and stored)."""
    counts = partings.counts_to_try(g, players)
    key = partings.digest(path, amb, reading, counts)
    entry = store.get(amb, reading, key) if store is not None else None
    if entry is not None and entry.get("status") not in ("parted", "proved_same") \
            and not stored_only and (entry.get("search") != how.search()
                                     or entry.get("second_try") != how.second_try()):
        entry = None  # left undecided by another search: search again
    if entry is not None and store is not None:  # (an entry is read from the store)
        shown = _stored(store, entry, amb, reading)
        if shown is not None and shown.parted and not stored_only \
                and entry.get("shortened") != how.shorten_steps:
            shown, entry = _shorten_stored(path, amb, reading, shown, entry, how, store, say)
        if shown is not None:
            stats = entry.get("statistics")
            if (shown.parted and not stored_only and how.statistics_games
                    and (not isinstance(stats, dict) or stats.get("games") != how.statistics_games
                         or shown.effect is None or not shown.effect.current)):
                effect = _effect(path, amb, reading, shown, how, say)
                entry["statistics"] = effect.to_data()
                shown = attrs.evolve(shown, effect=effect)
            store.keep(amb, reading)
            return shown
    if stored_only:
        raise SpecError(Where(str(path)), f"no stored parting game for {amb.id}={reading} "
                        "matches the rules (the spec changed since the FAQ was published): run "
                        f"rulespec faq {path.stem} --partings {store.folder if store else 'DIR'}")
    found, tried = partings.search(path, amb, reading, counts, how, say)
    if found is not None:
        data = partings.replay_data(path, amb, found)
        name = f"{path.stem}-{amb.id}-{reading}.yaml"
        shown = partings.from_replay(data, name, amb, reading, found.how)
        if shown is not None:
            played = _effect(path, amb, reading, shown, how, say) if how.statistics_games \
                else None
            if store is not None:
                entry = {"digest": key, "status": "parted", "how": found.how,
                         "shortened": how.shorten_steps}
                if played is not None:
                    entry["statistics"] = played.to_data()
                store.put(amb, reading, entry, data)
            return attrs.evolve(shown, effect=played)
        tried.append(attrs.evolve(found, status="none_in_games",
                                  detail=f"{found.detail}, but its game does not replay"))
    verdict = partings.not_parted(reading, tried)
    if store is not None:
        store.put(amb, reading, {"digest": key, "status": verdict.status, "how": verdict.how,
                                 "shown": verdict.shown, "search": how.search(),
                                 "second_try": how.second_try()}, None)
    return verdict


def _shorten_stored(path: Path, amb: ir.Ambiguity, reading: str, shown: Parting, entry: dict,
                    how: Search, store: Store, say: Say) -> tuple[Parting, dict]:
    """A stored parting game shortened (once for each budget of `how`), its store entry
    and replay file rewritten where a shorter game is found."""
    name = str(entry.get("replay", ""))
    before = store.replay(name)
    found = partings.shortened(path, amb, reading, before, shown.how, how.shorten_steps, say)
    entry = {**entry, "shortened": how.shorten_steps}
    if found is not None:
        data = partings.replay_data(path, amb, found)
        again = partings.from_replay(data, name, amb, reading, found.how)
        if again is not None and len(data["actions"]) < len(before["actions"]):
            entry["how"] = found.how
            store.put(amb, reading, entry, data)
            return attrs.evolve(again, effect=shown.effect), store.entries[store.key(amb, reading)]
    store.entries[store.key(amb, reading)] = entry
    return shown, entry


def _effect(path: Path, amb: ir.Ambiguity, reading: str, shown: Parting, how: Search,
            say: Say) -> effects.Effect:
    """The play statistics of both readings where they part."""
    n = shown.players or 2
    say(f"{amb.id}={reading}: {how.statistics_games} games per policy on both readings, "
        f"{n} players")
    return effects.statistics_effect(path, amb, reading, n, how.statistics_games)


def _stored(store: Store, entry: dict, amb: ir.Ambiguity, reading: str) -> Parting | None:
    """A stored result; a stored parting game only if it still parts the readings."""
    if entry.get("status") != "parted":
        return Parting(reading, str(entry.get("status")), str(entry.get("shown", "")),
                       str(entry.get("how", "")))
    name = str(entry.get("replay", ""))
    try:
        data = store.replay(name)
    except SpecError:
        return None
    shown = partings.from_replay(data, name, amb, reading, str(entry.get("how", "")))
    stats = entry.get("statistics")
    if shown is None or not isinstance(stats, dict):
        return shown
    return attrs.evolve(shown, effect=effects.Effect.from_data(stats))
