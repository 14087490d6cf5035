"""Chance events (shuffles), made explicit so that runs are reproducible.

Every random choice the rules make goes through a `Chance` object. The default,
`SeededChance`, derives its randomness from the game seed and the step number only,
so the same seed gives the same game in every process. `RecordingChance` writes down
each shuffle's outcome and `ScriptedChance` plays such a record back, which is how a
trace (or a Hypothesis failure) is replayed exactly.
"""

from __future__ import annotations

import random
from typing import Protocol


class Chance(Protocol):
    def shuffle(self, pile: list[int]) -> None: ...


def fisher_yates(pile: list[int], random_float) -> None:
    """Shuffle in place with one `random_float()` in [0, 1) per position.

    `random.shuffle` draws integers through a Python-level helper; this is the same
    algorithm with the C-level float draw, about three times faster.
    """
    for i in range(len(pile) - 1, 0, -1):
        j = int(random_float() * (i + 1))
        pile[i], pile[j] = pile[j], pile[i]


class SeededChance:
    """Shuffles drawn from `random.Random(seed * 2**32 + step)`, created only when needed."""

    __slots__ = ("_rng", "seed", "step")

    def __init__(self, seed: int, step: int) -> None:
        self.seed, self.step = seed, step
        self._rng: random.Random | None = None

    def shuffle(self, pile: list[int]) -> None:
        if self._rng is None:
            self._rng = random.Random(self.seed * 2**32 + self.step + 1)
        fisher_yates(pile, self._rng.random)


class RandomChance:
    """Shuffles from a given `random.Random` (Hypothesis passes one it controls)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def shuffle(self, pile: list[int]) -> None:
        self.rng.shuffle(pile)


class RecordingChance:
    """Wraps another Chance and records each shuffle's resulting order."""

    def __init__(self, inner: Chance) -> None:
        self.inner = inner
        self.outcomes: list[list[int]] = []

    def shuffle(self, pile: list[int]) -> None:
        self.inner.shuffle(pile)
        self.outcomes.append(list(pile))


class ScriptedChance:
    """Plays back recorded shuffle outcomes, checking each is a reordering of the pile.

    With a `fallback`, a shuffle the record cannot serve (none left, or the next one holds
    other cards) is left to the fallback instead (the recorded one stays for later): two
    versions of a game replay one record alike until they shuffle differently.
    """

    def __init__(self, outcomes: list[list[int]], fallback: Chance | None = None) -> None:
        self.outcomes = list(outcomes)
        self.fallback = fallback

    def shuffle(self, pile: list[int]) -> None:
        from .errors import ModelError

        fits = bool(self.outcomes) and sorted(self.outcomes[0]) == sorted(pile)
        if not fits and self.fallback is not None:
            self.fallback.shuffle(pile)
            return
        if not self.outcomes:
            raise ModelError("the replay has no recorded shuffle left for this step")
        order = self.outcomes.pop(0)
        if sorted(order) != sorted(pile):
            raise ModelError("the recorded shuffle does not hold the same cards as the pile")
        pile[:] = order


class NamedChance:
    """Shuffles from `random.Random(seed)`, each applied to the pile sorted by kind *name*.

    Two versions of a game given the same seed shuffle alike whenever their piles hold the
    same kinds, even if the kinds are declared (so numbered) in another order: common random
    numbers for comparing versions (`rulespec diff`). `names[k]` is kind k's name; `clone()`
    gives an independent copy at the same point of the stream.
    """

    def __init__(self, seed: int, names: tuple[str, ...] | list[str]) -> None:
        self.seed = seed
        self.names = tuple(names)
        self.rng = random.Random(seed)

    def shuffle(self, pile: list[int]) -> None:
        pile.sort(key=lambda k: (self.names[k], k))
        fisher_yates(pile, self.rng.random)

    def clone(self) -> NamedChance:
        other = NamedChance.__new__(NamedChance)
        other.seed, other.names = self.seed, self.names
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        return other
