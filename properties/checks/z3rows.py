"""The z3 rows of `rulespec check`, and the text of `rulespec query`.

Each z3 query becomes a row `z3_<query>` per player count, with its time. A spec may
declare a z3 result as expected (`expect: [{property: z3_supply, result: fail, ...}]`),
exactly as for the Hypothesis properties.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import attrs

import model
from model import ir

from ..symbolic import queries as Q
from ..symbolic.isolate import run_isolated
from ..symbolic.queries.recorded import recorded_problem
from .rows import Row, expectation_for


def z3_rows(spec: str | Path, players: Iterable[int], *, variants: Mapping[str, str] | None = None,
            limit: int = Q.RLIMIT, seconds: float = Q.SAFETY_SECONDS,
            only: Iterable[str] | None = None, jobs: int = 1,
            progress: Callable[[str], None] | None = None) -> tuple[list[Row], list[Q.Result]]:
    """Rows of the check table for every z3 query at every player count, in that order.

    Each query may spend `limit` z3 resource units; each player count's queries run in a
    worker process that stops a query still running after `seconds` (the safety net, see
    `isolate`); `jobs` workers run side by side, one player count each.
    """
    names = [q for q in Q.QUERIES if not only or q in only]

    def one_count(n: int) -> tuple[model.Game, list[Q.Result]]:
        game = model.load(spec, players=n, variants=variants)
        if progress:
            progress(f"{game.id}: z3 queries with {n} players")
        return game, list(run_isolated(game, spec, variants, names, limit, seconds))

    rows: list[Row] = []
    results: list[Q.Result] = []
    with ThreadPoolExecutor(max_workers=max(jobs, 1)) as pool:
        # threads only wait on the workers' pipes; z3 runs in the worker processes
        for future in [pool.submit(one_count, n) for n in players]:
            game, done = future.result()
            for res in done:
                results.append(res)
                rows.append(row_of(game, res))
    return rows, results


def row_of(game: model.Game, res: Q.Result) -> Row:
    g = game.ir
    prop = f"z3_{res.query}"
    expected = expectation_for(g, prop)
    detail = res.detail
    #: the expectation, when it declares the query failing
    declared = expected if expected is not None and expected.result == "fail" else None
    row = Row(g.id, g.players, prop, "", detail, None, res.seconds, bound=res.bound,
              spent=res.spent)
    if res.status == "proved":
        if declared is not None:
            return attrs.evolve(row, status="UNEXPECTEDLY HOLDS",
                                detail=f"declared to fail ({declared.reason}) but z3 proved: "
                                f"{detail}").with_declaration(g)
        return attrs.evolve(row, status="holds", detail=f"proved: {detail}").with_declaration(g)
    if res.status == "witness":
        shown = attrs.evolve(row, found_by=res.found_by, start=res.start)
        how = "" if res.found_by == "recorded" else f"{provenance(res)}: "
        if declared is not None:
            return attrs.evolve(shown, status="expected failure",
                                detail=f"{declared.reason} ({how}{detail})")
        return attrs.evolve(shown, status="FAILS", detail=f"{how}{detail}").with_declaration(g)
    if res.status == "timeout":
        return attrs.evolve(row, status="out of time").with_declaration(g)
    if declared is not None:
        # neither proved nor shown: not a failure of the run (a search within a limit
        # refutes nothing), but not the failure the spec declares either
        return attrs.evolve(row, status="failure not shown",
                            detail=f"declared to fail ({declared.reason}) but not shown: "
                            f"{_recorded_note(g, res.query, declared.witness)}z3: {detail}")
    status = "bounded" if res.status == "bounded" else "unknown"
    return attrs.evolve(row, status=status).with_declaration(g)


def provenance(res: Q.Result) -> str:
    """Who found a witness, as a row says it: `recorded in FILE` (the detail names it) or
    `found by z3 from a deal after N actions` (or by the deep search)."""
    if res.found_by == "recorded":
        return "recorded"
    n = len(res.trace.actions) if res.trace is not None else res.bound
    start = "from a deal" if res.start == "deal" else "from a situation"
    who = "the deep search" if res.found_by == "search" else "z3"
    return f"found by {who} {start}" + (f" after {n} actions" if n is not None else "")


def _recorded_note(g: ir.GameIR, query: str, witness: str | None) -> str:
    if not witness:
        return ""
    if query in Q.REPLAYED:
        problem = recorded_problem(g, f"z3_{query}")
        if problem is not None:
            return f"the recorded witness cannot be replayed: {problem}; "
        return f"the recorded witness {witness} does not show it; "
    return f"the spec records a witness of it, {witness}, which this query does not replay; "


def trace_text(game: model.Game, res: Q.Result) -> str:
    """A witness as a person reads it: the deal, the actions, the situation reached."""
    from ..concrete import trace as tr

    assert res.trace is not None
    enc = Q.machine(game).enc
    t = res.trace
    lines = []
    states = Q.replay(enc, t)
    lines.append("the deal (a shuffle z3 chose):" if t.start == "deal" else "the situation:")
    lines.append(tr.describe(game, states[0]))
    for n, (a, state) in enumerate(zip(t.actions, states[1:], strict=True), 1):
        lines.append(f"{n:4d}. player {states[n - 1].active_player}: {a}")
        if state.round != states[n - 1].round:
            lines.append(f"      round {states[n - 1].round} ends; scores {list(state.scores)}")
    lines.append("reached:")
    lines.append(tr.describe(game, states[-1]))
    if t.compared is None:
        lines.append("replayed on the concrete model: every state equals z3's")
    else:
        lines.append(f"replayed on the concrete model: the first {t.compared} state(s) equal "
                     "z3's; the encoding cannot hold an item in a zone of the other class, "
                     "so the rest are the concrete model's alone")
    return "\n".join(lines)
