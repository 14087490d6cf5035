"""Every legal action reads back from its text (replay files store actions as text)."""

from __future__ import annotations

import random

import pytest
import yaml

import model
from model.schema import SPEC_DIR

SPECS = sorted(SPEC_DIR.glob("*.yaml"))


@pytest.mark.parametrize("spec", SPECS, ids=[s.stem for s in SPECS])
def test_actions_read_back_from_their_text(spec) -> None:
    players = int(yaml.safe_load(spec.read_text(encoding="utf-8"))["players"]["min"])
    game = model.load(spec, players=players)
    rng = random.Random(0)
    state = game.initial_state(0)
    for _ in range(200):
        if state.is_terminal:
            break
        actions = state.legal_actions()
        for a in actions:
            assert game.parse_action(str(a)) == a
        state = state.apply(rng.choice(actions))
