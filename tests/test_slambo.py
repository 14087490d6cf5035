"""Situation tests for SLAMBO! (spec/slambo.yaml).

Each test loads a hand-written situation from tests/situations/slambo/, plays actions
and checks legal actions and outcomes against what the rulebook (slambo.en) says: the
expected numbers are worked out from the rules, not read off the model.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import model
from model import IllegalAction

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "spec" / "slambo.yaml"
SITUATIONS = ROOT / "tests" / "situations" / "slambo"


def situation(name: str, players: int, **variants: str) -> model.State:
    game = model.load(str(SPEC), players=players, variants=variants)
    path = SITUATIONS / f"{name}.yaml"
    return game.state_from_dict(yaml.safe_load(path.read_text(encoding="utf-8")), str(path))


def act(state: model.State, *texts: str) -> model.State:
    for text in texts:
        state = state.apply(state.game.parse_action(text))
    return state


def legal(state: model.State) -> set[str]:
    return {str(a) for a in state.legal_actions()}


def zone(state: model.State, name: str, index: int | None = None):
    z = state.to_dict()["zones"][name]
    return z if index is None else z[index]


def var(state: model.State, name: str):
    return state.to_dict()["vars"][name]


def shame(state: model.State) -> list[int]:
    return [bag.get("shame", 0) for bag in zone(state, "shame")]


def middle(state: model.State) -> int:
    return zone(state, "middle").get("shame", 0)


# ------------------------------------------------------------------ leaving the range
def test_ten_is_still_in_range():
    s = act(situation("edge_high_2p", 2), "play blue2")  # 8 + 2 = 10: not above 10 (L19)
    assert s.round == 1
    assert var(s, "balance") == 10
    assert s.active_player == 1


def test_above_ten_loses_the_bout():
    s = act(situation("edge_high_2p", 2), "play blue3")  # 8 + 3 = 11 (L19, L21)
    assert s.round == 2
    assert var(s, "outcome") == "slambo"
    assert var(s, "loser") == 0
    assert shame(s) == [1, 0]  # the one shame card of the middle (L45)
    assert var(s, "balance") == 5  # the next bout starts at 5 again (L13)
    assert s.active_player == 0  # the loser starts the next bout (L59)


def test_zero_is_still_in_range():
    s = act(situation("edge_low_2p", 2), "play red1")  # 1 - 1 = 0: not below 0
    assert s.round == 1
    assert var(s, "balance") == 0


def test_rulebook_example_below_zero():
    # L39: at 1, player 1 plays a blue 2 (3), player 2 a red 5 (-2) and loses the bout.
    s = situation("edge_low_2p", 2)
    s = act(s, "play blue2")
    assert var(s, "balance") == 3
    s = act(s, "play red5")
    assert s.round == 2
    assert var(s, "loser") == 1
    assert shame(s) == [0, 1]
    assert s.active_player == 1


def test_expert_nine_is_safe_ten_loses():
    s = act(situation("edge_high_2p", 2, start_card_side="expert"), "play blue1")
    assert (s.round, var(s, "balance")) == (1, 9)
    s = act(situation("edge_high_2p", 2, start_card_side="expert"), "play blue2")
    assert s.round == 2 and shame(s) == [1, 0]  # 10 is above 9 (L75)


def test_expert_one_is_safe_zero_loses():
    s = situation("edge_low_2p", 2, start_card_side="expert")
    assert var(s, "balance") == 1
    s = act(s, "play red1")  # 1 - 1 = 0, below 1 (L75)
    assert s.round == 2 and shame(s) == [1, 0]


# ----------------------------------------------------------------------------- break
def test_break_when_all_hands_are_empty():
    s = act(situation("break_2p", 2), "play blue1", "play red1")  # 6, then 5 again
    assert s.round == 2
    assert var(s, "outcome") == "break"
    assert shame(s) == [0, 0]  # nobody takes shame (L51)
    assert middle(s) == 2  # one more shame card in the middle (L51, L53)
    assert zone(s, "supply") == {"shame": 7}
    assert s.active_player == 1  # the player who went second starts (L63)


def test_last_card_out_of_range_is_a_loss_not_a_break():
    s = act(situation("break_2p", 2), "play blue1")
    d = s.to_dict()
    d["vars"]["balance"] = 0  # the last card, a red 1, now takes the balance to -1
    s = act(s.game.state_from_dict(d), "play red1")
    assert var(s, "outcome") == "slambo"  # both hands are empty, but it is a loss (L21)
    assert shame(s) == [0, 1]
    assert middle(s) == 1
    assert s.active_player == 1


def test_who_went_second_after_a_reversal():
    s = situation("break_3p", 3)
    s = act(s, "play sign1 with sign 1")  # 6; reversed: player 2 plays second
    assert s.active_player == 2
    s = act(s, "play red1", "play blue2", "play red2")  # 5, 7, 5: every hand empty
    assert var(s, "outcome") == "break"
    assert s.round == 2
    assert s.active_player == 2


def test_who_went_second_next_seat_variant():
    s = situation("break_3p", 3, break_starter_multiplayer="next_seat")
    s = act(s, "play sign1 with sign 1", "play red1", "play blue2", "play red2")
    assert var(s, "outcome") == "break"
    assert s.active_player == 1  # the starter's neighbour up the seats


# ----------------------------------------------------------------------- shame, end
def test_shame_goes_to_the_loser():
    s = situation("shame_to_loser_2p", 2)
    assert legal(s) == {"play blue3", "play blue5"}
    s = act(s, "play blue3")  # 12
    assert shame(s) == [1, 2]  # both cards of the middle go to the loser (L45)
    assert middle(s) == 1  # a new one is put out (ambiguity middle_refill_after_loss)
    assert zone(s, "supply") == {"shame": 5}
    assert not s.is_terminal
    assert s.active_player == 1


def test_no_refill_variant_leaves_the_middle_empty():
    s = act(situation("shame_to_loser_2p", 2, middle_refill_after_loss="no_refill"), "play blue3")
    assert shame(s) == [1, 2]
    assert middle(s) == 0
    assert zone(s, "supply") == {"shame": 6}


def test_game_end_two_players():
    s = situation("game_end_2p", 2)
    t = act(s, "play blue1")  # 3: the bout goes on
    assert not t.is_terminal and t.round == 5
    s = act(s, "play red5")  # -3: player 0 takes the third shame card
    assert s.is_terminal
    assert shame(s) == [3, 1]
    assert s.winners == (1,)  # the other player wins (L67)
    assert s.legal_actions() == []


def test_game_end_four_players():
    s = act(situation("game_end_4p", 4), "play blue4")  # 13
    assert s.is_terminal
    assert shame(s) == [2, 1, 3, 0]
    assert s.winners == (0, 1, 3)  # that player loses, all others win (L67)


def test_game_goes_on_below_three():
    s = act(situation("game_end_4p", 4), "play red4")  # 5: in range
    assert not s.is_terminal
    assert s.active_player == 3


# -------------------------------------------------------------------- special cards
def test_number_card_keeps_the_direction():
    s = act(situation("specials_3p", 3), "play blue3")
    assert var(s, "balance") == 8
    assert var(s, "direction") == 1
    assert s.active_player == 1


def test_sign_card_offers_both_signs_and_reverses():
    s = situation("specials_3p", 3)
    moves = legal(s)
    assert {"play sign2 with sign 1", "play sign2 with sign -1"} <= moves
    assert "play sign2" not in moves
    assert "play blue3 with sign -1" not in moves
    with pytest.raises(IllegalAction):
        act(s, "play sign2")
    t = act(s, "play sign2 with sign -1")
    assert var(t, "balance") == 3
    assert var(t, "direction") == -1  # the order reverses after the change (L67)
    assert t.active_player == 2
    t = act(s, "play sign2 with sign 1")
    assert var(t, "balance") == 7


def test_copy_with_nothing_to_copy():
    s = situation("specials_3p", 3)
    assert "play copy" in legal(s)
    t = act(s, "play copy")
    assert var(t, "balance") == 5
    assert t.active_player == 2  # still a special card: the order reverses


def test_copy_with_nothing_to_copy_variants():
    t = act(situation("specials_3p", 3, copy_nothing_played="start_card"), "play copy")
    assert var(t, "balance") == 10
    s = situation("specials_3p", 3, copy_nothing_played="forbidden")
    assert "play copy" not in legal(s)


def test_copy_and_copy_of_a_copy():
    s = situation("specials_3p", 3)
    s = act(s, "play red1")  # 4, next player 1
    s = act(s, "play copy")  # copies -1: 3; reversed, back to player 0
    assert var(s, "balance") == 3
    assert s.active_player == 0
    s = act(s, "play copy")  # a copy of the copy repeats -1 again (L71): 2
    assert var(s, "balance") == 2
    assert s.active_player == 1  # reversed again


def test_copy_of_a_sign_card_repeats_the_result():
    s = act(situation("specials_3p", 3), "play sign2 with sign -1")  # 3, player 2 next
    assert legal(s) >= {"play copy"}
    s = act(s, "play copy")  # -2 again: 1
    assert var(s, "balance") == 1
    assert s.active_player == 0


def test_copy_of_a_sign_card_choose_again_variant():
    s = act(situation("specials_3p", 3, copy_of_sign_card="choose_again"),
            "play sign2 with sign -1")
    moves = legal(s)
    assert {"play copy with sign 1", "play copy with sign -1"} <= moves
    assert "play copy" not in moves
    assert var(act(s, "play copy with sign 1"), "balance") == 5


def test_player_without_cards_is_skipped():
    s = situation("skip_3p", 3)
    s = act(s, "play blue2")  # 7; player 1 has no cards
    assert s.active_player == 2
    s = act(s, "play red2")  # 5; past player 1 again
    assert s.active_player == 0


def test_skip_after_a_reversal():
    s = situation("skip_3p", 3)
    s = act(s, "play sign1 with sign 1")  # 6; reversed: player 2 (before player 0)
    assert s.active_player == 2
    s = act(s, "play red2")  # 4; before player 2 is player 1, who has no cards
    assert s.active_player == 0


# -------------------------------------------------------------- gaps with variants
def test_supply_empty_adds_nothing():
    s = act(situation("supply_empty_4p", 4), "play blue1", "play red1", "play blue2", "play red2")
    assert var(s, "outcome") == "break"
    assert middle(s) == 1
    assert var(s, "owed_middle") == 0
    assert not s.is_terminal


def test_supply_empty_count_extra_variant():
    s = situation("supply_empty_4p", 4, shame_supply_exhausted="count_extra")
    s = act(s, "play blue1", "play red1", "play blue2", "play red2")
    assert middle(s) == 1
    assert var(s, "owed_middle") == 1


def test_two_players_one_out_of_cards_is_skipped():
    s = act(situation("out_of_cards_2p", 2), "play blue1")
    assert s.round == 1
    assert s.active_player == 1


def test_two_players_one_out_of_cards_break_now_variant():
    # Under break_now the situation out_of_cards_2p cannot happen (the bout breaks as soon
    # as player 0 runs out of cards), so here player 0 plays that last card.
    data = yaml.safe_load((SITUATIONS / "out_of_cards_2p.yaml").read_text(encoding="utf-8"))
    data.update(active=0, last_actor=1)
    data["zones"]["hand"] = [{"blue2": 1}, {"blue1": 1, "red1": 1}]
    game = model.load(str(SPEC), players=2, variants={"out_of_cards_2p": "break_now"})
    with pytest.raises(model.SpecError, match="one_holder_left holds"):
        situation("out_of_cards_2p", 2, out_of_cards_2p="break_now")
    s = act(game.state_from_dict(data), "play blue2")
    assert s.round == 2
    assert var(s, "outcome") == "break"
    assert middle(s) == 2


# ----------------------------------------------------------------- deck, deal, totals
@pytest.mark.parametrize(("players", "cards", "specials", "hand"), [
    (2, 17, 0, 8), (3, 23, 6, 7), (4, 23, 6, 5)])
def test_deck_by_player_count(players, cards, specials, hand):
    game = model.load(str(SPEC), players=players)
    kinds = game.ir.kinds
    dealt = [k for k in kinds if k.item_class == "cards" and k.attrs["colour"] != "start"]
    assert sum(k.copies for k in dealt) == cards
    assert sum(k.copies for k in dealt if k.attrs["colour"] == "blue") == 9  # L75
    assert sum(k.copies for k in dealt if k.attrs["colour"] == "red") == 8
    assert sum(k.copies for k in dealt if k.attrs["colour"] == "special") == specials  # L33
    s = game.initial_state(7)
    assert [sum(h.values()) for h in zone(s, "hand")] == [hand] * players
    assert middle(s) == 1 and zone(s, "supply") == {"shame": 8}  # L31
    assert var(s, "balance") == 5


@pytest.mark.parametrize("players", [2, 4])
def test_every_card_and_all_nine_shame_cards_are_kept(players):
    import random

    game = model.load(str(SPEC), players=players)
    want = [k.copies for k in game.ir.kinds]
    shame_kind = game.kind_names.index("shame")
    assert want[shame_kind] == 9
    for seed in range(20):
        rng = random.Random(seed)
        s = game.initial_state(seed)
        while not s.is_terminal:
            s = s.apply(rng.choice(s.legal_actions()))
            assert game.total_counts(s) == want
        assert max(shame(s)) >= 3
