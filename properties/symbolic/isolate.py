"""Runs z3 queries in a child process, so a query that overruns the safety net is stopped.

A query's budget is z3 resource units (deterministic: the same verdict on any machine under
any load). The wall-clock safety net is kept twice: inside the worker (`terms.deadline`:
a query past it answers `timeout`), and from outside, since z3 cannot be interrupted while
it adds or simplifies one large formula: the queries of one game and player count run in
order in a worker process (so they share the step formula it builds once), and a query
still running at the net is stopped by ending the worker; it answers `timeout`, and a fresh
worker takes the queries that remain. `timeout` is undecided and never cached.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
import time
import traceback
from collections.abc import Iterator, Mapping, Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import attrs

import model

from . import queries as Q
from .terms import deadline
from .witness import Trace

#: Seconds a worker may take to start and load the spec before its first query begins.
START_LIMIT = 120.0
#: The worker's own net stops a query this share of the seconds before the parent ends
#: the worker, so that a query stopped in Python says where it was.
INNER_SHARE = 0.95


_RUNNING: set[Any] = set()  # the worker processes alive now (`stop_all` ends them)


def stop_all() -> None:
    """End every worker process at once (an interrupted run: z3 cannot be interrupted
    inside a check, so its worker is killed rather than waited for)."""
    for proc in list(_RUNNING):
        proc.kill()


class WorkerFailed(RuntimeError):
    """A query raised in the worker (a disagreement of the back ends is one): the worker's
    traceback, so the failure is as loud as it would be in process."""


def run_isolated(game: model.Game, spec: str | Path, variants: Mapping[str, str] | None,
                 names: Sequence[str], limit: int = Q.RLIMIT,
                 seconds: float = Q.SAFETY_SECONDS) -> Iterator[Q.Result]:
    """Each named query's result for `game` (loaded from `spec` with `variants`), in
    order, each within `limit` z3 resource units; none takes longer than `seconds`."""
    players = game.ir.players
    pending = list(names)
    ctx = mp.get_context("spawn")  # a fresh interpreter: no z3 state shared with the parent
    while pending:
        parent, child = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_work, args=(child, str(spec), players, dict(variants or {}),
                                               pending, limit, seconds), daemon=True)
        with _hash_seed_fixed():
            proc.start()
        _RUNNING.add(proc)
        child.close()
        try:
            for res in _collect(parent, pending, seconds):
                yield _attach(res, game)
        finally:
            parent.close()
            proc.kill()
            proc.join()
            _RUNNING.discard(proc)


@contextlib.contextmanager
def _hash_seed_fixed() -> Iterator[None]:
    """The worker's string hashes fixed: the order in which sets of names are walked, and so
    the formulas built and z3's count of work on them, the same on every run."""
    old = os.environ.get("PYTHONHASHSEED")
    os.environ["PYTHONHASHSEED"] = "0"
    try:
        yield
    finally:
        if old is None:
            del os.environ["PYTHONHASHSEED"]
        else:
            os.environ["PYTHONHASHSEED"] = old


def _collect(conn: Connection, pending: list[str], seconds: float) -> Iterator[_Portable]:
    """Results from one worker; pops each finished or stopped query from `pending`."""
    while pending:
        if not _wait(conn, START_LIMIT):
            raise WorkerFailed(f"the z3 worker did not start {pending[0]} within {START_LIMIT:g} s")
        kind, payload = _recv(conn, pending[0])
        assert kind == "start" and payload == pending[0], (kind, payload)
        t0 = time.perf_counter()
        if not _wait(conn, seconds):
            name = pending.pop(0)
            yield _Portable(Q.Result(name, "timeout", f"ran out of time: stopped by the "
                                     f"{seconds:g} s wall-clock safety net (z3 could not be "
                                     "interrupted); the budget was not used up, so this says "
                                     "nothing of the game", time.perf_counter() - t0))
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
          names: list[str], limit: int, seconds: float) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C: it ends us
    try:
        game = model.load(spec, players=players, variants=variants)
        for name in names:
            conn.send(("start", name))
            with deadline(seconds * INNER_SHARE):
                (res,) = Q.run_all(game, limit=limit, only=[name])
            conn.send(("done", _portable(res)))
    except BaseException:  # the parent re-raises it with this traceback
        conn.send(("error", traceback.format_exc()))
    finally:
        conn.close()


# A witness trace holds the game (its generated code cannot be pickled); it crosses the
# process boundary without it and is attached again to the parent's copy of the game.
@attrs.frozen
class _Portable:
    """A result that can be pickled: its trace's fields but the game, and each action as
    its index and arguments."""

    result: Q.Result  # with no trace
    trace: dict[str, Any] | None = None
    actions: tuple[tuple[int, tuple], ...] = ()


def _portable(res: Q.Result) -> _Portable:
    if res.trace is None:
        return _Portable(res)
    t = res.trace
    fields = {f.name: getattr(t, f.name) for f in attrs.fields(type(t))
              if f.name not in ("game", "actions")}
    return _Portable(attrs.evolve(res, trace=None), fields,
                     tuple((a.index, a.args) for a in t.actions))


def _attach(p: _Portable, game: model.Game) -> Q.Result:
    if p.trace is None:
        return p.result
    actions = [model.Action(game, i, args) for i, args in p.actions]
    return attrs.evolve(p.result, trace=Trace(game=game, actions=actions, **p.trace))
