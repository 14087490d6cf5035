"""`rulespec bench`: random-playout throughput of the reference model."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator, Mapping

import model


def run_bench(spec: str, players: int, seconds: float, seed: int,
              variants: Mapping[str, str]) -> Iterator[str]:
    t0 = time.perf_counter()
    game = model.load(spec, players=players, variants=variants)
    yield f"{game.ir.title}, {players} players: compiled in {time.perf_counter() - t0:.3f} s"
    rng = random.Random(seed)
    actions = games = 0
    t0 = time.perf_counter()
    while True:
        state = game.initial_state(seed + games)
        while not state.is_terminal:
            legal = state.legal_actions()
            state = state.apply(legal[rng.randrange(len(legal))])
            actions += 1
        games += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            break
    yield (f"State API (immutable states, legality checked): {actions / elapsed:,.0f} actions/s, "
           f"{games / elapsed:,.1f} games/s, {actions / games:.1f} actions per game "
           f"({games} games in {elapsed:.1f} s)")
