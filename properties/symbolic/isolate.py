"""Runs z3 queries in a child process, so a query that overruns its time limit is stopped.

A query plans for part of its limit (`queries.STOP_MARGIN`) and checks the clock while it
builds formulas, but z3 cannot be interrupted while it adds or simplifies one large
formula. The limit `rulespec check` promises is therefore kept here, from outside: the
queries of one game and player count run in order in a worker process (so they share the
step formula it builds once), and a query still running at its limit is stopped by ending
the worker; it answers `unknown`, and a fresh worker takes the queries that remain.
"""

from __future__ import annotations

import multiprocessing as mp
import time
import traceback
from collections.abc import Iterator, Mapping, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import attrs

import model

from . import queries as Q

#: Seconds a worker may take to start and load the spec before its first query begins.
START_LIMIT = 120.0
#: A query is stopped this long before its limit, so that stopping it (and reporting the
#: time from the parent) still fits within the limit.
STOP_EARLY = 0.25


class WorkerFailed(RuntimeError):
    """A query raised in the worker (a disagreement of the back ends is one): the worker's
    traceback, so the failure is as loud as it would be in process."""


def run_isolated(game: model.Game, spec: str | Path, variants: Mapping[str, str] | None,
                 names: Sequence[str], limit: float) -> Iterator[Q.Result]:
    """Each named query's result for `game` (loaded from `spec` with `variants`), in
    order; none takes longer than `limit` seconds."""
    players = game.ir.players
    pending = list(names)
    ctx = mp.get_context("spawn")  # a fresh interpreter: no z3 state shared with the parent
    while pending:
        parent, child = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_work, args=(child, str(spec), players, dict(variants or {}),
                                               pending, limit), daemon=True)
        proc.start()
        child.close()
        try:
            for res in _collect(parent, pending, limit):
                yield _attach(res, game)
        finally:
            parent.close()
            proc.kill()
            proc.join()


def _collect(conn: Connection, pending: list[str], limit: float) -> Iterator[Q.Result]:
    """Results from one worker; pops each finished or stopped query from `pending`."""
    while pending:
        if not _wait(conn, START_LIMIT):
            raise WorkerFailed(f"the z3 worker did not start {pending[0]} within {START_LIMIT:g} s")
        kind, payload = _recv(conn, pending[0])
        assert kind == "start" and payload == pending[0], (kind, payload)
        t0 = time.perf_counter()
        if not _wait(conn, max(limit - STOP_EARLY, 0)):
            name = pending.pop(0)
            yield Q.Result(name, "unknown", f"stopped at the {limit:g} s limit (z3 could not be "
                           "interrupted)", time.perf_counter() - t0)
            return
        _, payload = _recv(conn, pending[0])
        pending.pop(0)
        yield payload


def _recv(conn: Connection, running: str) -> tuple[str, Any]:
    try:
        kind, payload = conn.recv()
    except (EOFError, OSError):
        raise WorkerFailed(f"the z3 worker ended unexpectedly while running {running}") from None
    if kind == "error":
        raise WorkerFailed(payload)
    return kind, payload


def _wait(conn: Connection, seconds: float) -> bool:
    """Whether a message (or the worker's end) arrived within `seconds`."""
    try:
        return conn.poll(seconds)
    except (EOFError, OSError):
        return True


def _work(conn: Connection, spec: str, players: int, variants: dict[str, str],
          names: list[str], limit: float) -> None:
    try:
        game = model.load(spec, players=players, variants=variants)
        for name in names:
            conn.send(("start", name))
            (res,) = Q.run_all(game, limit=limit, only=[name])
            conn.send(("done", _portable(res)))
    except BaseException:  # the parent re-raises it with this traceback
        conn.send(("error", traceback.format_exc()))
    finally:
        conn.close()


# A witness trace holds the game (its generated code cannot be pickled); it crosses the
# process boundary without it and is attached again to the parent's copy of the game.
def _portable(res: Q.Result) -> Q.Result:
    if res.trace is None:
        return res
    t = res.trace
    actions: Any = [(a.index, a.args) for a in t.actions]
    return attrs.evolve(res, trace=attrs.evolve(t, game=None, actions=actions))


def _attach(res: Q.Result, game: model.Game) -> Q.Result:
    if res.trace is None:
        return res
    t = res.trace
    actions = [model.Action(game, i, args) for i, args in t.actions]
    return attrs.evolve(res, trace=attrs.evolve(t, game=game, actions=actions))
