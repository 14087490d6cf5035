"""Tricks (docs/spec-language.md#tricks): a zone declared with `trick:` gives the spec the
leader, the suit led, "follow suit if you can", the trick's winner and the effect that
takes the trick, all desugared when the spec loads into piles, a variable, defs and a
procedure.

spec/whisk.yaml is the game that uses it: twelve cards (1 to 4 in acorns, bells and
leaves), leaves trumps. Every expected value below is worked out from its rulebook
(spec/rulebooks/whisk.en.txt) by hand, or by the small referee `_winner` written here
from the rulebook's lines 4 and 5, not read from the model. The rest are the errors of a
bad trick declaration, each one line with file, line and column.
"""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

import model
from model import SpecError
from model.schema import SPEC_DIR
from model.tricks import NAMES
from properties.cli import main

WHISK = SPEC_DIR / "whisk.yaml"
TEXT = WHISK.read_text(encoding="utf-8")
TRUMP_LINE = "    trick: {suit: suit, rank: rank, trumps: leaves}\n"
SUIT = {f"{s}{n}": s for s in ("acorns", "bells", "leaves") for n in range(1, 5)}
RANK = {f"{s}{n}": n for s in ("acorns", "bells", "leaves") for n in range(1, 5)}


def whisk_with(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    """A copy of spec/whisk.yaml with each (old, new) replaced once, beside its rulebook."""
    text = TEXT
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    (tmp_path / "rulebooks").mkdir(exist_ok=True)
    shutil.copy(SPEC_DIR / "rulebooks" / "whisk.en.txt", tmp_path / "rulebooks")
    path = tmp_path / "whisk.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def situation(players: int, hands: list[dict[str, int]], trick: list[list[str]],
              leader: int, active: int) -> dict:
    """A situation of Whisk: the hands, what each seat has played, who leads and acts."""
    return {"players": players, "active": active, "last_actor": (active - 1) % players,
            "zones": {"hand": hands, "trick": trick, "stock": "rest", "won": [{}] * players},
            "vars": {"leader": leader}}


def legal(game: model.Game, data: dict) -> list[str]:
    return [str(a) for a in game.state_from_dict(data, checked=False).legal_actions()]


# ------------------------------------------------------------------- follow suit
def test_the_leader_may_lead_any_card() -> None:
    game = model.load(WHISK, players=3)
    hands = [{"acorns1": 1, "bells2": 1, "leaves3": 1, "leaves4": 1},
             {"acorns2": 1, "acorns3": 1, "bells1": 1, "bells3": 1},
             {"acorns4": 1, "bells4": 1, "leaves1": 1, "leaves2": 1}]
    assert legal(game, situation(3, hands, [[], [], []], leader=0, active=0)) == [
        "play acorns1", "play bells2", "play leaves3", "play leaves4"]


def test_a_player_who_can_follow_suit_must() -> None:
    game = model.load(WHISK, players=3)
    # seat 0 led bells2; seat 1 holds bells1 and bells3 besides higher acorns: bells only
    hands = [{"acorns1": 1, "leaves3": 1, "leaves4": 1},
             {"acorns2": 1, "acorns3": 1, "bells1": 1, "bells3": 1},
             {"acorns4": 1, "bells4": 1, "leaves1": 1, "leaves2": 1}]
    data = situation(3, hands, [["bells2"], [], []], leader=0, active=1)
    assert legal(game, data) == ["play bells1", "play bells3"]
    state = game.state_from_dict(data, checked=False)
    assert state.why_illegal(game.parse_action("play acorns3")) is not None
    # a trump is no way out of following suit either
    data = situation(3, [hands[0], {"acorns2": 1, "acorns3": 1, "bells3": 1},
                         {"bells4": 1, "leaves1": 1, "leaves2": 1, "acorns4": 1}],
                     [["bells2"], ["bells1"], []], leader=0, active=2)
    assert legal(game, data) == ["play bells4"]


def test_a_player_who_cannot_follow_suit_may_play_any_card() -> None:
    game = model.load(WHISK, players=3)
    hands = [{"acorns1": 1, "leaves3": 1, "leaves4": 1},
             {"acorns2": 1, "acorns3": 1, "leaves2": 1, "bells3": 1},
             {"acorns4": 1, "bells4": 1, "leaves1": 1}]
    # bells led by seat 2 (leader), seat 0 has no bells: any of its three cards
    data = situation(3, [hands[0], hands[1], {"acorns4": 1, "leaves1": 1}],
                     [[], [], ["bells4"]], leader=2, active=0)
    assert legal(game, data) == ["play acorns1", "play leaves3", "play leaves4"]


def test_a_leaf_led_must_be_followed_with_a_leaf() -> None:
    game = model.load(WHISK, players=2)
    hands = [{"acorns1": 1, "bells1": 1}, {"acorns2": 1, "leaves2": 1, "bells2": 1}]
    data = situation(2, hands, [["leaves4"], []], leader=0, active=1)
    assert legal(game, data) == ["play leaves2"]


# ----------------------------------------------------------------- the winner
def play_out_trick(game: model.Game, players: int, leader: int, cards: list[str]
                   ) -> model.State:
    """From a trick led by `leader`, the seats play `cards` in turn (leader first); each
    seat holds just that card (the other cards lie in the stock)."""
    hands: list[dict[str, int]] = [{} for _ in range(players)]
    for i, card in enumerate(cards):
        hands[(leader + i) % players] = {card: hands[(leader + i) % players].get(card, 0) + 1}
    state = game.state_from_dict(situation(players, hands, [[]] * players, leader, leader),
                                 checked=False)
    for card in cards:
        state = state.apply(game.parse_action(f"play {card}"))
    return state


@pytest.mark.parametrize(("players", "leader", "cards", "winner"), [
    # the highest of the suit led; a higher card of another suit does not count
    (3, 0, ["bells2", "bells4", "acorns4"], 1),
    (3, 0, ["bells3", "acorns4", "bells1"], 0),
    # a leaf beats the suit led, whatever its number
    (3, 0, ["bells4", "bells3", "leaves1"], 2),
    # two leaves: the higher
    (3, 1, ["acorns4", "leaves1", "leaves3"], 0),
    # a leaf led: the leaves are the suit led and trumps at once
    (2, 1, ["leaves2", "leaves3"], 0),
    # the leader wins round the table (seat arithmetic past the last seat)
    (4, 3, ["acorns3", "acorns1", "bells4", "acorns2"], 3),
    (4, 2, ["bells1", "leaves2", "bells4", "leaves1"], 3),
])
def test_the_trick_goes_to_the_highest_leaf_else_the_highest_of_the_suit_led(
        players: int, leader: int, cards: list[str], winner: int) -> None:
    game = model.load(WHISK, players=players)
    state = play_out_trick(game, players, leader, cards)
    d = state.to_dict()
    assert d["vars"]["leader"] == winner
    assert state.active_player == winner  # the winner leads the next trick
    assert d["zones"]["won"][winner] == {c: 1 for c in cards}
    assert all(not d["zones"]["won"][p] for p in range(players) if p != winner)
    assert d["zones"]["trick"] == [[]] * players


@pytest.mark.parametrize(("cards", "winner"), [
    (["bells4", "bells3", "leaves1"], 0),   # no trumps: the leaf is just another suit
    (["acorns1", "leaves4", "acorns2"], 2),
])
def test_without_trumps_the_highest_of_the_suit_led_wins(tmp_path: Path, cards: list[str],
                                                           winner: int) -> None:
    for trumps in ("", ", trumps: none"):
        spec = whisk_with(tmp_path, (TRUMP_LINE,
                                     f"    trick: {{suit: suit, rank: rank{trumps}}}\n"))
        model.game._GAMES.clear()
        game = model.load(spec, players=3)
        assert play_out_trick(game, 3, 0, cards).to_dict()["vars"]["leader"] == winner


def test_trumps_may_come_from_a_param_an_ambiguity_sets(tmp_path: Path) -> None:
    spec = whisk_with(tmp_path, (TRUMP_LINE, "    trick: {suit: suit, rank: rank, "
                                             "trumps: trump_suit}\n"),
                      ("params:\n", "params:\n  trump_suit: acorns\n"))
    game = model.load(spec, players=3)
    # acorns are trumps now: the acorn wins over the higher bells and a leaf
    state = play_out_trick(game, 3, 0, ["bells4", "acorns1", "leaves4"])
    assert state.to_dict()["vars"]["leader"] == 1


def test_trumps_may_be_an_expression_read_when_the_trick_is_taken(tmp_path: Path) -> None:
    spec = whisk_with(tmp_path, (TRUMP_LINE, "    trick: {suit: suit, rank: rank, "
                                             "trumps: \"top(stock).suit\"}\n"))
    game = model.load(spec, players=3)
    hands = [{"bells4": 1, "acorns1": 1}, {"leaves1": 1, "acorns2": 1},
             {"bells1": 1, "acorns3": 1}]
    data = situation(3, hands, [[], [], []], 0, 0)
    data["zones"]["stock"] = {"top": ["leaves4"], "rest": True}  # the turned-up card: leaves are trumps
    state = game.state_from_dict(data, checked=False)
    for card in ("bells4", "leaves1", "bells1"):
        state = state.apply(game.parse_action(f"play {card}"))
    assert state.to_dict()["vars"]["leader"] == 1
    data["zones"]["stock"] = {"top": ["acorns4"], "rest": True}  # acorns trumps: nobody trumped, bells4 wins
    state = game.state_from_dict(data, checked=False)
    for card in ("bells4", "leaves1", "bells1"):
        state = state.apply(game.parse_action(f"play {card}"))
    assert state.to_dict()["vars"]["leader"] == 0


def test_two_copies_of_a_card_the_first_played_wins(tmp_path: Path) -> None:
    spec = whisk_with(tmp_path, ("  total: 12\n", "  total: 24\n"),
                      ("      copies: 1\n", "      copies: 2\n"),
                      ('"12 // player_count"', '"24 // player_count"'))
    game = model.load(spec, players=3)
    for leader, winner in ((0, 0), (1, 1), (2, 2)):
        state = play_out_trick(game, 3, leader, ["bells3", "bells3", "bells1"])
        assert state.to_dict()["vars"]["leader"] == winner, leader
    state = play_out_trick(game, 3, 2, ["bells1", "bells3", "bells3"])
    assert state.to_dict()["vars"]["leader"] == 0  # seat 0 played its bells3 before seat 1


# ------------------------------------------------------- whole games, referee
def _winner(leader: int, played: dict[int, str], players: int) -> int:
    """Whisk's lines 4-5, written here: the highest leaf if one was played, else the
    highest card of the suit led (each card is unique)."""
    led = SUIT[played[leader]]
    leaves = [p for p in played if SUIT[played[p]] == "leaves"]
    pool = leaves or [p for p in played if SUIT[played[p]] == led]
    return max(pool, key=lambda p: RANK[played[p]])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_games_follow_suit_take_tricks_and_keep_every_card(players: int) -> None:
    game = model.load(WHISK, players=players)
    rng = random.Random(players)
    for seed in range(30):
        state = game.initial_state(seed)
        leader, played = 0, {}  # the ruling first_lead=first_seat: seat 0 leads
        tricks = [0] * players
        while not state.is_terminal:
            d = state.to_dict()
            seat, hand = state.active_player, d["zones"]["hand"][state.active_player]
            led = SUIT[played[leader]] if played else None
            follow = [c for c in hand if led and SUIT[c] == led]
            want = sorted(follow or hand)
            got = sorted(str(a).removeprefix("play ") for a in state.legal_actions())
            assert got == want, (seed, d)
            card = got[rng.randrange(len(got))]
            state = state.apply(game.parse_action(f"play {card}"))
            played[seat] = card
            d = state.to_dict()
            zones = d["zones"]
            assert sum(sum(h.values()) for h in zones["hand"]) + sum(
                len(t) for t in zones["trick"]) + sum(
                sum(w.values()) for w in zones["won"]) + len(zones["stock"]) == 12
            if len(played) == players:
                leader = _winner(leader, played, players)
                tricks[leader] += 1
                assert d["vars"]["leader"] == leader and (state.is_terminal or
                                                          state.active_player == leader)
                assert all(sum(zones["won"][p].values()) == players * tricks[p]
                           for p in range(players))
                played = {}
        assert list(state.scores) == tricks and sum(tricks) == 12 // players
        best = max(tricks)
        assert list(state.winners) == [p for p in range(players) if tricks[p] == best]


def test_ties_go_to_the_last_trick_under_that_reading() -> None:
    # 2 players hold 6 cards each, 6 tricks: a 3-3 tie is common. The same games under
    # both readings: a tie is shared, or goes to the taker of the last trick.
    share = model.load(WHISK, players=2)
    last = model.load(WHISK, players=2, variants={"tied_win": "last_trick"})
    seen = 0
    for seed in range(40):
        a, b = share.initial_state(seed), last.initial_state(seed)
        while not a.is_terminal:
            act = a.legal_actions()[0]
            a, b = a.apply(act), b.apply(last.parse_action(str(act)))
        if a.scores[0] == a.scores[1]:
            seen += 1
            assert list(a.winners) == [0, 1]
            assert list(b.winners) == [a.to_dict()["vars"]["leader"]]
        else:
            assert a.winners == b.winners
    assert seen


def test_the_trick_zone_remembers_who_played_and_is_seen_by_everyone() -> None:
    game = model.load(WHISK, players=3)
    trick = game.layout.zone_base["trick"]
    state = game.initial_state(0)
    card = state.legal_actions()[0]
    state = state.apply(card)
    assert state.to_dict()["zones"]["trick"] == [[str(card).removeprefix("play ")], [], []]
    for seat in (1, 2):  # face up: the others see the card, not just a count
        assert not isinstance(state.observation(seat).zones[trick], model.Hidden)


def test_check_decides_every_row_of_the_trick_game(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    result = CliRunner().invoke(main, ["check", str(WHISK), "--games", "20", "--no-cache",
                                       "--json", str(out)])
    assert result.exit_code == 0, result.output
    rows = json.loads(out.read_text())["rows"]
    z3 = {r["property"]: r["verdict"] for r in rows if r["property"].startswith("z3_")}
    assert set(z3.values()) == {"proved"}, z3
    assert {"z3_conservation", "z3_legal_move", "z3_invariants"} <= set(z3)


# ------------------------------------------------------------------- errors
def spec_error(path: Path, players: int = 3) -> SpecError:
    model.game._GAMES.clear()
    with pytest.raises(SpecError) as err:
        model.load(path, players=players)
    return err.value


def line_of(path: Path, fragment: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if fragment in line)


TRICK_ZONE = """  trick:
    holds: cards
    trick: {suit: suit, rank: rank, trumps: leaves}
"""


@pytest.mark.parametrize(("old", "new", "fragment", "message"), [
    (TRUMP_LINE, "    trick: {suit: colour, rank: rank}\n", "suit: colour",
     "suit: 'colour' is not an attribute of the cards; the cards' attributes are suit, rank"),
    (TRUMP_LINE, "    trick: {suit: rank, rank: rank}\n", "suit: rank",
     "the attribute rank must be an enum"),
    (TRUMP_LINE, "    trick: {suit: suit, rank: suit}\n", "rank: suit",
     "the attribute suit must be int"),
    (TRUMP_LINE, "    trick: {suit: suit, rank: rank, trumps: hearts}\n", "trumps: hearts",
     "unknown name 'hearts'"),
    (TRUMP_LINE, "    trick: {suit: suit, rank: rank, trumps: \"3\"}\n", "trumps:",
     "trumps is a suit"),
    (TRUMP_LINE, "    trick: {suit: suit, rank: rank, trumps: \"1 +\"}\n", "trumps:", ""),
    (TRUMP_LINE, "    trick: {suit: suit, rank: rank, trumps: first_leader}\n", "trumps:",
     "trumps is a suit"),
    (TRUMP_LINE, "    trick: {suit: suit, rank: rank, trumps: \"'bells' if first_leader == 0 "
                 "else 'hearts'\"}\n", "trumps:", "'hearts' is not a suit"),
    (TRUMP_LINE, "    trick: {suit: suit, rank: rank}\n    order: bag\n", "    order: bag",
     "a trick zone is one pile per player"),
    (TRUMP_LINE, "    trick: {suit: suit, rank: rank}\n    per: stock\n", "    per: stock",
     "a trick zone is one pile per player"),
    ("  won: {order: bag", "  won: {trick: {suit: suit, rank: rank}", "  won: {trick",
     "zone trick is already the trick"),
    ("  points: {type: int", "  leader: {type: player, init: 0}\n  points: {type: int",
     "  leader: {type", "'leader' is a name the trick zone trick brings"),
    ("vars:\n", "defs:\n  trick_winner: active\nvars:\n", "trick_winner:",
     "'trick_winner' is a name the trick zone trick brings"),
    ("vars:\n", "procedures:\n  collect_trick(x): [shuffle(x)]\nvars:\n", "collect_trick(x)",
     "'collect_trick' is a name the trick zone trick brings"),
    ("collect_trick(won[leader])", "collect_trick(won[trick_winner])", "collect_trick(won",
     "cannot read trick (nor trick_winner); write won[leader]"),
    ("collect_trick(won[leader])", "collect_trick(won[leader], stock)", "collect_trick(won",
     "collect_trick takes 1 argument(s)"),
    ("follows_suit(card, hand[active])", "follows_suit(card)", "follows_suit(card)",
     "follows_suit takes 2 argument(s)"),
    # a wrong argument's type is found where the def is read, at the use
    ("follows_suit(card, hand[active])", "follows_suit(card, 3)", "follows_suit(card, 3)",
     "expected a zone, found a number"),
    (TRUMP_LINE, "    trick: true\n", "    trick: true", ""),
    (TRICK_ZONE, "  trick:\n    holds: cards\n", "    holds: cards", "'order' is required"),
    (TRUMP_LINE, "    trick: {suit: suit}\n", "trick: {suit: suit}", "rank"),
    (TRUMP_LINE, "    trick: {suit: suit, rank: rank, lead: 0}\n", "trick: {suit", "lead"),
])
def test_a_bad_trick_is_one_positioned_error(tmp_path: Path, old: str, new: str,
                                             fragment: str, message: str) -> None:
    spec = whisk_with(tmp_path, (old, new))
    err = spec_error(spec)
    assert err.where.file == str(spec)
    assert err.where.line == line_of(spec, fragment), str(err)
    assert err.where.column and err.where.column >= 1
    assert message in err.message, err.message
    # on the command line: one line naming the place, exit 2, no traceback
    result = CliRunner().invoke(main, ["check", str(spec), "-p", "3", "--no-z3", "--no-cache"])
    assert result.exit_code == 2, result.output
    assert f"{spec}:{err.where.line}:{err.where.column}:" in result.output
    assert "Traceback" not in result.output


def test_trumps_from_a_param_that_names_no_suit_is_an_error(tmp_path: Path) -> None:
    spec = whisk_with(tmp_path, (TRUMP_LINE, "    trick: {suit: suit, rank: rank, "
                                             "trumps: trump_suit}\n"),
                      ("params:\n", "params:\n  trump_suit: hearts\n"))
    err = spec_error(spec)
    assert (err.where.line, err.where.column) == (line_of(spec, "trumps: trump_suit"), 45)
    assert "the param trump_suit is 'hearts', which is not a suit" in err.message


def test_a_spec_without_a_trick_may_use_the_tricks_names(tmp_path: Path) -> None:
    # the names are the trick's only where a zone is one: LAMA may have a def `leader`
    text = (SPEC_DIR / "lama.yaml").read_text(encoding="utf-8")
    text = text.replace("defs:\n", "defs:\n  leader: active\n  trick_winner: active\n", 1)
    (tmp_path / "rulebooks").mkdir()
    for book in ("lama.en.txt", "lama.nl.txt"):
        shutil.copy(SPEC_DIR / "rulebooks" / book, tmp_path / "rulebooks")
    spec = tmp_path / "lama.yaml"
    spec.write_text(text, encoding="utf-8")
    model.load(spec, players=3)


def test_the_schema_and_the_docs_describe_tricks() -> None:
    schema = json.loads((SPEC_DIR / "spec.schema.json").read_text(encoding="utf-8"))
    trick = schema["$defs"]["zone"]["properties"]["trick"]
    assert set(trick["properties"]) == {"suit", "rank", "trumps"}
    assert trick["required"] == ["suit", "rank"]
    docs = (SPEC_DIR.parent / "docs" / "spec-language.md").read_text(encoding="utf-8")
    section = docs.split("\n## Tricks\n", 1)[1].split("\n## ", 1)[0]
    for name in NAMES:
        assert f"`{name}" in section, name
        assert name in trick["description"], name


def test_the_tricks_own_names_capture_none_of_the_specs(tmp_path: Path) -> None:
    # the trick zone named q, like the local of the trick's defs, and a param q read by
    # the trumps: the game plays as Whisk does, move for move
    text = TEXT.replace("trick[", "q[").replace("  trick:\n    holds", "  q:\n    holds")
    text = text.replace(TRUMP_LINE, "    trick: {suit: suit, rank: rank, "
                                    "trumps: \"'bells' if q_param else 'leaves'\"}\n")
    text = text.replace("params:\n", "params:\n  q_param: false\n")
    folder = tmp_path / "q"
    folder.mkdir()
    spec = whisk_with(folder)
    spec.write_text(text.replace("q_param", "q"), encoding="utf-8")
    ours, whisk = model.load(spec, players=3), model.load(WHISK, players=3)
    rng = random.Random(5)
    for seed in range(10):
        a, b = ours.initial_state(seed), whisk.initial_state(seed)
        while not b.is_terminal:
            assert [str(x) for x in a.legal_actions()] == [str(x) for x in b.legal_actions()]
            act = rng.choice(b.legal_actions())
            a, b = a.apply(ours.parse_action(str(act))), b.apply(act)
            assert a.to_dict()["vars"] == b.to_dict()["vars"]
        assert a.is_terminal and a.scores == b.scores and a.winners == b.winners
