"""`rulespec bench`: random-playout throughput of the reference model.

Plays whole games with a uniform random choice among the legal actions, drawn as
`int(rng.random() * n)`, in up to three ways:

- through the public State API (`initial_state`, `legal_actions`, `apply`: immutable
  states, every action's legality checked);
- in place (`Game.random_playout`: the same generated code, no State objects);
- with a hand-written *yardstick* for the same game, if one is given: a Python file
  defining `game(rng, players) -> int` that plays one whole game with the same kind of
  choices and returns the number of actions it took (`benchmarks/handwritten_lama.py`).

The three run in turns of a fraction of a second each, so that what else the machine
does slows all of them alike, and the ratio of their rates is printed. Rates are per
second of CPU time of this process (`time.process_time`); on an idle machine that is
the wall time.
"""

from __future__ import annotations

import importlib.util
import random
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import model
from model import SpecError, Where

#: CPU seconds each way of playing runs before the next one takes its turn.
TURN = 0.1
#: Actions after which a game is cut off (a spec whose games can go on forever).
MAX_ACTIONS = 100_000

#: Plays one game (from its number, 0, 1, ...) and returns the number of actions.
Player = Callable[[int], int]


class Tally:
    """What one way of playing has done so far: actions, games, CPU seconds."""

    def __init__(self, label: str, play: Player) -> None:
        self.label, self.play = label, play
        self.actions = self.games = 0
        self.seconds = 0.0

    def take_turn(self, seconds: float) -> None:
        """Play whole games until `seconds` of CPU time have passed."""
        play, clock = self.play, time.process_time
        t0 = clock()
        actions, games = 0, self.games
        while True:
            actions += play(games)
            games += 1
            elapsed = clock() - t0
            if elapsed >= seconds:
                break
        self.actions += actions
        self.games = games
        self.seconds += elapsed

    @property
    def rate(self) -> float:
        return self.actions / self.seconds

    def line(self) -> str:
        return (f"{self.label}: {self.rate:,.0f} actions/s, {self.games / self.seconds:,.1f} "
                f"games/s, {self.actions / self.games:.1f} actions per game "
                f"({self.games} games in {self.seconds:.1f} s)")


def state_api_player(game: model.Game, seed: int) -> Player:
    """Games through the public State API, game i dealt from seed + i."""
    rnd = random.Random(seed).random

    def play(i: int) -> int:
        state = game.initial_state(seed + i)
        for n in range(MAX_ACTIONS):
            if state.is_terminal:
                return n
            legal = state.legal_actions()
            try:
                action = legal[int(rnd() * len(legal))]
            except IndexError:  # no legal action: the game is stuck
                return n
            state = state.apply(action)
        return MAX_ACTIONS

    return play


def in_place_player(game: model.Game, seed: int) -> Player:
    """Games played in place by the generated `playout` loop (`Game.random_playout`)."""
    rnd = random.Random(seed).random

    def pick(n: int) -> int:
        return int(rnd() * n)

    def play(i: int) -> int:
        return game.random_playout(seed + i, pick, MAX_ACTIONS)[0]

    return play


def load_yardstick(path: Path) -> Callable[[Any, int], Any]:
    """The `game(rng, players)` function of a hand-written Python file."""
    where = Where(str(path))
    spec = importlib.util.spec_from_file_location("rulespec_yardstick", path)
    if spec is None or spec.loader is None:
        raise SpecError(where, "the yardstick must be a Python file (.py)")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the yardstick is the user's code: say what went wrong
        raise SpecError(where, f"the yardstick could not be loaded: {_describe(exc)}") from None
    game = getattr(module, "game", None)
    if not callable(game):
        raise SpecError(where, "the yardstick must define game(rng, players) -> int: one whole "
                               "game with uniform random choices, returning its number of "
                               "actions")
    return game


def yardstick_player(path: Path, players: int, seed: int) -> Player:
    """Games played by the `game(rng, players)` function of a hand-written Python file."""
    where = Where(str(path))
    game = load_yardstick(path)
    rng = random.Random(seed)

    def play(i: int) -> int:
        try:
            n = game(rng, players)
        except Exception as exc:
            raise SpecError(where, f"the yardstick's game() failed: {_describe(exc)}") from None
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise SpecError(where, f"the yardstick's game() must return its number of actions, "
                                   f"not {n!r:.60}")
        return n

    return play


def _describe(exc: BaseException) -> str:
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    at = f" (line {tb.tb_lineno})" if tb is not None else ""
    return f"{type(exc).__name__}: {exc}{at}"


def run_bench(spec: str, players: int, seconds: float, seed: int,
              variants: Mapping[str, str], yardstick: Path | None = None) -> Iterator[str]:
    """Measure for about `seconds` of CPU time per way of playing; yields report lines."""
    t0 = time.process_time()
    game = model.load(spec, players=players, variants=variants)
    yield f"{game.ir.title}, {players} players: compiled in {time.process_time() - t0:.3f} s"
    api = Tally("State API (immutable states, legality checked)", state_api_player(game, seed))
    in_place = Tally("in-place playout (same generated code, no State objects)",
                     in_place_player(game, seed))
    tallies = [api, in_place]
    hand = None
    if yardstick is not None:
        hand = Tally(f"hand-written ({yardstick})", yardstick_player(yardstick, players, seed))
        tallies.append(hand)
    for t in tallies:  # a first game each, outside the measurement (imports, caches)
        t.play(0)
    turn = min(TURN, seconds)
    while min(t.seconds for t in tallies) < seconds:
        for t in tallies:
            if t.seconds < seconds:
                t.take_turn(min(turn, seconds - t.seconds))
    for t in tallies:
        yield t.line()
    if hand is not None:
        yield f"State API / hand-written: {hand.rate / api.rate:.2f}×"
        yield f"in-place / hand-written: {hand.rate / in_place.rate:.2f}×"
