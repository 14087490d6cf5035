"""The jobs of `rulespec check`, each a plain function of plain data returning JSON data.

A job's result depends only on its arguments (each configuration is seeded as it would
be alone), so jobs may run in any order, in any process, and be cached
(properties/checks/cache.py): `validate_spec` (every player count and variant compiles),
`run_configuration` (seeded playouts and the state machine at one configuration) and
`run_z3` (z3 queries at one player count). `valid_*` check the shape of a result read
back from the cache, which is untrusted input: whatever passes them is safe to use.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import model
from model import RulespecError

from ..concrete.coverage import Coverage
from ..concrete.playout import Limits, play_games
from .verdict import FOUND_BY

Result = dict[str, Any]


def failed(exc: RulespecError) -> Result:
    """A job stopped by bad input: the message and exit code the command reports."""
    return {"error": str(exc), "exit_code": exc.exit_code}


# ------------------------------------------------------------------ spec_valid
def validate_spec(spec: str, counts: Sequence[int], variants: Mapping[str, str]) -> Result:
    """Compile the spec at every player count with the chosen variants, and with every
    other variant of every ambiguity in turn."""
    t0 = time.perf_counter()
    try:
        base = model.load_ir(spec, players=counts[0], variants=variants)
        loaded = 0
        for n in counts:
            model.load(spec, players=n, variants=variants)
            loaded += 1
            for amb in base.ambiguities:
                for v in amb.variants:
                    if v.name != base.chosen[amb.id]:  # the chosen one compiled above
                        model.load(spec, players=n, variants={**variants, amb.id: v.name})
                        loaded += 1
    except RulespecError as exc:
        return failed(exc)
    return {"compilations": loaded, "seconds": time.perf_counter() - t0}


def valid_spec_result(r: Any) -> bool:
    return _has(r, compilations=int, seconds=float)


# ------------------------------------------------------------------ configurations
def run_configuration(spec: str, players: int, variants: Mapping[str, str], *, games: int,
                      seed: int, profile: str | None, examples: int | None, steps: int | None,
                      expected: Sequence[str]) -> Result:
    """`games` seeded playouts and (unless `profile` is None) the state machine at one
    configuration; `expected` are the properties the spec expects may fail there (looked
    for first, not shrunk). Coverage names clauses by "line:column"."""
    from ..concrete.stateful import run_game

    t0 = time.perf_counter()
    try:
        game = model.load(spec, players=players, variants=variants)
    except RulespecError as exc:
        return failed(exc)
    limits = Limits()
    batch = play_games(game, seed, games, limits)
    cov = Coverage(spec)
    cov.players.add(players)
    cov.variants |= set(game.ir.chosen.items())
    outcomes = {}
    if profile is None:
        cov.traced = False  # seeded playouts count actions but trace no clauses
    else:
        outcomes = run_game(game, profile, examples=examples, steps=steps, spec=spec,
                            coverage=cov, expected_failures=expected)
    cov.actions.update(batch.fired)
    ends = batch.ends  # the seeded playouts count too: what they reached is exercised
    cov.round_ends.update(ends.round_ends)
    cov.game_ends.update(ends.game_ends)
    cov.games += ends.games
    cov.rounds += ends.rounds
    cov.finished += ends.finished
    cov.steps += sum(batch.fired.values())
    return {
        "seconds": time.perf_counter() - t0,
        "games": games, "cut": batch.cut, "cut_at": limits.after_endless,
        "findings": {p: {"seed": f.seed, "message": f.message, "actions": list(f.actions)}
                     for p, f in batch.findings.items()},
        "outcomes": {p: {"status": o.status, "message": o.message,
                         "actions": len(o.trace.actions) if o.trace is not None else None,
                         "replay": o.replay}
                     for p, o in outcomes.items()},
        "coverage": cov.to_dict(),
    }


def valid_configuration_result(r: Any) -> bool:
    if not _has(r, seconds=float, games=int, cut=int, cut_at=int, findings=dict,
                outcomes=dict, coverage=dict):
        return False
    return (all(isinstance(p, str) and _has(f, seed=int, message=str, actions=list)
                and _strings(f["actions"]) for p, f in r["findings"].items())
            and all(isinstance(p, str) and _has(o, status=str, message=str)
                    and o["status"] in ("holds", "fails", "error")
                    and isinstance(o.get("actions"), int | None)
                    and (o.get("replay") is None or valid_replay(o["replay"]))
                    for p, o in r["outcomes"].items())
            and valid_coverage(r["coverage"]))


def valid_coverage(c: Any) -> bool:
    counters = ("actions", "round_ends", "game_ends")
    return (_has(c, spec=str, actions=dict, round_ends=dict, game_ends=dict, statements=list,
                 variants=list, players=list, traced=bool, steps=int, games=int, rounds=int,
                 finished=int)
            and all(isinstance(k, str) and _int(v) for name in counters
                    for k, v in c[name].items())
            and _strings(c["statements"])
            and all(isinstance(v, list) and len(v) == 2 and _strings(v) for v in c["variants"])
            and all(_int(n) for n in c["players"]))


def valid_replay(d: Any) -> bool:
    """The data of a replay file as the runs make it (properties/concrete/trace.py)."""
    return (_has(d, spec=str, players=int, variants=dict, actions=list)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in d["variants"].items())
            and _strings(d["actions"])
            and isinstance(d.get("shuffles", []), list)
            and all(isinstance(s, list) and _strings(s) for s in d.get("shuffles", []))
            and isinstance(d.get("note", ""), str)
            and isinstance(d.get("situation", {}), dict))


# ------------------------------------------------------------------ z3
def run_z3(spec: str, players: int, variants: Mapping[str, str], queries: Sequence[str],
           limit: int, seconds: float) -> list[Result]:
    """The named z3 queries at one player count, through `z3rows.z3_rows` (each query
    within `limit` z3 resource units, in a worker process that stops it after `seconds`),
    one result per query in order."""
    from .z3rows import z3_rows

    _, results = z3_rows(spec, [players], variants=variants, limit=limit, seconds=seconds,
                         only=queries, jobs=1)
    return [{"query": r.query, "status": r.status, "detail": r.detail,
             "seconds": float(r.seconds), "bound": r.bound, "spent": r.spent,
             "found_by": r.found_by, "start": r.start,
             "replay": r.replay if r.replay is not None
             else r.trace.to_replay(r.detail) if r.trace is not None else None}
            for r in results]


def valid_z3_result(r: Any) -> bool:
    return (_has(r, query=str, status=str, detail=str, seconds=float)
            and r["status"] in ("proved", "bounded", "witness", "unknown", "timeout", "error")
            and isinstance(r.get("bound"), int | None) and _int(r.get("spent", 0))
            and r.get("found_by") in (None, *FOUND_BY) and r.get("start") in (None, "deal",
                                                                               "situation")
            and (r.get("replay") is None or valid_replay(r["replay"])))


# ------------------------------------------------------------------ shapes
def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _strings(items: list) -> bool:
    return all(isinstance(x, str) for x in items)


def _has(d: Any, **types: type) -> bool:
    """`d` is a dict with these keys, each of its type (a float may be written as an int)."""
    if not isinstance(d, dict):
        return False
    for key, t in types.items():
        v = d.get(key)
        if t is float:
            ok = isinstance(v, int | float) and not isinstance(v, bool)
        elif t is int:
            ok = _int(v)
        else:
            ok = isinstance(v, t)
        if not ok:
            return False
    return True
