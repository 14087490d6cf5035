"""Situation tests for spec/lambada.yaml (rulebook lambada.en).

Every expected value below is worked out from the rulebook text (and, where the text is
silent, from the ambiguity's named default or variant), not copied from the model's output.
Board positions count from 0 along the word: 0 L, 1 A, 2 M, 3 B, 4 A, 5 D, 6 A; actions
name them L, A1, M, B, A2, D, A3 (the spec's position names). Seats are
clockwise, so a player's left neighbour is the next seat.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml

import model
from model import IllegalAction
from properties.concrete.playout import Limits, play_and_check

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "spec" / "lambada.yaml"
SITUATIONS = Path(__file__).resolve().parent / "situations" / "lambada"


def situation(name: str, variants: dict[str, str] | None = None, zones: dict | None = None,
              **vars_: object):
    """The situation file `name`, loaded for its player count, with zones and variables
    overridden."""
    data = yaml.safe_load((SITUATIONS / f"{name}.yaml").read_text(encoding="utf-8"))
    data.setdefault("vars", {}).update(vars_)
    data.setdefault("zones", {}).update(zones or {})
    game = model.load(SPEC, players=data["players"], variants=variants)
    return game.state_from_dict(data, where=name)


def do(state, *actions: str):
    for text in actions:
        state = state.apply(state.game.parse_action(text))
    return state


def legal(state) -> set[str]:
    return {str(a) for a in state.legal_actions()}


def zones(state) -> dict:
    return state.to_dict()["zones"]


def hand(state, p: int) -> Counter:
    return Counter(zones(state)["hand"][p])


def board(state) -> list[list[str]]:
    return zones(state)["board"]


def draw(state) -> list[str]:
    return zones(state)["draw"]


def var(state, name: str):
    return state.to_dict()["vars"][name]


# --------------------------------------------------------------------- a turn
def test_a_card_goes_only_on_a_position_with_its_letter():
    s = situation("turn")
    # L16-L17: the letter must match; the three A positions all take an A; the colour is free.
    assert legal(s) == {
        "play blue_A on A1", "play blue_A on A2", "play blue_A on A3",
        "play green_A on A1", "play green_A on A2", "play green_A on A3",
        "play yellow_B on B", "play orange_M on M", "play red_D on D",
    }
    with pytest.raises(IllegalAction):
        do(s, "play yellow_B on M")
    with pytest.raises(IllegalAction):
        do(s, "pass yellow_B")


def test_matching_colour_passes_one_card_to_the_left():
    s = situation("turn")
    # blue shows on position 0 and red, not blue, is forbidden: scenario 1 (L20, L22).
    s = do(s, "play blue_A on A2")
    assert board(s)[4] == ["orange_A", "blue_A"]
    assert var(s, "outcome") == "match"
    assert s.active_player == 0  # still player 0: now the card to pass
    assert legal(s) == {"pass green_A", "pass yellow_B", "pass orange_M", "pass red_D"}
    s = do(s, "pass yellow_B")
    assert hand(s, 0) == Counter({"green_A": 1, "orange_M": 1, "red_D": 1})
    assert hand(s, 1) == Counter({"purple_A": 1, "pink_L": 1, "yellow_B": 1})
    assert len(draw(s)) == 4  # nobody drew
    assert s.active_player == 1


def test_another_matching_colour_also_passes():
    s = do(situation("turn"), "play orange_M on M")  # orange shows on position 4
    assert var(s, "phase") == "pass"
    assert board(s)[2] == ["red_M", "orange_M"]


def test_colour_not_showing_draws_one():
    s = situation("turn")
    s = do(s, "play yellow_B on B")  # no yellow shows and yellow is not forbidden (L27)
    assert var(s, "outcome") == "new_colour"
    assert board(s)[3] == ["yellow_B"]
    assert hand(s, 0) == Counter({"blue_A": 1, "green_A": 1, "orange_M": 1, "red_D": 1, "red_B": 1})
    assert draw(s) == ["pink_B", "green_B", "yellow_L"]  # the top card was drawn
    assert s.active_player == 1  # no pass: the turn is over


def test_forbidden_colour_draws_three_even_when_the_colour_shows():
    s = situation("turn")
    # red shows twice, but red is the draw pile's top colour (L30, L39): draw three, no pass.
    s = do(s, "play red_D on D")
    assert var(s, "outcome") == "forbidden"
    assert hand(s, 0) == Counter({"blue_A": 1, "green_A": 1, "yellow_B": 1, "orange_M": 1,
                                  "red_B": 1, "yellow_L": 1, "green_B": 1})
    assert draw(s) == ["pink_B"]  # the new top: pink is now forbidden (L39)
    assert s.active_player == 1


def test_fifth_colour_draws_three_and_passes_nothing():
    s = situation("fifth")
    s = do(s, "play purple_D on D")  # a fifth purple shows (L24)
    assert var(s, "outcome") == "fifth"
    assert hand(s, 0) == Counter({"purple_A": 2, "blue_A": 1, "orange_B": 1, "pink_B": 1,
                                  "yellow_B": 1})
    assert draw(s) == ["blue_B"]
    assert s.active_player == 1
    s = do(situation("fifth"), "play purple_A on A2")  # on a grey card: also the fifth purple
    assert var(s, "outcome") == "fifth"
    assert sum(hand(s, 0).values()) == 6


def test_covering_a_purple_with_a_purple_keeps_four_and_matches():
    s = do(situation("fifth"), "play purple_A on A1")
    assert var(s, "outcome") == "match"  # still four purples: an ordinary match
    assert var(s, "phase") == "pass"


def test_forbidden_and_fifth_at_once_cost_three_not_six():
    s = situation("fifth_forbidden")  # purple is forbidden and four purples show
    s = do(s, "play purple_D on D")
    # L41: only the worst penalty, and both are three cards.
    assert sum(hand(s, 0).values()) == 3 - 1 + 3
    assert draw(s) == ["blue_B"]
    assert s.active_player == 1


@pytest.mark.parametrize(("variant", "outcome", "cards"), [
    (None, "fifth", 1 + 3),  # the default reading
    ("at_least_five", "fifth", 1 + 3),  # five purples still show after the play
    ("must_rise", "match", 1),  # the count did not rise: a match, and a card to pass
])
def test_five_already_showing(variant, outcome, cards):
    s = situation("five_showing", variant and {"fifth_colour_count": variant})
    s = do(s, "play purple_A on A1")
    assert var(s, "outcome") == outcome
    assert sum(hand(s, 0).values()) == cards


@pytest.mark.parametrize(("variant", "outcome", "phase", "cards"), [
    (None, "match", "pass", 1),  # the default reading
    ("including_covered", "match", "pass", 1),
    ("excluding_covered", "new_colour", "play", 2),
])
def test_covering_the_only_card_of_a_colour(variant, outcome, phase, cards):
    s = situation("covered_colour", variant and {"colour_already_showing": variant})
    s = do(s, "play blue_A on A1")
    assert var(s, "outcome") == outcome
    assert var(s, "phase") == phase
    assert sum(hand(s, 0).values()) == cards


# ---------------------------------------------------------------- draw pile
def test_empty_draw_pile_is_rebuilt_from_under_the_top_layer():
    s = situation("reshuffle")  # draw pile [green_A, orange_A]: orange forbidden
    s = do(s, "play orange_D on D")
    # Two cards come off the pile, then L43: the cards under the top layer (red A and blue A
    # under the pink A, green M under the yellow M) are shuffled into a new pile, and the third
    # card comes from it.
    b = board(s)
    assert b == [["blue_L"], ["pink_A"], ["yellow_M"], ["orange_B"], [], ["orange_D"], []]
    h = hand(s, 0)
    assert sum(h.values()) == 1 + 3
    assert h["purple_A"] == 1 and h["orange_A"] == 1 and h["green_A"] == 1
    third = h - Counter({"purple_A": 1, "orange_A": 1, "green_A": 1})
    assert Counter(draw(s)) + third == Counter({"red_A": 1, "blue_A": 1, "green_M": 1})
    assert len(draw(s)) == 2


def test_short_pile_draw_available_variant():
    s = situation("reshuffle", {"draw_three_from_short_pile": "draw_available"})
    s = do(s, "play orange_D on D")
    assert hand(s, 0) == Counter({"purple_A": 1, "orange_A": 1, "green_A": 1})
    assert Counter(draw(s)) == Counter({"red_A": 1, "blue_A": 1, "green_M": 1})  # rebuilt after


@pytest.mark.parametrize(("variant", "pile"), [
    (None, {"red_A": 1, "blue_A": 1}),
    ("immediately", {"red_A": 1, "blue_A": 1}),
    ("on_next_draw", {}),
])
def test_refill_timing(variant, pile):
    s = situation("refill_timing", variant and {"refill_timing": variant})
    s = do(s, "play yellow_D on D")  # a new colour: draw the last card of the pile
    assert hand(s, 0) == Counter({"purple_A": 1, "orange_A": 1})
    assert Counter(draw(s)) == Counter(pile)
    under = [] if pile else ["red_A", "blue_A"]  # rebuilt now, or left for the next draw
    assert board(s)[1] == [*under, "pink_A"]


def test_nothing_under_the_top_layer_skips_the_draws():
    s = situation("nothing_under")
    s = do(s, "play orange_D on D")  # forbidden: one card is there, then nothing to rebuild
    assert hand(s, 0) == Counter({"purple_A": 1, "orange_A": 1})
    assert draw(s) == []
    assert s.round == 1 and s.active_player == 1


def test_nothing_under_the_top_layer_round_void_variant():
    s = situation("nothing_under", {"nothing_under_top_layer": "round_void"})
    s = do(s, "play orange_D on D")
    assert s.round == 2
    assert s.scores == (0, 0, 0, 0)
    assert zones(s)["supply"] == {"victory": 8}
    assert s.active_player == 2  # the round's starter starts again


@pytest.mark.parametrize(("variant", "outcome"), [
    (None, "match"), ("none", "match"), ("last_top", "forbidden")])
def test_forbidden_colour_with_an_empty_draw_pile(variant, outcome):
    s = situation("empty_draw_forbidden", variant and {"forbidden_when_draw_empty": variant})
    s = do(s, "play orange_D on D")  # orange shows on position 3
    assert var(s, "outcome") == outcome


def test_a_player_without_cards_is_skipped_until_a_card_is_passed_to_them():
    s = do(situation("skip"), "play yellow_D on D")  # new colour, draw one
    assert s.active_player == 2  # player 1 holds nothing
    s = do(situation("skip"), "play blue_A on A1", "pass green_A")  # the pass goes to player 1
    assert hand(s, 1) == Counter({"green_A": 1})
    assert s.active_player == 1


# ------------------------------------------------------------ end of a round
def test_win_by_playing_the_last_card():
    s = situation("last_card_win")
    s = do(s, "play blue_A on A2")  # blue shows, not forbidden, and no grey card is left (L33)
    assert s.round == 2
    assert s.scores == (1, 0, 0, 0)
    assert zones(s)["won"][0] == {"victory": 1}
    assert zones(s)["supply"] == {"victory": 7}
    assert s.active_player == 0  # the winner starts the next round (L35)
    # the next round is set up afresh (L34): seven cards each, two on the word
    assert all(sum(hand(s, p).values()) == 7 for p in range(4))
    assert sum(1 for pile in board(s) if pile) == 2


def test_failed_win_grey_card_still_showing():
    s = situation("last_card_win")
    s = do(s, "play blue_A on A1")  # a match, but position 4 is still grey (L40)
    assert s.round == 1
    assert hand(s, 0) == Counter({"orange_L": 1})
    assert s.active_player == 1


def test_failed_win_last_card_not_following_a_colour():
    s = situation("last_card_new_colour")
    s = do(s, "play purple_A on A2")  # every grey card covered, but purple shows nowhere (L40)
    assert s.round == 1
    assert hand(s, 0) == Counter({"orange_L": 1})  # one card, not 1 + 1 (L41)
    assert s.active_player == 1


def test_last_card_of_the_forbidden_colour_draws_three():
    s = situation("last_card_forbidden")
    s = do(s, "play orange_A on A2")
    assert s.round == 1
    assert hand(s, 0) == Counter({"orange_L": 1, "purple_L": 1, "purple_B": 1})  # 3, not 4


def test_win_by_passing_the_last_card():
    s = situation("pass_last")
    s = do(s, "play blue_A on A2")
    assert s.round == 1 and var(s, "phase") == "pass"
    s = do(s, "pass green_D")  # the hand is empty and every grey card is covered (L33)
    assert s.round == 2
    assert s.scores == (1, 0, 0, 0)
    assert s.active_player == 0


def test_passing_the_last_card_with_grey_showing_draws_one():
    s = do(situation("pass_last_grey"), "play blue_A on A2", "pass green_D")
    assert s.round == 1
    assert hand(s, 1)["green_D"] == 1
    assert hand(s, 0) == Counter({"orange_L": 1})  # default pass_last_card: draw_one
    assert s.active_player == 1


def test_passing_the_last_card_no_draw_variant():
    s = situation("pass_last_grey", {"pass_last_card": "no_draw"})
    s = do(s, "play blue_A on A2", "pass green_D")
    assert s.round == 1
    assert hand(s, 0) == Counter()
    assert s.active_player == 1


def test_passing_the_last_card_with_nothing_to_draw_anywhere():
    # The draw pile is empty and nothing lies under the top cards (L43 has nothing to
    # rebuild it from): the draw that passing the last card costs (L40) does not happen.
    s = do(situation("pass_last_nothing_under"), "play blue_A on A2")
    assert var(s, "phase") == "pass"
    s = do(s, "pass green_D")
    assert s.round == 1
    assert hand(s, 0) == Counter() and hand(s, 1)["green_D"] == 1
    assert draw(s) == []
    assert s.active_player == 1


def test_passing_the_last_card_with_nothing_to_draw_round_void_variant():
    s = situation("pass_last_nothing_under", {"nothing_under_top_layer": "round_void"})
    s = do(s, "play blue_A on A2", "pass green_D")
    assert s.round == 2
    assert s.scores == (0, 0, 0, 0)
    assert s.active_player == 2  # the round's starter starts again


# ----------------------------------------------------------------- the match
def test_match_end_with_four_players_needs_three_wins():
    s = do(situation("match_end_4"), "play blue_A on A2")
    assert s.is_terminal
    assert s.scores == (3, 1, 2, 0)
    assert s.winners == (0,)


def test_two_wins_do_not_end_a_four_player_match():
    tokens = {"won": [{"victory": 1}, {"victory": 1}, {"victory": 2}, {}],
              "supply": {"victory": 4}}  # a token per win (L33)
    s = do(situation("match_end_4", zones=tokens, wins=[1, 1, 2, 0]), "play blue_A on A2")
    assert not s.is_terminal
    assert s.scores == (2, 1, 2, 0)
    assert s.round == 7 and s.active_player == 0


def test_match_end_with_five_players_needs_two_wins():
    s = do(situation("match_end_5"), "play blue_A on A2")
    assert s.is_terminal
    assert s.scores == (2, 0, 1, 0, 0)
    assert s.winners == (0,)


def test_a_win_without_a_token_left_counts_by_default():
    s = do(situation("token_shortage"), "play blue_A on A2")
    assert s.is_terminal and s.winners == (0,)
    assert zones(s)["won"][0] == {"victory": 2}  # no ninth token


def test_a_win_without_a_token_left_token_needed_variant():
    s = situation("token_shortage", {"victory_token_shortage": "token_needed"})
    s = do(s, "play blue_A on A2")
    assert not s.is_terminal
    assert s.scores == (2, 2, 2, 2)
    assert s.round == 10


# -------------------------------------------------------------------- set-up
class Arranged:
    """A chance that puts named cards on top of the pile it shuffles (after the deal)."""

    def __init__(self, game, players: int, *tops: list[str]):
        self.names = game.kind_names
        self.players = players
        self.tops = list(tops)
        self.calls = 0

    def shuffle(self, pile: list[int]) -> None:
        want = [self.names.index(n) for n in self.tops[self.calls]]
        rest = list(pile)
        for k in want:
            rest.remove(k)
        if self.calls == 0:  # keep the cards later shuffles name out of the deal
            later = [self.names.index(n) for top in self.tops[1:] for n in top]
            for k in later:
                rest.remove(k)
            rest = later + rest
        dealt = self.players * 7 if self.calls == 0 else 0
        head = rest[len(rest) - dealt:] if dealt else []
        body = rest[:len(rest) - dealt]
        pile[:] = body + list(reversed(want)) + head
        self.calls += 1


def setup_with(players: int, variants: dict[str, str] | None, *tops: list[str]):
    game = model.load(SPEC, players=players, variants=variants)
    chance = Arranged(game, players, *tops)
    return game.initial_state(0, chance=chance), chance


def test_setup_places_two_cards_of_different_colours_and_letters():
    for players in range(2, 7):
        game = model.load(SPEC, players=players)
        for seed in range(40):
            s = game.initial_state(seed)
            shown = [(q, pile[-1]) for q, pile in enumerate(board(s)) if pile]
            assert len(shown) == 2
            (q1, c1), (q2, c2) = shown
            letters = "LAMBADA"
            assert c1.endswith("_" + letters[q1]) and c2.endswith("_" + letters[q2])
            assert c1.split("_")[0] != c2.split("_")[0]  # two colours
            assert all(sum(hand(s, p).values()) == 7 for p in range(players))
            assert len(draw(s)) == 56 - 7 * players - 2


def test_setup_redraws_a_second_card_of_the_same_colour():
    s, chance = setup_with(4, None, ["red_L", "red_M"], ["red_A"], ["blue_M"])
    # red M repeats the colour: back in, reshuffle; red A again; then blue M is fine.
    assert chance.calls == 3
    assert board(s)[0] == ["red_L"] and board(s)[2] == ["blue_M"]
    assert sum(1 for pile in board(s) if pile) == 2
    assert {"red_M", "red_A"} <= set(draw(s))


def test_setup_redraws_a_second_card_with_no_free_position():
    s, chance = setup_with(3, None, ["blue_L", "red_L"], ["green_D"])
    assert chance.calls == 2
    assert board(s)[0] == ["blue_L"] and board(s)[5] == ["green_D"]


def test_setup_two_as_of_different_colours_are_fine():
    s, chance = setup_with(2, None, ["green_A", "blue_A"])
    assert chance.calls == 1
    assert board(s)[1] == ["green_A"] and board(s)[4] == ["blue_A"]  # leftmost free A


def test_setup_two_identical_as_are_replaced():
    s, chance = setup_with(2, None, ["green_A", "green_A"], ["pink_B"])
    assert chance.calls == 2
    assert board(s)[1] == ["green_A"] and board(s)[3] == ["pink_B"]


def test_setup_identical_only_variant_accepts_one_colour_twice():
    s, chance = setup_with(4, {"setup_clash": "identical_only"}, ["red_L", "red_M"])
    assert chance.calls == 1
    assert board(s)[0] == ["red_L"] and board(s)[2] == ["red_M"]


def test_setup_replace_both_variant():
    s, chance = setup_with(4, {"setup_replacement": "both"}, ["red_L", "red_M"],
                           ["blue_M", "green_A"])
    assert chance.calls == 2
    assert board(s)[0] == [] and board(s)[2] == ["blue_M"] and board(s)[1] == ["green_A"]


def test_setup_rightmost_a_variant():
    s, _ = setup_with(2, {"setup_a_placement": "rightmost"}, ["green_A", "blue_A"])
    assert board(s)[6] == ["green_A"] and board(s)[4] == ["blue_A"]


# ----------------------------------------------------------- whole games
def test_a_round_can_return_to_an_earlier_state():
    """No measure can bound a round: six plays bring back the very same state."""
    start = situation("cycle")
    s = do(start, "play blue_A on A1", "play yellow_A on A1", "play red_A on A1",
           "play blue_A on A1", "play yellow_A on A1", "play red_A on A1")
    assert s == start


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_games_keep_every_card_and_token(players):
    game = model.load(SPEC, players=players)
    for seed in range(6):
        findings, _ = play_and_check(game, seed, Limits())
        assert findings == []
    assert [k.copies for k in game.ir.kinds if k.item_class == "cards"
            and not k.name.startswith("grey")].count(4) == 7
    assert sum(k.copies for k in game.ir.kinds if k.item_class == "cards") == 56 + 7
    assert sum(k.copies for k in game.ir.kinds if k.item_class == "tokens") == 8
