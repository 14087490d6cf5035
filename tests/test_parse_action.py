"""`Game.parse_action` reads back what `str(action)` writes, whatever the order of the
parameters in the `say` template."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import yaml

import model

SPEC_DIR = Path(__file__).resolve().parent.parent / "spec"


@pytest.mark.parametrize(("spec", "players"), [("lama", 3), ("kadabra", 3), ("lambada", 3), ("slambo", 3)])
def test_every_legal_action_reads_back(spec, players):
    game = model.load(str(SPEC_DIR / f"{spec}.yaml"), players=players)
    rng = random.Random(1)
    for seed in range(5):
        s = game.initial_state(seed)
        while not s.is_terminal:
            actions = s.legal_actions()
            for a in actions:
                assert game.parse_action(str(a)) == a
            s = s.apply(rng.choice(actions))


def test_say_order_differs_from_parameter_order(tmp_path):
    doc = yaml.safe_load((SPEC_DIR / "slambo.yaml").read_text(encoding="utf-8"))
    doc["actions"]["play_signed"]["say"] = "sign {sign} for {card}"  # params: card, sign
    path = tmp_path / "slambo_say.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    game = model.load(str(path), players=3)
    a = game.parse_action("sign -1 for sign2")
    assert a.named_args() == {"card": "sign2", "sign": -1}
    assert str(a) == "sign -1 for sign2"
