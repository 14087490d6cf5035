"""Shortening a parting game: from a game after which two versions part, a shorter one.

The concrete searches (`parting`) find parting games by playing random or generated games;
the first found is seldom the shortest. Shortening treats a game as Hypothesis treats a
test case, as the choices that made it:

- **chance as a record**: the shuffles' outcomes in the order they happen (what a replay
  file's `shuffles` holds), and a seed for any shuffle the record cannot serve. A record,
  unlike a per-step seed, keeps the later deals when a stretch of play is cut out, so a
  round can be shortened without changing the rounds after it;
- **a choice per step**: which of the legal actions is taken, as an index into the old
  version's legal list (modulo its length) or an action's name (the first legal action of
  that name), and past the end of the list the first legal action.

A candidate is a smaller choice sequence — the game cut short, a block of choices deleted
or replaced by one action's name, a choice lowered, another seed — and it is kept when the
two versions, played in lock-step along it (`lockstep.lockstep`, the other legal actions
compared at every step as well), part at an earlier step than the best game so far. The
passes repeat until none shortens the game or the budget is spent.

The budget is a number of lock-step steps played (deterministic, the same on any machine);
`Shortened` says how many were spent and whether the passes ran to the end (then no single
candidate shortens the game further: a local minimum, not a proof of the shortest).
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from model import Game, ModelError, State
from model.chance import RecordingChance, ScriptedChance

from .lockstep import Chooser, Found, Names, legal_by_key, lockstep
from .toward import PAIRS, toward

#: Lock-step steps a shortening may play in all (and the most it may be given), and the
#: seeds it tries the choices with.
STEPS = 150_000
LIMIT = 10_000_000
SEEDS = 16
#: The shortest block a pass replaces by one action's name.
SCHEDULE_BLOCK = 4
#: A choice: an index into the legal actions (modulo their number), or an action's name
#: (the first legal action of that name, else the first legal action).
Choice = int | str
Record = list[list[int]]
#: The choices of a game, round by round: a round that ends sooner than its list starts
#: the next round's list, so that cutting one round short keeps the others' choices.
Rounds = list[list[Choice]]


@attrs.frozen
class Shortened:
    """The shortest game the passes reached: its seed and its record of shuffles (kind
    numbers of the old version, in the order they happen), what parts the versions, the
    steps played, and whether the passes ran to the end within the budget."""

    seed: int
    record: tuple[tuple[int, ...], ...]
    found: Found
    steps: int
    finished: bool

    def shuffles(self, old: Game) -> list[list[str]]:
        """The record as kind names (a replay file's `shuffles`)."""
        names = old.kind_names
        return [[names[k] for k in order] for order in self.record]


def cost(f: Found) -> int:
    """The step at which a game parts the versions (0: the deal)."""
    if f.mode == "deal":
        return 0
    return len(f.actions) + (1 if f.mode == "legal" else 0)


class _Pair:
    """Both versions played from one record of shuffles and one seed."""

    def __init__(self, old: Game, new: Game, names: Names | None) -> None:
        self.old, self.new, self.names = old, new, names
        index = {n: i for i, n in enumerate(new.kind_names)}
        self.to_new = [index.get(names.kind(n) if names else n) for n in old.kind_names]

    def chances(self, seed: int, record: Record) -> tuple[ScriptedChance, ScriptedChance]:
        mapped = [[self.to_new[k] for k in order] for order in record]
        if any(k is None for order in mapped for k in order):
            mapped = []  # the new version lacks a kind: it draws from the seed alone
        return (ScriptedChance(record, fallback=self.old.chance(seed, -2)),
                ScriptedChance(mapped, fallback=self.new.chance(seed, -2)))  # type: ignore[arg-type]

    def play(self, seed: int, record: Record, choose: Chooser | list[str], limit: int
             ) -> Found | None:
        chance_o, chance_n = self.chances(seed, record)
        return lockstep(self.old, self.new, chance_o, chance_n, choose, max_actions=limit,
                        names=self.names, seed=seed)

    def replayed(self, seed: int, record: Record | None, actions: tuple[str, ...]
                 ) -> _Replayed | None:
        """The old version along `actions` (from `record` and `seed`, or from the seed step
        by step where `record` is None: a seeded game); None if an action is not legal
        where it is taken."""
        old = self.old
        made: Record = []

        def recording(step: int) -> RecordingChance:
            inner = old.chance(seed, step) if scripted is None else scripted
            rec = RecordingChance(inner)
            rec.outcomes = made  # one list for every step
            return rec

        scripted = None if record is None else self.chances(seed, record)[0]
        rounds: Rounds = [[]]
        try:
            state = old.initial_state(seed, recording(-1))
            states = [state]
            for step, text in enumerate(actions):
                options = list(legal_by_key(state, self.names).values())
                texts = [str(a) for a in options]
                if text not in texts:
                    return None
                rounds[-1].append(texts.index(text))
                before = state.round
                state = state.apply(options[texts.index(text)], recording(step))
                states.append(state)
                if state.round != before:
                    rounds.append([])
        except ModelError:
            return None
        return _Replayed(made, rounds, states)

    def at_deal(self, seed: int, record: Record
                ) -> tuple[State, State, ScriptedChance, ScriptedChance] | None:
        """Both versions' deals from `record` and `seed`, and the chances that follow."""
        co, cn = self.chances(seed, record)
        try:
            return self.old.initial_state(seed, co), self.new.initial_state(seed, cn), co, cn
        except ModelError:
            return None


@attrs.frozen
class _Replayed:
    """The old version along a game: the shuffles it made (in order), the choice indices
    that take its actions (round by round), and its states from the deal on."""

    record: Record
    rounds: Rounds
    states: list[State]


def shorten(old: Game, new: Game, seed: int, found: Found, names: Names | None = None,
            steps: int = STEPS, seeds: int = SEEDS) -> Shortened | None:
    """The shortest parting game the passes reach from `found` (a seeded game from `seed`),
    within `steps` lock-step steps; None if the game does not part the versions when its
    shuffles are played from a record (a version shuffles a pile the other does not)."""
    pair = _Pair(old, new, names)
    start = pair.replayed(seed, None, found.actions)
    if start is None:
        return None
    again = pair.play(seed, start.record, [*found.actions, "(end)"], len(found.actions))
    if again is None or cost(again) != cost(found):
        return None
    best = _Best(seed, start.record, again, start.rounds, start.states)
    spent = [0]
    action_names = [names.actions.get(a.name, a.name) if names else a.name
                    for a in old.ir.actions]

    def attempt(candidate: Rounds, seed: int | None = None) -> bool:
        """Whether `candidate` parts the versions earlier (from the best game's seed and
        record, or from `seed` with no record); if so it becomes the best game."""
        limit = cost(best.found)
        if spent[0] + limit > steps:
            raise _Spent
        spent[0] += limit
        s, rec = (best.seed, best.record) if seed is None else (seed, [])
        got = pair.play(s, rec, _chooser(candidate), limit)
        return got is not None and cost(got) < limit and adopt(s, rec, got)

    def adopt(s: int, rec: Record, got: Found) -> bool:
        """`got` (played from seed `s` and record `rec`) becomes the best game, if the
        record of what the old version shuffled along it parts the versions there too."""
        kept = pair.replayed(s, rec, got.actions)
        assert kept is not None, "a game played in lock-step replays on the old version"
        confirmed = pair.play(s, kept.record, [*got.actions, "(end)"], len(got.actions))
        if confirmed is None or cost(confirmed) != cost(got):
            return False
        best.seed, best.record, best.found = s, kept.record, confirmed
        best.rounds, best.states = kept.rounds, kept.states
        return True

    def directed() -> None:
        """Best-first from the deal toward the state where the best game parts them, by
        the zones' contents, then by their sizes alone."""
        for by_size in (False, True):
            budget = min(PAIRS, steps - spent[0])
            start = pair.at_deal(best.seed, best.record)
            if budget <= 0 or start is None:
                return
            target = best.states[-2] if best.found.mode == "state" else best.states[-1]
            got, expanded = toward(old, new, start, target, cost(best.found), names, budget,
                                   by_size)
            spent[0] += expanded
            if got is not None and adopt(best.seed, best.record, got):
                return

    finished = True
    try:
        improved = True
        while improved:
            before = cost(best.found)
            # a round of the passes costs about 4 n^2 steps for a game of n actions: where
            # that is more than half the budget, the directed search goes first
            early = 4 * before * before > (steps - spent[0]) // 2
            if early:
                directed()
            r = 0
            while r < len(best.rounds):  # each round shortened, from the first on
                def current(r: int = r) -> list[Choice]:
                    return best.rounds[r] if r < len(best.rounds) else []

                def in_round(c: list[Choice], r: int = r) -> bool:
                    return attempt([*best.rounds[:r], c, *best.rounds[r + 1:]])

                _cut_short(current, in_round)
                _schedule(current, in_round, action_names)
                _delete_blocks(current, in_round)
                _lower(current, in_round)
                r += 1
            if not early:
                directed()
            for other in range(seeds):
                if other != best.seed:
                    attempt(best.rounds, other)
            improved = cost(best.found) < before
    except _Spent:
        finished = False
    return Shortened(best.seed, tuple(map(tuple, best.record)), best.found, spent[0], finished)


@attrs.define
class _Best:
    seed: int
    record: Record
    found: Found
    rounds: Rounds
    states: list[State]


class _Spent(Exception):
    """The budget of steps is spent."""


Attempt = Callable[[list[Choice]], bool]
Current = Callable[[], list[Choice]]


def _chooser(rounds: Rounds) -> Chooser:
    """Each step's choice: the round's list is the one of as many rounds in as the game
    has begun, indexed by the steps since that round began."""
    at = [-1, -1, 0]  # the round playing (its number), its place in `rounds`, its first step

    def choose(k: int, keys: list[tuple], state: State) -> int:
        if state.round != at[0]:
            at[:] = [state.round, at[1] + 1, k]
        r, i = at[1], k - at[2]
        c = rounds[r] if r < len(rounds) else []
        x = c[i] if i < len(c) else 0
        if isinstance(x, int):
            return x % len(keys)
        return next((j for j, key in enumerate(keys) if key[0] == x), 0)

    return choose


def _cut_short(current: Current, attempt: Attempt) -> None:
    """The game cut short, halving what is cut (the first legal action from there on)."""
    size = len(current()) // 2
    while size >= 1:
        c = current()
        if not attempt(c[:len(c) - size]):
            size //= 2


def _blocks(current: Current, attempt: Attempt, smallest: int,
            replace: Callable[[list[Choice], int, int], list[Choice]]) -> None:
    """`replace(choices, i, size)` tried on aligned blocks, halving sizes down to
    `smallest`, from the end back."""
    size = len(current()) // 2
    while size >= smallest:
        i = len(current()) - size
        while i >= 0:
            if attempt(replace(current(), i, size)):
                i = min(i, len(current()) - size)
            else:
                i -= size
        size //= 2


def _delete_blocks(current: Current, attempt: Attempt) -> None:
    """Blocks of choices deleted."""
    _blocks(current, attempt, 1, lambda c, i, size: c[:i] + c[i + size:])


def _schedule(current: Current, attempt: Attempt, names: list[str]) -> None:
    """Blocks of choices replaced by one action's name for every step: a stretch of play
    in which everybody takes that action while it is legal (the short schedules a round
    is played out by)."""
    for name in names:
        def replace(c: list[Choice], i: int, size: int, name: str = name) -> list[Choice]:
            return [*c[:i], *[name] * size, *c[i + size:]]

        _blocks(current, attempt, SCHEDULE_BLOCK, replace)


def _lower(current: Current, attempt: Attempt) -> None:
    """Each choice lowered to 0, else by one, from the end back."""
    i = len(current()) - 1
    while i >= 0:
        c = current()
        if i < len(c) and isinstance(c[i], int) and c[i]:
            x = c[i]
            if not attempt([*c[:i], 0, *c[i + 1:]]) and isinstance(x, int) and x > 1:
                attempt([*c[:i], x - 1, *c[i + 1:]])
        i -= 1
