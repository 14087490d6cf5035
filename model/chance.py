"""Chance events (shuffles), made explicit so that runs are reproducible.

Every random choice the rules make goes through a `Chance` object. The default,
`SeededChance`, derives its randomness from the game seed and the step number only,
so the same seed gives the same game in every process. `RecordingChance` writes down
each shuffle's outcome and `ScriptedChance` plays such a record back, which is how a
trace (or a Hypothesis failure) is replayed exactly.
"""

from __future__ import annotations

import functools
import random
from _random import Random as MersenneTwister  # random.Random's C base: the same stream
from collections.abc import Callable, Sequence
from math import floor
from typing import Protocol


class Chance(Protocol):
    def shuffle(self, pile: list[int]) -> None: ...


def fisher_yates(pile: list[int], random_float: Callable[[], float]) -> None:
    """Shuffle in place with one `random_float()` in [0, 1) per position.

    `random.shuffle` draws integers through a Python-level helper; this is the same
    algorithm with the C-level float draw, about three times faster. `floor` of the
    non-negative product is `int` of it, a third cheaper to call.
    """
    for i in range(len(pile) - 1, 0, -1):
        j = floor(random_float() * (i + 1))
        pile[i], pile[j] = pile[j], pile[i]


def canonical_order(names: Sequence[str], classes: Sequence[str | None]
                    ) -> Callable[[list[int]], None]:
    """A function that sorts a pile of kinds by the kinds' names, in place.

    A pile holds the kinds of one class (cards or tokens); `classes` gives each kind's
    class, or None for a class no pile holds. Where, within each class, the kinds are
    declared in the order of their names, a plain sort of the kind numbers gives that
    order, and is about twice as fast as a sort by a key.
    """
    order = sorted(range(len(names)), key=names.__getitem__)
    ranks = [0] * len(names)
    for place, k in enumerate(order):
        ranks[k] = place
    for cls in set(classes) - {None}:
        mine = [ranks[k] for k, c in enumerate(classes) if c == cls]
        if mine != sorted(mine):
            return functools.partial(list.sort, key=tuple(ranks).__getitem__)
    return list.sort


class SeededChance:
    """Shuffles drawn from `random.Random(seed * 2**32 + step)`, created only when needed.

    With `canonical` (from `canonical_order`), the pile is first sorted by its kinds'
    names, so that the outcome depends on the seed and which cards are in the pile, not
    on the order they lay in nor on the order the spec declares its kinds: two versions
    of a game that differ only in that order deal the same cards for the same seed.
    """

    __slots__ = ("_rng", "canonical", "seed", "step")

    def __init__(self, seed: int, step: int,
                 canonical: Callable[[list[int]], None] | None = None) -> None:
        self.seed, self.step, self.canonical = seed, step, canonical
        self._rng: MersenneTwister | None = None

    def shuffle(self, pile: list[int]) -> None:
        if self._rng is None:
            # random.Random(n) without its Python-level seed() wrapper: a fifth cheaper
            self._rng = MersenneTwister(self.seed * 2**32 + self.step + 1)
        if self.canonical is not None:
            self.canonical(pile)
        fisher_yates(pile, self._rng.random)

    def copy(self) -> SeededChance:
        """A chance at the same point of the same stream, drawing independently from here."""
        other = SeededChance(self.seed, self.step, self.canonical)
        if self._rng is not None:
            other._rng = MersenneTwister()
            other._rng.setstate(self._rng.getstate())
        return other


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

    def copy(self) -> ScriptedChance:
        """A chance at the same point of the record, with its own copy of the fallback (a
        copy that draws does not move the original's fallback on)."""
        fallback = self.fallback
        copy = getattr(fallback, "copy", None)
        return ScriptedChance(self.outcomes, fallback=copy() if copy is not None else fallback)

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
