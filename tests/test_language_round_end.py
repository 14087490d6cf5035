"""`game_end` may refer to the round end: a round-end condition's name, in `game_end.when`
and `winners`, says whether it held when the round ended (before the scoring)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from test_language_procedures import lama_with

import model
from model import SpecError, ir

GAME_END = ('    - {name: forty_points, when: "any(points(p) >= end_points for p in players)", '
            "cite: [lama.en#L32, lama.nl#L25]}\n")


def rounds(game: model.Game, seed: int):
    """(the round-end reasons, whether the game ended) of every round of a random game."""
    rnd = random.Random(seed)
    state = game.initial_state(seed)
    while not state.is_terminal:
        out = state.outcome(rnd.choice(state.legal_actions()))
        if out.round_ended:
            yield out.reasons, out.state.is_terminal
        state = out.state


def test_the_game_ends_with_the_first_round_a_hand_empties(tmp_path: Path) -> None:
    path = lama_with(tmp_path, (GAME_END, "    - {name: went_out, when: hand_emptied}\n"))
    game = model.load(path, players=3)
    seen = set()
    for seed in range(30):
        for reasons, over in rounds(game, seed):
            assert over == ("hand_emptied" in reasons), reasons
            seen.add(over)
    assert seen == {True, False}  # some rounds ended otherwise, and the games went on
    assert [v.name for v in game.ir.vars][-1] == "round_end__hand_emptied"
    first = game.ir.scoring[0]
    assert isinstance(first, ir.Assign) and first.target.name == "round_end__hand_emptied"


def test_the_remembered_value_is_the_one_before_scoring(tmp_path: Path) -> None:
    """all_quit holds at the round's end; this scoring first sets every quit back, so the
    condition read again after the scoring would never hold: the game ends all the same."""
    path = lama_with(
        tmp_path, (GAME_END, "    - {name: all_out, when: all_quit}\n"),
        ("    - if: \"next_starter == 'ender'\"\n",
         "    - for: p in players\n      do: [\"quit[p] = False\"]\n"
         "    - if: \"next_starter == 'ender'\"\n"))
    game = model.load(path, players=2)
    ended = 0
    for seed in range(40):
        for reasons, over in rounds(game, seed):
            assert over == ("all_quit" in reasons)
            ended += over
    assert ended


def test_a_one_round_game(tmp_path: Path) -> None:
    path = lama_with(tmp_path, (GAME_END, "    - {name: one_round, when: \"True\"}\n"))
    game = model.load(path, players=4)
    for seed in range(5):
        assert [over for _, over in rounds(game, seed)] == [True]


def test_winners_may_name_the_round_end(tmp_path: Path) -> None:
    path = lama_with(
        tmp_path, (GAME_END, "    - {name: one_round, when: \"True\"}\n"),
        ('    expr: "[p for p in players if points(p) == min(points(q) for q in players)]"',
         '    expr: "[last_actor] if hand_emptied else [p for p in players]"'))
    game = model.load(path, players=3)
    for seed in range(20):
        rnd = random.Random(seed)
        state = game.initial_state(seed)
        while True:
            out = state.outcome(rnd.choice(state.legal_actions()))
            if out.round_ended:
                want = ((out.state.to_dict()["last_actor"],) if "hand_emptied" in out.reasons
                        else (0, 1, 2))
                assert out.state.winners == want
                break
            state = out.state


def test_a_condition_named_like_a_variable_leaves_the_variable(tmp_path: Path) -> None:
    path = lama_with(tmp_path, ("    - {name: hand_emptied, when: ended,",
                                "    - {name: ended, when: ended,"),
                     (GAME_END, "    - {name: over, when: \"not ended\"}\n"))
    game = model.load_ir(path, players=3)
    assert not any(v.name.startswith("round_end__") for v in game.vars)


def test_an_unknown_name_in_game_end_is_still_an_error(tmp_path: Path) -> None:
    path = lama_with(tmp_path, (GAME_END, "    - {name: over, when: hand_emtpied}\n"))
    with pytest.raises(SpecError) as info:
        model.load(path, players=3)
    assert "unknown name 'hand_emtpied'" in info.value.message
    assert info.value.where.line == path.read_text(encoding="utf-8")[
        :path.read_text(encoding="utf-8").index("hand_emtpied")].count("\n") + 1


def test_round_end_names_are_not_visible_elsewhere(tmp_path: Path) -> None:
    path = lama_with(tmp_path, ("when: \"phase == 'play' and can_draw and in_round > 1\"",
                                "when: \"phase == 'play' and can_draw and not hand_emptied\""))
    with pytest.raises(SpecError) as info:
        model.load(path, players=3)
    assert "unknown name 'hand_emptied'" in info.value.message
