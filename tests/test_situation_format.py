"""Situation files as a designer writes them (docs/api.md): what is left out, `rest`, the
chance state, malformed and impossible situations, and the limits on the file itself."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import model
from model import SpecError
from model.situation import MAX_INPUT_BYTES

GAMES = ("lama", "kadabra", "lambada", "slambo")


def states(game: model.Game, seed: int, limit: int):
    rng = random.Random(seed)
    state = game.initial_state(seed)
    for _ in range(limit):
        yield state
        if state.is_terminal:
            return
        actions = state.legal_actions()
        state = state.apply(actions[rng.randrange(len(actions))])


@pytest.mark.parametrize("spec", GAMES)
def test_a_state_read_back_continues_exactly_as_the_original(spec: str) -> None:
    """to_dict writes the chance state (seed, step): every state of random games, written
    and read back, plays the next action with the same shuffles as the original."""
    low, high = model.load_ir(spec, players=2).min_players, model.load_ir(spec, players=2).max_players
    checked = 0
    for players in range(low, high + 1):
        game = model.load(spec, players=players)
        for seed in range(3):
            for state in states(game, seed, 250):
                again = game.state_from_dict(json.loads(json.dumps(state.to_dict())))
                assert again == state
                if state.is_terminal:
                    continue
                for action in state.legal_actions()[:3]:
                    assert again.apply(game.parse_action(str(action))).to_dict() == \
                        state.apply(action).to_dict(), (players, seed, str(action))
                checked += 1
    assert checked > 100


# ----------------------------------------------------------- malformed input
@pytest.mark.parametrize(("change", "message"), [
    ({"terminal": "false"}, "terminal is true or false"),
    ({"round": "2"}, "round is a whole number"),
    ({"round": -1}, "round must be from 1"),
    ({"round": 10**40}, "round must be from 1"),
    ({"zones": ["stock"]}, "zones is a mapping"),
    ({"vars": [1, 2]}, "vars is a mapping"),
    ({"seed": "seven"}, "seed is a whole number"),
    ({"seed": [1]}, "seed is a whole number"),
    ({"step": -3}, "step must be from 0"),
    ({"players": "3"}, "players is a whole number"),
    ({"active": True}, "active must be a seat"),
    ({"vars": {"quit": [False, "no", False]}}, "variable quit is true or false"),
    ({"vars": {"unpaid": [0, 10**30, 0]}}, "variable unpaid must be from"),
    ({"vars": {"phase": ["play"]}}, "variable phase is one of play, return"),
    ({"zones": {"hand": [{"3": "two"}, {}, {}]}}, "the count of '3' must be a whole number"),
    ({"zones": {"hand": "rest"}}, "one entry each; one of them may be rest"),
    ({"zones": {"stock": {"top": "6", "rest": True}}}, "top is a list of kinds"),
    ({"zones": {"stock": {"top": ["6"], "rest": "yes"}}}, "rest is true or false"),
    ({"zones": {"stock": "rest", "discard": {"top": ["6"], "rest": True}}},
     "only one zone of cards can take the rest"),
    ({"zones": {"discard": [["6"]]}}, "unknown kind"),
    ({"round": 10**5000}, "found a number of about 5001 digits"),
    ({"zones": {"hand": [{10**5000: 1}, {}, {}]}}, "unknown kind a number of about"),
    ({"vars": {10**5000: 1}}, "unknown variable a number of about"),
])
def test_a_malformed_situation_is_an_error_not_a_guess(change: dict, message: str) -> None:
    game = model.load("lama", players=3)
    data = {"zones": {"stock": "rest", "discard": ["6"]}}
    data.update(change)
    with pytest.raises(SpecError, match=message):
        game.state_from_dict(data)


def test_errors_in_a_file_point_at_the_line(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("players: 3\nround: 2\nterminal: 'false'\n", encoding="utf-8")
    with pytest.raises(SpecError) as err:
        model.load("lama", players=3).read_state(path)
    assert err.value.where is not None and err.value.where.line == 3
    assert str(err.value).startswith(f"{path}:3:12: terminal is true or false")


# ------------------------------------------------------------ what the file is
def test_an_endless_stream_is_refused_after_the_limit() -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero on this system")
    with pytest.raises(SpecError, match=f"larger than the limit of {MAX_INPUT_BYTES:,} bytes"):
        model.load("lama", players=3).read_state("/dev/zero")


def test_nul_bytes_and_non_utf8_are_refused_with_their_place(tmp_path: Path) -> None:
    game = model.load("lama", players=3)
    nul = tmp_path / "nul.yaml"
    nul.write_bytes(b"players: 3\nround: \x001\n")
    with pytest.raises(SpecError, match="NUL byte") as err:
        game.read_state(nul)
    assert (err.value.where.line, err.value.where.column) == (2, 8)
    latin = tmp_path / "latin.yaml"
    latin.write_bytes("players: 3\nnote: caf\xe9\n".encode("latin-1"))
    with pytest.raises(SpecError, match="not UTF-8") as err:
        game.read_state(latin)
    assert (err.value.where.line, err.value.where.column) == (2, 10)


# -------------------------------------------------------- the designer's format
def test_a_zone_left_out_holds_what_the_set_up_puts_there() -> None:
    # Lambada's set-up lays a grey starting card under each position (lambada.en#L11).
    game = model.load("lambada", players=3)
    state = game.state_from_dict({"zones": {"hand": [{"blue_A": 1}, {"red_A": 1}, {"pink_A": 1}]}})
    d = state.to_dict()["zones"]
    letters = ["L", "A", "M", "B", "A", "D", "A"]
    assert d["start_card"] == [{f"grey_{x}": 1} for x in letters]
    assert d["box"] == {}
    assert len(d["draw"]) == 56 - 3  # the letter cards not placed elsewhere
    # Kadabra's set-up gives each player 3 chips (kadabra.en#L12).
    kadabra = model.load("kadabra", players=3).state_from_dict({"zones": {"discard": ["4"]}})
    assert kadabra.to_dict()["zones"]["chips"] == [{"white": 3}] * 3


def test_a_pile_can_name_its_top_and_leave_the_rest() -> None:
    game = model.load("lama", players=3)
    state = game.state_from_dict({"zones": {"stock": {"top": ["3", "llama"], "rest": True},
                                            "discard": ["6"], "hand": [{"5": 1}, {}, {}]}})
    stock = state.to_dict()["zones"]["stock"]
    assert stock[-2:] == ["3", "llama"] and len(stock) == 56 - 2
    drawn = state.apply(game.parse_action("draw"))
    assert drawn.to_dict()["zones"]["hand"][0] == {"5": 1, "llama": 1}


def test_one_seat_of_a_per_player_zone_can_take_the_rest() -> None:
    game = model.load("lama", players=2)
    state = game.state_from_dict({"zones": {"stock": [], "discard": ["1"],
                                            "hand": [{"2": 1}, "rest"]}})
    hands = state.to_dict()["zones"]["hand"]
    assert hands[0] == {"2": 1} and sum(hands[1].values()) == 54


def test_per_index_zones_can_be_given_by_member_name() -> None:
    game = model.load("lambada", players=2)
    state = game.state_from_dict({"zones": {"board": {"B": ["green_B"], "A3": ["red_A"]},
                                            "hand": [{"blue_A": 1}, {"red_B": 1}]}})
    board = state.to_dict()["zones"]["board"]
    assert board == [[], [], [], ["green_B"], [], [], ["red_A"]]
    with pytest.raises(SpecError, match="'A4' is not a position; members: L, A1, M"):
        game.state_from_dict({"zones": {"board": {"A4": []}}})


def test_unplaced_cards_are_named() -> None:
    game = model.load("lama", players=2)
    with pytest.raises(SpecError, match=r"8 of '1' \(of 8\) are placed nowhere"):
        game.state_from_dict({"zones": {"stock": [], "discard": ["6"],
                                        "hand": [{"2": 1}, {}]}})


# ------------------------------------------------------ situations that are real
LAMA_DEAL = {"zones": {"stock": "rest", "discard": ["3"],
                       "hand": [{"4": 1}, {"5": 1}, {"6": 1}]}}


def lama_with(**changes) -> dict:
    data = json.loads(json.dumps(LAMA_DEAL))
    for key, value in changes.items():
        section, _, name = key.partition("__")
        if name:
            data.setdefault(section, {})[name] = value
        else:
            data[key] = value
    return data


@pytest.mark.parametrize(("spec", "players", "data", "invariant"), [
    ("lama", 3, lama_with(vars__quit=[True, False, False]), "active_player_in_round"),
    ("lama", 3, lama_with(zones__hand=[{}, {"5": 1}, {"6": 1}], zones__out=[{}, {"4": 1}, {}]),
     "face_down_cards_only_of_quitters"),
    ("lama", 3, lama_with(vars__phase="return"), "returning_player_has_no_cards"),
    ("lambada", 3, {"zones": {"start_card": [{}] * 7, "draw": "rest",
                              "hand": [{"blue_A": 1}, {"red_A": 1}, {"pink_A": 1}]}},
     "starting_cards_stay"),
    ("slambo", 2, {"terminal": True, "zones": {"shame": [{"shame": 3}, {}]},
                   "vars": {"balance": 42}}, "balance_within_one_card_of_range"),
])
def test_an_impossible_situation_names_the_invariant_it_breaks(spec, players, data,
                                                               invariant) -> None:
    game = model.load(spec, players=players)
    with pytest.raises(SpecError, match=rf"invariant {invariant} fails \(.*{spec}\.yaml:\d+:\d+"):
        game.state_from_dict(data)
    state = game.state_from_dict(data, checked=False)  # on purpose
    assert state.to_dict()["players"] == players


def test_a_round_that_is_over_between_turns_is_refused() -> None:
    game = model.load("lama", players=3)
    with pytest.raises(SpecError, match="round-end condition hand_emptied holds"):
        game.state_from_dict(lama_with(vars__ended=True))


def test_a_game_said_to_be_over_must_be_over() -> None:
    game = model.load("lama", players=3)
    with pytest.raises(SpecError, match="no game-end condition holds"):
        game.state_from_dict(lama_with(terminal=True))


def test_the_situation_example_of_the_api_docs_loads() -> None:
    text = (Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text(encoding="utf-8")
    section = text[text.index("## The situation format"):]
    start = section.index("```yaml") + len("```yaml")
    example = section[start:section.index("```", start)]
    import yaml

    state = model.load("lama", players=3).state_from_dict(yaml.safe_load(example))
    d = state.to_dict()
    assert d["zones"]["stock"][-1] == "5" and (d["seed"], d["step"]) == (7, 12)
    assert d["zones"]["pool"] == {"white": 50, "black": 19}
