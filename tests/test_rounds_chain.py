"""z3 choosing rounds one after another from the first deal (queries/rounds.py), each
round's deal its own: a shortage no single round shows is found, and it replays."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

import model
from properties.symbolic import queries as Q
from properties.symbolic.queries.common import RLIMIT, Clock, bounded
from properties.symbolic.witness import concrete_states

supply = importlib.import_module("properties.symbolic.queries.supply")
TITHE = Path(__file__).parent / "specs" / "tithe.yaml"

# how many rounds and checks a chain takes depends on z3's choices, and so on the context
pytestmark = pytest.mark.usefixtures("fresh_z3")


def test_rounds_chosen_one_by_one_run_the_pool_short_in_the_third_round() -> None:
    game = model.load(TITHE, players=2)
    res, tried = supply._chained_shortage(game, Clock(RLIMIT), None)
    assert res is not None, [c.text() for c in tried]
    assert (res.status, res.found_by) == ("witness", "z3")
    assert res.trace is not None and res.trace.start == "deal"
    assert "z3 chose 3 round(s) one after another" in res.detail
    # on the concrete model: two rounds of 3 + 2 coins empty the pool, and the third
    # round's scoring asks for coins it does not have
    states = concrete_states(Q.machine(game).enc, res.trace)
    pool = game.layout.zone_base["pool"]
    before_last = states[-2]
    assert before_last.round == 3
    assert sum(before_last.z[pool]) == 0
    asked = sum(game.ir.kinds[k].attrs["worth"] for p in range(2)
                for k, c in enumerate(before_last.z[game.layout.zone_base["hand"] + p]) if c)
    assert asked > 0
    assert [a.name for a in res.trace.actions] == ["done"] * 6


def test_with_no_site_to_run_short_the_chain_stops_when_no_round_gains() -> None:
    """Two rounds of 5 coins empty the pool; a third round cannot leave fewer than none, at
    any length, so the chain stops there, with no witness, and says how far it went."""
    game = model.load(TITHE, players=2)
    res, tried = supply._chained_shortage(game, Clock(RLIMIT), [])
    assert res is None
    assert [c.rounds for c in tried] == [2]
    assert "z3 chose 2 round(s) one after another" in tried[0].text()


def test_a_row_says_the_chained_witness_starts_from_the_deal() -> None:
    """The chain names who found its witness; the row must still say where it starts (it
    once said "from a situation" for a game z3 played from the first deal)."""
    from properties.checks.z3rows import row_of

    @bounded  # as the supply query is
    def supply_by_chain(game: model.Game, limit: int = RLIMIT) -> Q.Result:
        res, tried = supply._chained_shortage(game, Clock(limit), None)
        assert res is not None, [c.text() for c in tried]
        return res

    game = model.load(TITHE, players=2)
    res = supply_by_chain(game)
    assert res.trace is not None and res.trace.start == "deal"
    assert res.found_by == "z3" and res.start == "deal"
    assert "found by z3 from a deal after 6 actions" in row_of(game, res).detail


def test_lamas_three_player_exchange_runs_short_by_all_the_chips_together(tmp_path: Path) -> None:
    """By each kind alone, two greedy rounds leave LAMA's chips where no third round runs
    the exchange short; by all the chips together, z3 brings every seat to 39 points (3
    black and 9 white chips) and the third scoring's exchanges need more black chips than
    are left. The spec copy records no witness, so this is the chain's own."""
    import re

    spec = Path(__file__).resolve().parent.parent / "spec"
    text = re.sub(r"^\s*witness:.*\n", "", (spec / "lama.yaml").read_text(), flags=re.M)
    (tmp_path / "rulebooks").symlink_to(spec / "rulebooks", target_is_directory=True)
    (tmp_path / "lama.yaml").write_text(text)
    game = model.load(tmp_path / "lama.yaml", players=3)
    res, tried = supply._chained_shortage(game, Clock(RLIMIT), None)
    assert res is not None, [c.text() for c in tried]
    assert (res.status, res.found_by) == ("witness", "z3")
    assert res.trace is not None and res.trace.start == "deal"
    assert "exchange from pool" in res.detail and "z3 chose 3 round(s)" in res.detail
    states = concrete_states(Q.machine(game).enc, res.trace)
    black = game.kind_names.index("black")
    chips = game.layout.zone_base["chips"]
    last_start = min(n for n, s in enumerate(states) if s.round == states[-2].round)
    seats = [states[last_start].z[chips + p] for p in range(3)]
    assert all(c[black] == 3 for c in seats), seats
