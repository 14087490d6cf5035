"""The deep search finds witnesses no file records, replays them, and says what it explored.

The specs are copied without their `witness:` entries, so nothing the spec records can
stand in for what the tool finds by itself.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

import model
from properties.checks.z3rows import row_of
from properties.search import goals
from properties.search.space import replay_of
from properties.symbolic import queries as Q
from properties.symbolic.queries.common import Clock
from properties.symbolic.queries.recorded import repeated_start, steps
from properties.symbolic.queries.supply import shortages

supply_query = importlib.import_module("properties.symbolic.queries.supply")
SPEC = Path(__file__).resolve().parent.parent / "spec"


def without_witnesses(game: str, folder: Path) -> Path:
    """A copy of a shipped spec with every `witness:` line taken out."""
    text = re.sub(r"^\s*witness:.*\n", "", (SPEC / f"{game}.yaml").read_text(), flags=re.M)
    assert "witness:" not in text
    (folder / "rulebooks").symlink_to(SPEC / "rulebooks", target_is_directory=True)
    copy = folder / f"{game}.yaml"
    copy.write_text(text)
    return copy


def test_a_shortage_no_file_records_is_found_replayed_and_reported_as_the_search_s(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # however long the search's game, it is reported (not z3's shorter one, `rounds.py`)
    monkeypatch.setattr(supply_query, "READABLE", 10**6)
    game = model.load(without_witnesses("lama", tmp_path), players=4)
    res = Q.supply(game)
    assert (res.status, res.found_by, res.start) == ("witness", "search", "deal"), res.detail
    assert res.replay is not None and res.trace is None
    # the replay file shows the shortage at the step it names, by the encoding's own flags
    played = list(steps(game, res.replay))
    assert len(played) == res.bound
    _, state, action, nxt = played[-1]
    assert shortages(game, state, action, nxt, Clock(50_000_000))
    assert "the deep search explored" in res.detail
    row = row_of(game, res)
    assert (row.status, row.found_by) == ("expected failure", "search")
    assert "found by the deep search from a deal after" in row.detail


def test_a_game_cycle_found_comes_back_to_a_round_start_and_is_the_same_every_run() -> None:
    game = model.load("lama", players=2)
    first, explored = goals.game_cycle(game, frozenset({"round"}))
    assert first is not None, explored.text()
    data = replay_of(game, first.node)
    again = repeated_start(game, data, frozenset({"round"}))
    assert again is not None and again[1] == len(data["actions"])
    second, explored_again = goals.game_cycle(game, frozenset({"round"}))
    assert second is not None
    assert replay_of(game, second.node) == data
    assert explored_again.states == explored.states


def test_a_search_that_finds_nothing_stops_at_its_budget_and_says_what_it_covered() -> None:
    game = model.load("lama", players=2)
    hit, explored = goals.game_cycle(game, frozenset({"round"}), budget=300)
    assert hit is None
    assert 300 <= explored.states < 300 + goals.ROUND_STATES
    assert explored.deals == goals.ROUND_DEALS and explored.rounds >= 1
    assert f"explored {explored.states} states" in explored.text()


def test_a_round_cycle_search_of_a_game_whose_rounds_end_finds_none() -> None:
    # LAMA's round measure is proved to fall with every action: no round can cycle
    game = model.load("lama", players=3)
    hit, explored = goals.round_cycle(game, budget=2_000)
    assert hit is None and explored.states >= 2_000


@pytest.mark.parametrize("deal", [0, 1, 2])
def test_a_chosen_deal_is_the_same_for_the_same_cards(deal: int) -> None:
    from properties.search.space import ChosenChance

    game = model.load("lama", players=3)
    a, b = list(range(len(game.kind_names))) * 2, list(range(len(game.kind_names)))[::-1] * 2
    chance = ChosenChance(game, deal)
    chance.shuffle(a)
    chance.used = 0  # the next step: the search resets the count before each
    chance.shuffle(b)
    assert a == b and chance.used == 1
    chance.used = 0
    c = list(range(len(game.kind_names))) * 2
    chance.shuffle(c)
    chance.shuffle(d := c[:])
    assert c != d and chance.used == 2  # a second shuffle in one step deals otherwise


def test_a_round_cycle_is_found_from_a_situation_where_one_exists() -> None:
    # Lambada with an empty draw pile: colours that show nowhere send the covered card
    # back to the hand that played it (the situation of the recorded 2-player witness)
    from properties.concrete import trace as tr

    data = tr.read_replay(str(SPEC / "witnesses" / "lambada-2p-z3_round_bound.yaml"))
    game = model.load("lambada", players=2)
    start, _ = tr.start(game, data)
    hit, explored = goals.round_cycle(game, budget=20_000, start=start)
    assert hit is not None, explored.text()
    path = hit.node.path()
    assert path[0].state == start and hit.again is not None
    first, last = hit.again
    assert path[first].state == path[last].state and first < last
    assert all(n.state.round == start.round for n in path)


# SLAMBO's cycle needs every bout a break (every card played): rounds of the first width
# never reach one, so without widening (`goals.WIDENING`) the search runs out of round starts
@pytest.mark.parametrize("game_id", ["lama", "slambo"])
def test_the_game_cycle_query_reports_the_cycle_the_deep_search_found(
        tmp_path: Path, game_id: str) -> None:
    game = model.load(without_witnesses(game_id, tmp_path), players=2)
    res = Q.game_cycle(game)
    assert (res.status, res.found_by, res.start) == ("witness", "search", "deal"), res.detail
    assert res.replay is not None
    again = repeated_start(game, res.replay, frozenset({"round"}))
    assert again is not None and again[1] == res.bound
    assert f"comes back after action {again[1]}" in res.detail


def test_a_round_cycle_is_found_from_the_deal_by_emptying_the_piles_no_player_holds(
        tmp_path: Path) -> None:
    # Lambada's rounds cycle once the draw pile and everything under the board's top
    # layer are in the hands; the recorded witnesses start from a situation, this one
    # from the first deal
    from properties.symbolic.queries.recorded import repeated_in_round

    game = model.load(without_witnesses("lambada", tmp_path), players=2)
    res = Q.round_bound(game)
    assert (res.status, res.found_by, res.start) == ("witness", "search", "deal"), res.detail
    assert res.replay is not None and "situation" not in res.replay
    first, last = repeated_in_round(game, res.replay) or (None, None)
    assert first is not None and last == res.bound and first < last
