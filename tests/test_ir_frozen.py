"""The IR is immutable all the way down: its mappings refuse changes, yet read, copy and
travel between processes as dicts do."""

from __future__ import annotations

import copy
import json
import pickle

import pytest

import model
from model import ir


@pytest.fixture(scope="module")
def game_ir() -> ir.GameIR:
    return model.load("lama", players=3, variants={"empty_stock": "reshuffle"}).ir


def test_every_mapping_of_the_ir_refuses_a_change(game_ir: ir.GameIR) -> None:
    maps = [game_ir.params, game_ir.chosen, game_ir.kind_attrs, game_ir.enums,
            game_ir.kinds[0].attrs, *(e.variants for e in game_ir.expectations)]
    assert all(isinstance(m, ir.FrozenDict) for m in maps)
    chosen = game_ir.chosen
    with pytest.raises(TypeError, match="cannot be changed"):
        chosen["empty_stock"] = "no_draw"
    for change in (lambda: chosen.update(x="y"), lambda: chosen.pop("empty_stock"),
                   lambda: chosen.setdefault("x", "y"), chosen.clear, chosen.popitem,
                   lambda: chosen.__delitem__("empty_stock"), lambda: chosen.__ior__({})):
        with pytest.raises(TypeError):
            change()
    assert chosen["empty_stock"] == "reshuffle"


def test_a_frozen_mapping_reads_copies_and_pickles_as_a_dict(game_ir: ir.GameIR) -> None:
    chosen = game_ir.chosen
    mine = dict(chosen)
    mine["empty_stock"] = "no_draw"  # a copy is an ordinary dict
    assert chosen["empty_stock"] == "reshuffle"
    assert json.loads(json.dumps(chosen)) == mine | {"empty_stock": "reshuffle"}
    again = pickle.loads(pickle.dumps(game_ir))
    assert again == game_ir and isinstance(again.chosen, ir.FrozenDict)
    assert copy.deepcopy(chosen) == chosen
