"""Automatic steps (docs/spec-language.md#automatic-steps): engine work nobody decides runs
inside the step of the action that sets it off, in both back ends, and is not counted as
anyone's action. spec/unveil.yaml lays every player's card face down at once (a joint
action, #simultaneous-choice) and places them on the row lowest first by automatic
steps, in the same step."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from click.testing import CliRunner

import model
from properties.cli import main

UNVEIL = Path(__file__).parent.parent / "spec" / "unveil.yaml"
RANK = {f"c{n}": n for n in range(1, 13)}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_turn_is_one_joint_step_that_places_every_card_lowest_first(players: int
                                                                         ) -> None:
    game = model.load(UNVEIL, players=players)
    assert [a.name for a in game.ir.actions] == ["lay"]  # the steps are not actions
    rng = random.Random(players)
    for seed in range(20):
        state, taken = game.initial_state(seed), 0
        while not state.is_terminal:
            legal = state.legal_actions()
            assert {a.name for a in legal} == {"lay"} and all(a.is_joint for a in legal)
            before = state.to_dict()
            action = legal[rng.randrange(len(legal))]
            state = state.apply(action)
            taken += 1
            after = state.to_dict()
            # in the same step every seat lays, and all are turned up and placed, lowest first
            placed = after["zones"]["row"][len(before["zones"]["row"]):]
            laid = [game.kind_names[action.component(s)[0]] for s in range(players)]
            assert sorted(placed) == sorted(laid)
            assert len(placed) == players and placed == sorted(placed, key=RANK.__getitem__)
            assert after["vars"]["phase"] == "choose"
            assert not any(after["zones"]["chosen"])
        assert taken == 3  # one decision a turn, three turns: nothing else is an action


def test_each_seat_lays_from_its_own_hand_whatever_the_others_hold() -> None:
    game = model.load(UNVEIL, players=3)
    state = game.initial_state(0)
    legal = state.legal_actions()
    hands = state.to_dict()["zones"]["hand"]
    for seat in range(3):
        mine = {a.component_text(seat) for a in legal}
        assert mine == {f"lay {card}" for card in hands[seat]}
        # a state that looks the same to the seat (the others' hands dealt anew) offers it
        # the same part, though the joint actions differ
        other = state.redeal(seat, random.Random(seat))
        assert {a.component_text(seat) for a in other.legal_actions()} == mine
    assert len(legal) == 27  # the product of the seats' three cards each


def test_check_decides_every_row_of_a_game_with_automatic_steps(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = CliRunner().invoke(main, ["check", str(UNVEIL), "--games", "20",
                                       "--json", str(out)])
    assert result.exit_code == 0, result.output
    rows = json.loads(out.read_text())["rows"]
    z3 = {r["property"]: r["verdict"] for r in rows if r["property"].startswith("z3_")}
    assert set(z3.values()) == {"proved"}, z3
    assert {"z3_conservation", "z3_legal_move", "z3_round_bound"} <= set(z3)


def test_automatic_steps_that_never_stop_are_an_error_at_their_line(tmp_path: Path) -> None:
    text = UNVEIL.read_text(encoding="utf-8").replace(
        "    effects: [\"phase = 'choose'\"]\n\ngame_end:",
        "    effects: [\"phase = 'place'\"]\n\ngame_end:")  # all_placed keeps placing
    assert text != UNVEIL.read_text(encoding="utf-8")
    spec = tmp_path / "unveil.yaml"
    spec.write_text(text, encoding="utf-8")
    (tmp_path / "rulebooks").mkdir()
    (tmp_path / "rulebooks" / "unveil.en.txt").write_text(
        (UNVEIL.parent / "rulebooks" / "unveil.en.txt").read_text(encoding="utf-8"))
    game = model.load(spec, players=2)
    state = game.initial_state(0)
    # the loop is the automatic steps' list: its first line
    line = next(n for n, t in enumerate(text.splitlines(), 1) if t.startswith("automatic:")) + 1
    with pytest.raises(model.ModelError, match=f"loop at spec line {line} ran more than its "
                                               "max of 6 times"):
        state.apply(state.legal_actions()[0])  # the joint lay sets the steps off


NINE = "automatic:\n" + "".join(f"  - {{name: s{i}, when: 'False', max: 1, effects: [], "
                                 "cite: unveil.en#L5}\n" for i in range(9))


@pytest.mark.parametrize("edit, says", [
    ("    max: 4\n", "max"),  # no max: the loop would have no bound
    ("name: all_placed", "already the name"),
    ("automatic:\n", "automatic: 12 items, over the limit of 8"),
])
def test_a_malformed_automatic_step_is_refused_where_it_is(tmp_path: Path, edit: str,
                                                           says: str) -> None:
    text = UNVEIL.read_text(encoding="utf-8")
    bad = (text.replace(edit, "") if edit.startswith("    max")
           else text.replace(edit, NINE) if edit == "automatic:\n"
           else text.replace(edit, "name: turn_up"))
    spec = tmp_path / "unveil.yaml"
    spec.write_text(bad, encoding="utf-8")
    (tmp_path / "rulebooks").mkdir()
    (tmp_path / "rulebooks" / "unveil.en.txt").write_text(
        (UNVEIL.parent / "rulebooks" / "unveil.en.txt").read_text(encoding="utf-8"))
    with pytest.raises(model.SpecError, match=says) as err:
        model.load(spec, players=2)
    assert "unveil.yaml:" in str(err.value)
