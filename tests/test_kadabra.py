"""Situation tests for L.A.M.A. Kadabra (spec/kadabra.yaml, rulebook kadabra.en).

Each test loads a written-down situation from tests/situations/kadabra/, and checks
the legal actions and what an action does. The expected values come from the
rulebook lines cited in each test, not from running the model.
"""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

import model

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "spec" / "kadabra.yaml"
SITUATIONS = Path(__file__).resolve().parent / "situations" / "kadabra"


def doc(name: str) -> dict:
    return yaml.safe_load((SITUATIONS / f"{name}.yaml").read_text(encoding="utf-8"))


def state_of(data: dict, variants: dict[str, str] | None = None):
    game = model.load(str(SPEC), players=data["players"], variants=variants)
    return game.state_from_dict(data, "test")


def situation(name: str, variants: dict[str, str] | None = None):
    return state_of(doc(name), variants)


def legal(state) -> list[str]:
    return [str(a) for a in state.legal_actions()]


def do(state, *actions: str):
    for text in actions:
        state = state.apply(state.game.parse_action(text))
    return state


def zones(state) -> dict:
    return state.to_dict()["zones"]


def var(state, name: str):
    return state.to_dict()["vars"][name]


# ------------------------------------------------------------------ the deck


def test_deck_and_tokens():
    """kadabra.en#L6-L7: 60 cards and 70 tokens, split as the contents list says."""
    game = model.load(str(SPEC), players=4)
    cards = [k for k in game.ir.kinds if k.item_class == "cards"]
    by_values: dict[tuple, int] = {}
    for k in cards:
        key = ("llama",) if k.attrs["llama"] else k.attrs["values"]
        by_values[key] = by_values.get(key, 0) + k.copies
    assert by_values == {(1,): 8, (2,): 7, (3,): 7, (4,): 7, (5,): 7, (6,): 8, (2, 3): 2,
                         (4, 5): 2, ("llama",): 12}
    assert sum(k.copies for k in cards) == 60
    tokens = {k.name: (k.copies, k.attrs["value"]) for k in game.ir.kinds
              if k.item_class == "tokens"}
    assert tokens == {"white": (49, 1), "black": (20, 10), "magic": (1, 0)}


def test_icon_counts_follow_the_variant():
    """The icon split is an assumption (README); its counts are params."""
    game = model.load(str(SPEC), players=4, variants={"icon_distribution": "on_llamas"})
    copies = {k.name: k.copies for k in game.ir.kinds}
    assert copies["6"] == 8 and copies["6-square"] == 0 and copies["6-star"] == 0
    assert copies["llama"] == 8 and copies["llama-square"] == 2 and copies["llama-star"] == 2
    half = model.load(str(SPEC), players=4, variants={"icon_distribution": "half_the_ones"})
    copies = {k.name: k.copies for k in half.ir.kinds}
    assert copies["1"] == 4 and copies["1-circle"] == 4


def test_set_up_gives_three_white_tokens_each():
    """kadabra.en#L10-L12: six cards each, one card turned up, three white tokens each."""
    for n in (2, 6):
        game = model.load(str(SPEC), players=n)
        s = game.initial_state(7)
        z = zones(s)
        assert all(sum(h.values()) == 6 for h in z["hand"])
        assert len(z["discard"]) == 1
        assert z["chips"] == [{"white": 3}] * n
        assert z["stage"] == {}
        assert s.scores == (3,) * n


# ------------------------------------------------------- playing, double cards

HAND = ["1-circle", "2", "3", "4", "5", "2/3", "4/5", "6", "llama"]
# kadabra.en#L21-L23 and L31: same value or one higher; a llama on a 6 or a llama; a
# llama or a 1 on a llama; a double card counts as either of its values, both when it
# is played and when it lies on top.
FOLLOWS = {
    "1-circle": {"1-circle", "2", "2/3"},
    "2": {"2", "3", "2/3"},
    "3": {"3", "4", "2/3", "4/5"},
    "4": {"4", "5", "4/5"},
    "5": {"5", "6", "4/5"},
    "6": {"6", "llama"},
    "llama": {"llama", "1-circle"},
    "2/3": {"2", "3", "4", "2/3", "4/5"},
    "4/5": {"4", "5", "6", "4/5"},
}


@pytest.mark.parametrize("top", list(FOLLOWS))
def test_what_may_follow(top):
    data = doc("follow")
    data["zones"]["discard"] = [top]  # taken from the stock ("rest")
    s = state_of(data)
    plays = {a.split(" ", 1)[1] for a in legal(s) if a.startswith("play ")}
    assert plays == FOLLOWS[top]


def test_double_card_on_top_lets_the_next_player_follow_either_value():
    """kadabra.en#L31: after a 2/3, the next player may play a 2, 3 or 4."""
    data = doc("follow")
    data["zones"]["discard"] = ["2"]
    data["zones"]["hand"][1] = {"4": 1, "5": 1}
    s = do(state_of(data), "play 2/3")
    assert s.active_player == 1
    assert legal(s)[0] == "play 4"
    assert "play 5" not in legal(s)


# -------------------------------------------------------------- the circle


def test_circle_gives_a_lowest_token_to_a_player_still_in():
    """kadabra.en#L34: one of your lowest-value tokens, to a player not dropped out."""
    s = situation("circle")
    assert "play 1-circle" in legal(s)
    s = do(s, "play 1-circle")
    assert legal(s) == ["give 1", "give 3"]  # not to yourself, not to player 2 (out)
    s = do(s, "give 3")
    z = zones(s)
    assert z["chips"][0] == {"white": 1, "black": 1}
    assert z["chips"][3] == {"white": 4}
    assert s.active_player == 1


def test_circle_gives_a_ten_when_no_one_is_held():
    data = doc("circle")
    data["zones"]["chips"][0] = {"black": 2, "magic": 1}
    s = do(state_of(data), "play 1-circle", "give 1")
    assert zones(s)["chips"][0] == {"black": 1, "magic": 1}
    assert zones(s)["chips"][1] == {"white": 3, "black": 1}


def test_circle_gives_the_magic_token_only_when_it_is_all_you_have():
    """kadabra.en#L34: with only the magic token, you must give it away."""
    data = doc("circle")
    data["zones"]["chips"][0] = {"magic": 1}
    s = do(state_of(data), "play 1-circle")
    assert legal(s) == ["give 1", "give 3"]
    s = do(s, "give 1")
    assert zones(s)["chips"][0] == {}
    assert zones(s)["chips"][1] == {"white": 3, "magic": 1}


def test_circle_without_tokens_does_nothing():
    """kadabra.en#L34: no token, no action; the turn passes."""
    data = doc("circle")
    data["zones"]["chips"][0] = {}
    s = do(state_of(data), "play 1-circle")
    assert var(s, "phase") == "play"
    assert s.active_player == 1


def test_circle_when_everyone_else_is_out_does_nothing():
    """kadabra.en#L34: if everyone else has dropped out, the action does not apply."""
    data = doc("circle")
    data["vars"]["quit"] = [False, True, True, True]
    for p in (1, 3):
        data["zones"]["out"][p] = data["zones"]["hand"][p]
        data["zones"]["hand"][p] = {}
    s = do(state_of(data), "play 1-circle")
    assert var(s, "phase") == "play"
    assert zones(s)["chips"][0] == {"white": 2, "black": 1}
    assert s.active_player == 0


def test_circle_may_go_to_yourself_in_the_variant():
    s = do(situation("circle", {"give_away_target": "self_allowed"}), "play 1-circle")
    assert legal(s) == ["give 0", "give 1", "give 3"]


# -------------------------------------------------------------- the square


def test_square_makes_the_next_player_still_in_draw_then_play():
    """kadabra.en#L36: the first player to the left still in draws; then it is their turn."""
    s = situation("square")
    before = len(zones(s)["stock"])
    s = do(s, "play 6-square")
    z = zones(s)
    assert z["hand"][2] == {"3": 1, "llama": 1}  # the stock's top card is a llama
    assert z["hand"][1] == {} and z["out"][1] == {"2": 1}  # player 1 is out: skipped
    assert len(z["stock"]) == before - 1
    assert s.active_player == 2
    assert "draw" in legal(s)  # an ordinary turn


def test_square_with_an_empty_stock_does_nothing():
    """kadabra.en#L36: no card left to draw, no action."""
    s = do(situation("square_empty_stock"), "play 6-square")
    z = zones(s)
    assert z["hand"][1] == {"3": 1}
    assert z["hand"][0] == {"2": 1}
    assert s.active_player == 1


def test_square_when_alone_draws_yourself():
    """kadabra.en#L36, L52: alone in the round, you draw the card yourself."""
    s = situation("alone")
    s = do(s, "play 6-square")
    assert zones(s)["hand"][0] == {"2": 1, "5": 1, "llama": 1}
    assert s.active_player == 0


def test_square_as_last_card_still_makes_the_next_player_draw():
    """kadabra.en#L53: the action is carried out on the last card, then the round ends."""
    data = doc("square")
    data["zones"]["hand"][0] = {"6-square": 1}
    data["zones"]["hand"][3] = {"4": 1, "2": 1}
    s = do(state_of(data), "play 6-square")
    assert var(s, "phase") == "return"  # player 0 went out and holds tokens
    s = do(s, "keep tokens")
    # round over: player 2 is scored for the llama drawn (10) and the 3 (3)
    assert s.round == 2
    assert s.scores == (3, 3 + 2, 3 + 3 + 10, 3 + 4 + 2)


# ---------------------------------------------------------------- the star


def test_star_takes_the_magic_token_from_another_player():
    """kadabra.en#L38: the magic token, wherever it is."""
    s = do(situation("star"), "play 6-star")
    z = zones(s)
    assert z["chips"][0] == {"white": 3, "magic": 1}
    assert z["chips"][2] == {"white": 2}


def test_star_takes_the_magic_token_from_the_stage():
    data = doc("star")
    data["zones"]["chips"][2] = {"white": 2}
    data["zones"]["stage"] = {"white": 4, "magic": 1}
    s = do(state_of(data), "play 6-star")
    assert zones(s)["chips"][0] == {"white": 3, "magic": 1}
    assert zones(s)["stage"] == {"white": 4}


def test_star_takes_the_magic_token_from_the_pool_and_a_player_who_is_out():
    data = doc("star")
    data["zones"]["chips"][2] = {"white": 2}
    s = do(state_of(data), "play 6-star")
    assert zones(s)["chips"][0] == {"white": 3, "magic": 1}
    assert "magic" not in zones(s)["pool"]
    data = doc("star")
    data["vars"] = {"quit": [False, False, True]}
    data["zones"]["out"] = [{}, {}, {"4": 1}]
    data["zones"]["hand"][2] = {}
    s = do(state_of(data), "play 6-star")
    assert zones(s)["chips"] == [{"white": 3, "magic": 1}, {"white": 3}, {"white": 2}]


def test_star_on_the_last_card_leaves_you_holding_the_magic_token():
    """kadabra.en#L53, L57: the star is carried out on the last card; the token then
    costs its holder 10 points."""
    data = doc("star")
    data["zones"]["hand"][0] = {"6-star": 1}
    s = do(state_of(data), "play 6-star")
    assert zones(s)["chips"][0] == {"white": 3, "magic": 1}
    assert legal(s) == ["return white", "keep tokens"]  # not the magic token
    s = do(s, "keep tokens")
    assert s.round == 2
    assert s.scores == (3 + 10, 3 + 3, 2 + 4)


# ------------------------------------------------------- the magic token


def test_magic_token_skips_a_turn():
    """kadabra.en#L40-L41: return it to the pool instead of a turn."""
    s = situation("magic_token")
    assert legal(s) == ["draw", "quit", "skip"]
    s = do(s, "skip")
    assert zones(s)["chips"][0] == {"white": 3}
    assert zones(s)["pool"]["magic"] == 1
    assert zones(s)["hand"][0] == {"2": 1, "3": 1}
    assert s.active_player == 1


def test_magic_token_costs_ten_at_the_round_end_and_double_cards_count_both_values():
    """kadabra.en#L55-L57: each value once, a double card both values, llamas 10 once,
    the magic token 10 and back to the pool."""
    s = situation("last_card")
    s = do(s, "play 3")
    assert legal(s) == ["return white", "return black", "keep tokens"]
    s = do(s, "return black")
    assert s.round == 2
    # player 0 went out: 12 - 10 returned; player 1: 5, 2/3 and 2 give 2+3+5 = 10, plus
    # the magic token 10, plus 3 held; player 2: two llamas 10 once, 6, plus 3 held.
    assert s.scores == (2, 3 + 10 + 10, 3 + 10 + 6)
    z = zones(s)
    assert all("magic" not in c for c in z["chips"])
    assert z["pool"]["magic"] == 1
    assert s.active_player == 0  # the player who took the last action starts


def test_double_cards_scored_separately_in_the_variant():
    s = situation("last_card", {"double_card_scoring": "separate"})
    s = do(s, "play 3", "keep tokens")
    # 2/3 adds 5 on top of the single 2 and 5
    assert s.scores[1] == 3 + (2 + 5) + 5 + 10


def test_magic_token_cannot_be_the_returned_token():
    """kadabra.en#L61: a 1 or a 10 goes back; the magic token keeps its 10 points."""
    data = doc("last_card")
    data["zones"]["chips"][0] = {"white": 2, "magic": 1}
    data["zones"]["chips"][1] = {"white": 3}
    s = do(state_of(data), "play 3")
    assert legal(s) == ["return white", "keep tokens"]
    s = do(s, "return white")
    assert s.scores[0] == 1 + 10


def test_no_skip_when_alone():
    """kadabra.en#L52: alone, no drawing and no giving away the magic token."""
    s = situation("alone")
    assert legal(s) == ["play 5", "play 6-square", "quit"]


def test_skip_when_alone_in_the_variant():
    s = situation("alone", {"alone_magic_token": "circle_only"})
    assert "skip" in legal(s)
    assert "draw" not in legal(s)


def test_alone_you_play_on_until_you_drop_out():
    """kadabra.en#L52: the lone player keeps playing; dropping out ends the round."""
    s = do(situation("alone"), "play 5")
    assert s.active_player == 0 and s.round == 1
    assert legal(s) == ["play 6-square", "quit"]
    s = do(s, "quit")
    assert s.round == 2
    assert s.active_player == 0  # the last to drop out took the last action


def test_quitting_lays_the_hand_down_and_takes_the_player_out_of_turn():
    """kadabra.en#L28: the cards go face down in front of you; you are out of the round."""
    s = do(situation("magic_token"), "quit")
    z = zones(s)
    assert z["hand"][0] == {} and z["out"][0] == {"2": 1, "3": 1}
    assert var(s, "quit") == [True, False, False]
    assert s.active_player == 1
    s = do(s, "draw", "draw")
    assert s.active_player == 1  # player 0 is skipped


# --------------------------------------------------------- the magic show


def test_llama_puts_a_lowest_token_on_the_stage_and_starts_the_show():
    """kadabra.en#L44-L46: a llama sends a lowest token to the stage; at 5 the show runs."""
    s = do(situation("show"), "play llama")
    z = zones(s)
    assert z["chips"][0] == {"white": 1, "black": 1}
    assert z["stage"] == {"white": 4, "black": 1}
    assert var(s, "show_on") is True
    assert s.active_player == 1
    # in the show: play a llama or collect; no drawing, no dropping out
    assert legal(s) == ["play llama", "collect"]


def test_show_continues_with_a_llama_and_ends_when_collected():
    """kadabra.en#L46-L47: each llama adds a token; collecting takes the whole stage,
    ends the show, and the collector then takes a normal turn."""
    s = do(situation("show"), "play llama", "play llama")
    assert zones(s)["stage"] == {"white": 5, "black": 1}
    assert zones(s)["chips"][1] == {"black": 1}
    assert s.active_player == 2
    assert legal(s) == ["collect"]  # player 2 has no llama
    s = do(s, "collect")
    assert zones(s)["chips"][2] == {"white": 8, "black": 1}
    assert zones(s)["stage"] == {}
    assert var(s, "show_on") is False
    assert s.active_player == 2
    assert legal(s) == ["draw", "quit"]  # a 5 cannot go on the llama


def test_llama_with_no_token_adds_nothing():
    """kadabra.en#L44: only with at least one token."""
    data = doc("show")
    data["zones"]["chips"][0] = {}
    s = do(state_of(data), "play llama")
    assert zones(s)["stage"] == {"white": 3, "black": 1}
    assert var(s, "show_on") is False
    assert legal(s) == ["play llama", "draw", "quit"]  # only a llama or a 1 on a llama


def test_skip_during_the_show_passes_it_on():
    """kadabra.en#L41: returning the magic token in a show; the show goes on with the
    next player still in the round."""
    s = situation("show_running")
    assert legal(s) == ["skip", "collect"]
    s = do(s, "skip")
    assert s.active_player == 2  # player 1 has dropped out
    assert var(s, "show_on") is True
    assert zones(s)["stage"] == {"white": 5, "black": 1}
    assert legal(s) == ["play llama", "collect"]


def test_llama_as_last_card_ends_the_show_without_a_collector():
    """kadabra.en#L53: the show ends, nobody collects, the stage keeps its tokens."""
    s = do(situation("show_last_llama"), "play llama")
    assert zones(s)["stage"] == {"white": 5, "black": 1}
    s = do(s, "keep tokens")
    assert s.round == 2
    z = zones(s)
    assert z["stage"] == {"white": 5, "black": 1}  # tokens stay between rounds
    assert var(s, "show_on") is False
    # nobody collected: player 0 scores 2, player 1 nothing, player 2 4+5+4 once
    assert s.scores == (3 + 2, 10 + 1, 3 + 4 + 5)
    assert s.active_player == 1


def test_a_carried_over_stage_waits_for_a_llama():
    """kadabra.en#L62: with 5 or more tokens left on the stage, the show starts only
    after a llama is played."""
    s = situation("stage_carried_over")
    assert "collect" not in legal(s)
    assert "draw" in legal(s)
    s = do(s, "play llama")  # player 0 has no token to add
    assert zones(s)["stage"] == {"white": 6}
    assert var(s, "show_on") is True
    assert legal(s) == ["play llama", "collect"]


def test_a_carried_over_stage_starts_the_show_at_once_in_the_variant():
    s = situation("stage_carried_over", {"show_activation": "count_only"})
    # a situation does not rerun the round start; play the round out to see the next
    s = do(s, "quit", "quit", "quit")
    assert s.round == 3
    assert var(s, "show_on") is True
    assert "collect" in legal(s)


# -------------------------------------------------------- round end, scoring


def test_circle_on_the_last_card_is_carried_out_before_the_round_ends():
    """kadabra.en#L53: the special action on the last card, then the end."""
    data = doc("circle")
    data["zones"]["hand"][0] = {"1-circle": 1}
    data["zones"]["hand"][3] = {"4": 1, "5": 1}
    s = do(state_of(data), "play 1-circle")
    assert var(s, "phase") == "give"
    s = do(s, "give 1", "return black")
    assert s.round == 2
    assert s.scores[0] == 1  # a white given away, the black returned
    assert s.scores[1] == 3 + 1 + 3  # the white given, then the 3s


def test_exchange_ten_whites_for_a_black_during_the_round():
    """kadabra.en#L59: ten 1s for a 10 at any time; then the black is the one given."""
    s = situation("exchange")
    assert "exchange" in legal(s)
    s = do(s, "exchange")
    assert zones(s)["chips"][0] == {"white": 2, "black": 1}
    assert s.active_player == 0  # the turn goes on
    s = do(s, "play 1-circle", "give 1")
    assert zones(s)["chips"][1] == {"white": 4}
    data = doc("exchange")
    data["zones"]["chips"][0] = {"white": 10}
    s = do(state_of(data), "exchange", "play 1-circle", "give 2")
    assert zones(s)["chips"][0] == {}
    assert zones(s)["chips"][2] == {"white": 3, "black": 1}


def test_forty_points_end_the_game_and_the_lowest_wins():
    """kadabra.en#L64: a round ending with someone at 40 or more ends the game."""
    s = do(situation("forty"), "play 5", "keep tokens")
    assert s.is_terminal
    assert s.scores == (3, 35 + 6, 7 + 2)
    assert s.winners == (0,)


def test_under_forty_the_game_goes_on():
    data = doc("forty")
    data["zones"]["hand"][1] = {"2": 1}
    data["zones"]["hand"][2] = {"6": 1}
    s = do(state_of(data), "play 5", "keep tokens")
    assert not s.is_terminal
    assert s.scores == (3, 37, 13)


def test_tokens_owed_when_the_pool_runs_dry():
    data = copy.deepcopy(doc("forty"))
    # every white token is held; a score of 6 must come from the pool
    data["zones"]["chips"] = [{"white": 3}, {"white": 40}, {"white": 6}]
    s = do(state_of(data), "play 5", "keep tokens")
    assert s.scores[1] == 46
    assert var(s, "unpaid")[1] == 6
