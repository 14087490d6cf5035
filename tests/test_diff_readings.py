"""`rulespec diff GAME GAME --new-variant ID=NAME` for every reading of every ambiguity in
spec/: a parting game wherever the reading can part from the ruling in play, replayed under
both; where it cannot, the report says what was shown.

CI runs a fixed sample (`SAMPLE`). The whole set (63 tests; 12 minutes on the shared two-core
machine):

    RULESPEC_ALL_READINGS=1 python -m pytest tests/test_diff_readings.py -n 2

`AT` is the player count each reading is compared at (the first count where a search
found a parting game; 4, or the nearest count the game allows, when not listed). `APART`
lists the readings for which no parting game was found, with what the report shows for
them instead; a reading that starts to part (or stops) fails its test, so the lists stay
true.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_diff import assert_parts_at_the_end

import model
from properties.checks.plan import all_specs
from properties.cli import main

AT: dict[tuple[str, str, str], int] = {
    ("lama", "chip_shortage", "forfeit"): 5,  # the pool runs short with 5 or 6 players
    ("kadabra", "square_last_card_alone", "draw_no_return"): 5,
    ("kadabra", "square_last_card_alone", "no_draw"): 5,
    ("kadabra", "show_llama_legality", "any_llama"): 2,
    ("slambo", "hand_size", "five"): 2,  # with 4 players both readings deal 5 cards
    ("slambo", "out_of_cards_2p", "break_now"): 2,  # only read with 2 players
    ("slambo", "break_condition_multiplayer", "one_left"): 3,  # only read with 3 or 4
}

_NONE = (r"no parting game found — (from every deal the first \d+ action\(s\) behave alike "
         r"\(z3\); )?none breadth first over \d+ pairs of states from \d+ deals, nor in \d+ "
         r"random games")

#: Readings with no parting game: what the report shows instead (a regular expression).
APART: dict[tuple[str, str, str], str] = {
    # The rationale says so: under the ruling the top card is a llama during a show. z3
    # proves it from the invariants (8 s with 2 players; the proof's work is bounded in
    # z3's units, not by the clock, so no fallback to games is accepted here).
    ("kadabra", "show_llama_legality", "any_llama"): r"2 players: the same \(proved\) — "
                                                     r"proved by z3",
    # They part only in a bout played out to the last card, rare in play (1 random game in
    # 300 empties a hand): the default search misses it; the FAQ's ten times longer search
    # finds one (docs/faq/partings/slambo-out_of_cards_2p-break_now.yaml).
    ("slambo", "out_of_cards_2p", "break_now"): "2 players: " + _NONE,
    # Likewise (the FAQ's longer search finds one with 4 players).
    ("slambo", "break_condition_multiplayer", "one_left"): "3 players: " + _NONE,
}

#: Readings that part only after a rare course of play: the default search may miss the
#: parting (then the report must say what it covered, as in APART) or find it (then its game
#: must part at its end). CI saw both for SLAMBO's out_of_cards_2p (the Hypothesis games
#: found it at action 22 once): which one a run gets is not yet the same on every run.
RARE = {("slambo", "out_of_cards_2p", "break_now"),
        ("slambo", "break_condition_multiplayer", "one_left")}

#: Readings whose parting game needs a longer search than the default (extra arguments).
SEARCH: dict[tuple[str, str, str], list[str]] = {
    # a player idle with an empty hand while the last grey card is covered: rare in random
    # games; 400 Hypothesis-generated ones find a parting game of 189 actions
    ("lambada", "empty_hand_no_win", "wins_when_covered"): ["--games", "0", "--examples", "400"],
}

SAMPLE = [
    ("lama", "next_round_starter", "first_seat"),
    ("kadabra", "give_away_target", "self_allowed"),
    ("slambo", "hand_size", "five"),
    ("slambo", "out_of_cards_2p", "break_now"),
]


def readings() -> list[tuple[str, str, str]]:
    out = []
    for path in all_specs():
        g = model.load_ir(path, players=model.loader.any_player_count(path))
        for amb in g.ambiguities:
            out += [(path.stem, amb.id, v.name) for v in amb.variants if v.name != amb.default]
    return out


def players_for(spec: str, reading: tuple[str, str, str]) -> int:
    if reading in AT:
        return AT[reading]
    g = model.load_ir(spec, players=model.loader.any_player_count(spec))
    return max(g.min_players, min(4, g.max_players))


CASES = readings() if os.environ.get("RULESPEC_ALL_READINGS") else SAMPLE


def test_the_tables_name_real_readings() -> None:
    every = set(readings())
    assert set(AT) <= every and set(APART) <= every and set(SAMPLE) <= every
    assert set(SEARCH) <= every


@pytest.mark.parametrize("spec, ambiguity, variant", CASES,
                         ids=[f"{s}-{a}-{v}" for s, a, v in CASES])
def test_a_reading_parts_from_the_ruling(tmp_path: Path, spec: str, ambiguity: str,
                                         variant: str) -> None:
    reading = (spec, ambiguity, variant)
    n = players_for(spec, reading)
    replays = tmp_path / "replays"
    result = CliRunner().invoke(main, ["diff", spec, spec, "--new-variant",
                                       f"{ambiguity}={variant}", "-p", str(n),
                                       "--no-properties", "--no-statistics",
                                       "--replays", str(replays),
                                       "--z3-budget", "300" if reading in APART else "100",
                                       *SEARCH.get(reading, [])])
    out = result.stdout
    if reading in RARE and result.exit_code == 1:
        pass  # the rare parting was found: it must part at the end of its game, below
    elif reading in APART:
        assert result.exit_code == 0, out + result.stderr
        assert re.search(APART[reading], out, re.IGNORECASE), out
        return
    assert result.exit_code == 1, out + result.stderr
    assert f"{n} players: they part" in out
    (path,) = replays.glob("*-parting.yaml")
    g = model.load_ir(spec, players=n)
    ruling = next(a.default for a in g.ambiguities if a.id == ambiguity)
    assert_parts_at_the_end(path, spec, spec, {ambiguity: ruling}, {ambiguity: variant})
