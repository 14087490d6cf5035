"""The State API beyond `apply` (docs/api.md): the round's end as it happens, why an
action is illegal, and which action texts `parse_action` accepts."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

import model
from model import IllegalAction

SPEC = Path(__file__).resolve().parent.parent / "spec"


# --------------------------------------------------------------- the round's end
def test_outcome_shows_the_round_end_before_the_next_deal() -> None:
    """lama.en#L22, L25, L27, L30: player 0 plays their last card, returns the black chip;
    player 1 still holds a 4, which costs 4 points. The round's end is seen before the
    cards are gathered and dealt again."""
    game = model.load("lama", players=2)
    state = game.state_from_dict({"active": 0, "zones": {
        "stock": "rest", "discard": ["2"], "hand": [{"3": 1}, {"4": 1}],
        "chips": [{"white": 3, "black": 1}, {}]}})
    state = state.apply(game.parse_action("play 3"))
    out = state.outcome(game.parse_action("return black"))
    assert out.round_ended and out.reasons == ("hand_emptied",)
    end = out.round_end
    assert end is not None and end.round == 1
    assert end.to_dict()["zones"]["hand"] == [{}, {"4": 1}]
    assert end.to_dict()["zones"]["chips"] == [{"white": 3}, {"white": 4}]
    assert end.legal_actions() == []  # nobody acts between the scoring and the deal
    assert out.round_scores == (0, 4)
    assert out.state.round == 2 and out.state.scores == (3, 4)
    assert out.state == state.apply(game.parse_action("return black"))


@pytest.mark.parametrize("spec", ["lama", "kadabra", "lambada", "slambo"])
def test_outcome_agrees_with_apply(spec: str) -> None:
    game = model.load(spec, players=3)
    rng = random.Random(4)
    state, rounds = game.initial_state(4), 0
    for _ in range(600):
        if state.is_terminal:
            break
        actions = state.legal_actions()
        action = actions[rng.randrange(len(actions))]
        out = state.outcome(action)
        nxt = state.apply(action)
        assert out.state == nxt and out.state.to_dict() == nxt.to_dict()
        if out.round_ended:
            rounds += 1
            assert out.reasons
            assert out.round_end.round == state.round
            assert out.round_scores == tuple(
                b - a for a, b in zip(_scored_from(state, action), out.round_end.scores,
                                      strict=True))
            assert nxt.is_terminal or nxt.round == state.round + 1
        else:
            assert out.round_end is None and out.reasons == () and nxt.round == state.round
        state = nxt
    assert rounds >= 2


def _scored_from(state: model.State, action: model.Action) -> tuple[int, ...]:
    """The scores after the action's own effects, before the round's scoring."""
    g = state.game
    Z, V = list(state.z), list(state.v)
    actor = V[0]
    g._effects[action.index](Z, V, g.chance(state.seed, state.step), *action.args)
    V[2] = actor
    return tuple(g.ns["score"](Z, V, p) for p in range(g.players))


# ----------------------------------------------------------------- why illegal
def _place(spec: str, text: str) -> str:
    """Where `text` is written in spec/<spec>.yaml, as line:column (found in the file)."""
    for n, line in enumerate((SPEC / f"{spec}.yaml").read_text(encoding="utf-8").splitlines(), 1):
        if "when:" in line and text in line:
            return f"{n}:{line.index(text) + 1}"
    raise AssertionError(text)


def test_why_illegal_names_the_false_part_of_the_condition_and_its_place() -> None:
    game = model.load("lama", players=2)
    state = game.state_from_dict({"zones": {"stock": "rest", "discard": ["3"],
                                            "hand": [{"1": 1, "3": 1}, {"4": 1}]}})
    reason = state.why_illegal(game.parse_action("play 1"))
    at = _place("lama", "follows(card, top(discard))")
    assert reason == ("the condition of play does not hold: `follows(card, top(discard))` is "
                      f"false ({game.ir.file}:{at})")
    back = state.apply(game.parse_action("play 3"))  # player 1 next; it is still 'play'
    returning = game.state_from_dict({"zones": {"stock": "rest", "discard": ["3"],
                                                "hand": [{}, {"4": 1}],
                                                "chips": [{"white": 1}, {}]},
                                      "vars": {"phase": "return"}})
    reason = returning.why_illegal(game.parse_action("draw"))
    assert "`phase == 'play'` is false" in reason
    draw_at = _place("lama", "phase == 'play' and can_draw")
    assert reason.endswith(f"lama.yaml:{draw_at})")
    assert back.why_illegal(game.parse_action("draw")) is None


def test_why_illegal_names_a_position_by_its_name_and_the_false_part() -> None:
    game = model.load("lambada", players=2)
    state = game.state_from_dict({"zones": {"hand": [{"blue_A": 1}, {"red_B": 1}]}})
    reason = state.why_illegal(game.parse_action("play blue_A on B"))
    assert "`card.letter == pos.letter` is false" in reason
    assert reason.endswith(f"lambada.yaml:{_place('lambada', 'card.letter == pos.letter')})")


def test_why_illegal_names_the_part_that_cannot_be_evaluated() -> None:
    game = model.load("lama", players=2)
    state = game.state_from_dict({"zones": {"stock": "rest", "discard": [],
                                            "hand": [{"1": 1}, {"4": 1}]}}, checked=False)
    reason = state.why_illegal(game.parse_action("play 1"))
    assert "`follows(card, top(discard))` cannot be evaluated here (top() of an empty pile)" \
        in reason


# --------------------------------------------------------------- parse_action
@pytest.mark.parametrize(("spec", "text", "why"), [
    ("lama", "play white", "'white' is not a card"),
    ("lama", "return 3", "'3' is not a token"),
    ("lambada", "play blue_A on 7", "'7' is not a position (L, A1, M, B, A2, D, A3)"),
    ("lambada", "play blue_A on 1", "'1' is not a position"),
    ("slambo", "play sign1 with sign 2", "'2' is not one of the choices (1, -1)"),
    ("kadabra", "give 3", "'3' is not a seat (0, 1, 2)"),
    ("kadabra", "give -1", "'-1' is not a seat"),
    ("kadabra", "give 99999999999999999999999", "is not a seat"),
])
def test_parse_action_rejects_values_outside_the_domain(spec: str, text: str, why: str) -> None:
    game = model.load(spec, players=3)
    with pytest.raises(IllegalAction, match=re.escape(why)):
        game.parse_action(text)


def test_index_members_have_their_names_in_actions() -> None:
    game = model.load("lambada", players=3)
    action = game.parse_action("play blue_A on A2")
    assert action.named_args() == {"card": "blue_A", "pos": "A2"}
    assert action.args[1] == 4 and str(action) == "play blue_A on A2"
