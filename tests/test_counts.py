"""The fast count the property checks use agrees with `Game.total_counts` (the plain one)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from test_mutants import fault

import model
from properties.concrete.invariants import counter

HERE = Path(__file__).parent
SPECS = [*sorted((HERE.parent / "spec").glob("*.yaml")),
         HERE / "mutants" / "lama_draw_duplicates.yaml"]


@pytest.mark.parametrize("spec", SPECS, ids=[p.stem for p in SPECS])
def test_counter_agrees_with_total_counts(spec: Path) -> None:
    with fault(spec.stem):  # the mutant's broken runtime: a draw copies the card
        _agree(spec)


def _agree(spec: Path) -> None:
    game = model.load(spec, players=3)
    count = counter(game)
    copies = [k.copies for k in game.ir.kinds]
    rng = random.Random(5)
    state = game.initial_state(5)
    wrong = 0
    for _ in range(400):
        if state.is_terminal:
            state = game.initial_state(rng.randrange(1000))
        assert count(state) == game.total_counts(state)
        wrong += count(state) != copies
        actions = state.legal_actions()
        state = state.apply(actions[rng.randrange(len(actions))])
    # the mutant's draw copies a card: both counts see the extra copies
    assert (wrong > 0) is (spec.parent.name == "mutants")
