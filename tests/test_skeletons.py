"""Game cycles z3 finds by filling in the skeleton of a round the deep search played
(properties/symbolic/queries/skeletons.py): a round from a round start to its seat-rotated
image, P of them a cycle, reached from the first deal, with no witness file to lean on."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

import model
from properties.search import goals
from properties.symbolic import queries as Q
from properties.symbolic.queries import cycles, skeletons
from properties.symbolic.queries.common import RLIMIT, Clock
from properties.symbolic.witness import concrete_states

SPEC = Path(__file__).resolve().parent.parent / "spec"
SKIP = frozenset({"round"})

# what z3 chooses within a budget depends on the terms already in the context
pytestmark = pytest.mark.usefixtures("fresh_z3")


def _lama(tmp_path: Path, players: int) -> model.Game:
    text = re.sub(r"^\s*witness:.*\n", "", (SPEC / "lama.yaml").read_text(), flags=re.M)
    assert "witness: witnesses" not in text
    (tmp_path / "rulebooks").symlink_to(SPEC / "rulebooks", target_is_directory=True)
    (tmp_path / "lama.yaml").write_text(text)
    return model.load(tmp_path / "lama.yaml", players=players)


def _round_start(game: model.Game) -> Callable[[model.State], tuple]:
    """What a cycle brings back: the zones (a pile below its top as a multiset: the next
    round gathers and shuffles it), the variables but the round number, the game going on."""
    rounds_var = game.layout.var_base["round"]
    bag = goals.Shape(game).bag

    def start(s: model.State) -> tuple:
        zones = tuple(tuple(z) if bag[i] else (tuple(sorted(z)), z[-1] if z else None)
                      for i, z in enumerate(s.z))
        return zones, tuple(v for i, v in enumerate(s.v) if i != rounds_var), s.is_terminal

    return start


def _log(game: model.Game, states: int) -> goals.RoundLog:
    log = goals.RoundLog(game)
    goals.game_cycle(game, SKIP, states, log)
    return log


def test_only_rounds_that_move_worth_from_a_seat_are_skeletons(tmp_path: Path) -> None:
    """In LAMA a seat loses chips only by handing one back after going out: a round where
    everyone quit (each only took) cannot end in its rotated image, whatever the hands."""
    game = _lama(tmp_path, 3)
    log = _log(game, 40_000)
    assert any(all(n == "quit" for n in s) for s in log.rounds)  # played, but not offered
    offered = log.candidates(1000)
    assert offered and all("return_chip" in s for s in offered)
    assert [len(s) for s in offered] == sorted(len(s) for s in offered)
    # and the start's numbers stay within what play reached: nobody ever owed points
    assert all(log.ranges()[("unpaid", p)] == (0, 0) for p in range(3))


def test_lamas_three_player_cycle_is_found_from_the_first_deal(tmp_path: Path) -> None:
    game = _lama(tmp_path, 3)
    res = cycles._rotated_cycle(game, Clock(RLIMIT), SKIP, 10, None, 10_000_000,
                                _log(game, 40_000))
    assert res is not None and res.status == "witness", res and res.detail
    assert "filled in the skeleton of a round the deep search played" in res.detail
    assert res.trace is not None and res.trace.start == "deal"
    # on the concrete model: the round start after the rounds from the deal comes back,
    # chips and starter included, after the three rotated rounds (a pile below its top
    # as a multiset: the next round gathers and shuffles it)
    states = concrete_states(Q.machine(game).enc, res.trace)
    start = _round_start(game)
    starts = [n for n in range(1, len(states)) if states[n].round != states[n - 1].round]
    assert len(starts) >= 4
    first, last = starts[-4], starts[-1]
    assert start(states[first]) == start(states[last])
    assert states[first].round + 3 == states[last].round
    assert not states[last].is_terminal


def test_a_round_the_last_seat_goes_out_of_is_asked_to_turn_the_seats_back(
        tmp_path: Path) -> None:
    """At four players the round the deep search plays first (three quit, the fourth
    plays out and hands back a chip) makes the fourth seat the next starter: its rounds
    move every seat on by three, so that is the rotation z3 is asked for, and four such
    rounds, reached from the first deal, come back to their start."""
    game = _lama(tmp_path, 4)
    log = _log(game, 400_000)
    out = ("quit",) * 3 + ("play",) * 6 + ("return_chip",)
    assert log.candidates(1)[0] == out
    assert log.rotations(out) == [3]

    res = cycles._rotated_cycle(game, Clock(RLIMIT), SKIP, 10, None, 10_000_000, log)
    assert res is not None and "every seat moved on by 3" in res.detail, res and res.detail
    assert "10 actions, 1 of" in res.detail and res.status == "witness"
    assert res.trace is not None and res.trace.start == "deal"
    states = concrete_states(Q.machine(game).enc, res.trace)
    # the last four rounds of ten actions each start and end at the same round start
    a, b = states[-41], states[-1]
    start = _round_start(game)
    assert start(a) == start(b) and b.round == a.round + 4 and not b.is_terminal



def test_a_skeleton_asked_as_the_second_round_starts_from_the_first_deal(
        tmp_path: Path) -> None:
    """z3 chooses the first deal and a first round of at most P + 2 actions as well as the
    skeleton's hands, so the cycle's start is reached by construction, not searched for."""
    game = _lama(tmp_path, 3)
    log = _log(game, 40_000)
    skeleton = log.candidates(1)[0]
    enc = Q.machine(game).enc
    rotated = cycles.rotated_targets(enc, SKIP)
    found = skeletons._second_round(game, Clock(RLIMIT), skeleton, rotated(1, frozenset()), None,
                                    skeletons.DEAL_UNITS)
    assert found is not None
    o, model_ = found
    assert len(o.done) == 1 and len(o.maps) == len(skeleton)
    res = cycles._rotated_rounds(game, Clock(RLIMIT), SKIP, o, model_)
    assert res is not None and res.status == "witness", res and res.detail
    assert res.trace is not None and res.trace.start == "deal"
    first = len(res.trace.actions) - 3 * len(skeleton)
    assert 3 <= first <= 3 + skeletons.FIRST_EXTRA
    states = concrete_states(enc, res.trace)
    a, b = states[first], states[-1]
    start = _round_start(game)
    assert start(a) == start(b) and b.round == a.round + 3 and not b.is_terminal


def test_a_round_start_with_seat_0_to_act_is_enough_for_a_rotated_round(
        tmp_path: Path) -> None:
    """Kadabra at three players: the round its recorded cycle repeats (the starter quits,
    the next plays out, the third swaps ten white tokens for a black one and quits) is
    filled in by z3 from a round start with seat 0 to act. With that seat free z3 did not
    decide it within 300 million units: it searched each seat's copy of the same round.
    The seat that must draw (`forced_drawer`), read only while someone must, stays where it
    was in the rounds the deep search played while the turn moves on: the rotated image
    holds it rather than moving it on. The three rotations come back to their start."""
    text = (SPEC / "kadabra.yaml").read_text()
    text = re.sub(r", witness: witnesses/[^}]*\}", "}", text)
    text = re.sub(r"^\s*witness:.*\n", "", text, flags=re.M)
    assert "witness: witnesses" not in text
    (tmp_path / "rulebooks").symlink_to(SPEC / "rulebooks", target_is_directory=True)
    (tmp_path / "kadabra.yaml").write_text(text)
    game = model.load(tmp_path / "kadabra.yaml", players=3)
    log = _log(game, 40_000)
    held = log.held(log.candidates(1)[0])
    assert held == {"forced_drawer"}
    skeleton = ("quit", "play", "exchange", "quit") + ("play",) * 5 + ("return_token",)
    enc = Q.machine(game).enc
    r, found = skeletons.fill_in(game, Clock(RLIMIT), log, skeleton,
                                 cycles.rotated_targets(enc, SKIP)(1, held), None, SKIP, False,
                                 skeletons.CHECK_UNITS, seat_0=True)
    assert found is not None, r
    res = cycles._rotated_rounds(game, Clock(RLIMIT), SKIP, *found, by=1, held=held)
    assert res is not None and res.status == "witness", res and res.detail
    assert res.trace is not None
    states = concrete_states(enc, res.trace)
    a, b = states[-31], states[-1]
    start = _round_start(game)
    assert start(a) == start(b) and b.round == a.round + 3 and not b.is_terminal
    assert a.active_player == 0 and a.v[game.layout.var_base["forced_drawer"]] == \
        b.v[game.layout.var_base["forced_drawer"]]
