"""`rulespec bench`: random-playout throughput of the reference model.

Rates are per second of CPU time of this process (`time.process_time`), so that other
work on the machine does not halve them; on an idle machine that is the wall time.
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Mapping

import model


def run_bench(spec: str, players: int, seconds: float, seed: int,
              variants: Mapping[str, str]) -> Iterator[str]:
    t0 = time.process_time()
    game = model.load(spec, players=players, variants=variants)
    yield f"{game.ir.title}, {players} players: compiled in {time.process_time() - t0:.3f} s"
    rng = random.Random(seed)
    actions = games = 0
    t0 = time.process_time()
    while True:
        state = game.initial_state(seed + games)
        while not state.is_terminal:
            legal = state.legal_actions()
            state = state.apply(legal[rng.randrange(len(legal))])
            actions += 1
        games += 1
        elapsed = time.process_time() - t0
        if elapsed >= seconds:
            break
    yield (f"State API (immutable states, legality checked): {actions / elapsed:,.0f} actions/s, "
           f"{games / elapsed:,.1f} games/s, {actions / games:.1f} actions per game "
           f"({games} games in {elapsed:.1f} s)")
    rate, grate, n = in_place_rate(game, seconds, seed)
    yield (f"in-place playout (same generated code, no State objects): {rate:,.0f} actions/s, "
           f"{grate:,.1f} games/s ({n} games)")


def in_place_rate(game: model.Game, seconds: float, seed: int) -> tuple[float, float, int]:
    """Actions/s and games/s of `Game.random_playout` (the generated code, run in place)."""
    rnd = random.Random(seed).random

    def pick(n: int) -> int:
        return int(rnd() * n)

    actions = games = 0
    t0 = time.process_time()
    while True:
        n, _ = game.random_playout(seed + games, pick)
        actions += n
        games += 1
        elapsed = time.process_time() - t0
        if elapsed >= seconds:
            return actions / elapsed, games / elapsed, games
