"""The z3 worker process: results come back whole, an overrun is stopped at the safety net,
and a failure in the worker is as loud as in process."""

from __future__ import annotations

import threading
import time
from multiprocessing import Pipe
from pathlib import Path

import pytest
from test_symbolic import misplaced

import model
from properties.symbolic import queries as Q
from properties.symbolic.isolate import WorkerFailed, _collect, run_isolated

MUTANTS = Path(__file__).parent / "mutants_z3"


def test_a_witness_crosses_the_process_boundary_and_replays() -> None:
    spec = MUTANTS / "lama_card_among_chips.yaml"
    game = model.load(spec, players=3)
    (res,) = run_isolated(game, spec, None, ["conservation"])
    assert res.status == "witness", res.detail
    assert res.trace is not None and res.trace.actions
    states = Q.replay(Q.machine(game).enc, res.trace)
    assert misplaced(game, states[-1]) != []


def _worker_that_hangs(conn, first: str) -> None:
    conn.send(("start", first))
    time.sleep(5)


def test_a_query_still_running_at_the_safety_net_is_out_of_time() -> None:
    parent, child = Pipe(duplex=False)
    threading.Thread(target=_worker_that_hangs, args=(child, "game_cycle"), daemon=True).start()
    pending = ["game_cycle", "agreement"]
    t0 = time.perf_counter()
    (portable,) = _collect(parent, pending, seconds=0.5)
    res = portable.result
    assert time.perf_counter() - t0 < 2
    # ran out of time: undecided, never a verdict, and never cached (test_check_cache)
    assert (res.query, res.status) == ("game_cycle", "timeout")
    assert "stopped by the 0.5 s wall-clock safety net" in res.detail
    assert pending == ["agreement"]  # left for a fresh worker


def test_an_error_in_the_worker_is_raised_with_its_traceback() -> None:
    parent, child = Pipe(duplex=False)
    child.send(("start", "conservation"))
    child.send(("error", "Traceback ...\nDisagreement: the back ends differ"))
    with pytest.raises(WorkerFailed, match="the back ends differ"):
        list(_collect(parent, ["conservation"], seconds=5))


def test_a_worker_that_dies_is_reported() -> None:
    parent, child = Pipe(duplex=False)
    child.send(("start", "conservation"))
    child.close()
    with pytest.raises(WorkerFailed, match="ended unexpectedly while running conservation"):
        list(_collect(parent, ["conservation"], seconds=5))


def test_side_by_side_workers_keep_the_rows_in_player_order() -> None:
    from properties.checks.z3rows import z3_rows

    rows, results = z3_rows(MUTANTS / "lama_card_among_chips.yaml", [4, 2, 3],
                            only=["conservation"],
                            jobs=2)
    assert [(r.players, r.property) for r in rows] == [(4, "z3_conservation"),
                                                        (2, "z3_conservation"),
                                                        (3, "z3_conservation")]
    assert [r.status for r in results] == ["witness"] * 3
    assert all(r.status == "FAILS" for r in rows)
