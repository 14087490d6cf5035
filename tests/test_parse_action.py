"""Reading an action back from its text: parameters are matched by name."""

from __future__ import annotations

from pathlib import Path

import model

LAMA = Path(__file__).resolve().parent.parent / "spec" / "lama.yaml"


def test_action_with_a_parameter_reads_back():
    game = model.load(str(LAMA), players=3)
    state = game.initial_state(1)
    for action in state.legal_actions():
        assert game.parse_action(str(action)) == action
    play = game.parse_action("play 3")
    assert play.name == "play" and str(play) == "play 3"
