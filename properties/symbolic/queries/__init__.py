"""z3 queries every game gets: proofs over all well-formed states, and witnesses.

Each query reads only the IR (through the encoding in `properties.symbolic`) and returns a `Result`:
`proved` (for all states), `bounded` (for every game up to the stated number of actions
from the deal), `witness` (a counterexample or a trace, replayed on the concrete model
before it is reported, or one the spec records, replayed), or `unknown`. docs/symbolic.md
says exactly what each proves.

- conservation: every action (with the round transition it may trigger) keeps the count
  of every kind, from every well-formed state; inductive, not a sample.
- invariants: the spec's invariants are inductive (so the other proofs may assume them).
- legal_move: in every well-formed, non-terminal state within a round the player to act
  has a legal action; if not, a concrete state, and a search for one reachable from a deal.
- reach: the shortest action sequence from a symbolic deal to a described situation.
- supply: whether a shared zone can be asked for more than it holds (a payment short, a
  draw from an empty pile, an exchange the bank cannot make) in a legal game.
- round_bound: the round measure falls with every action inside a round; the bound on
  a round's length that follows, or a cycle inside a round.
- game_cycle: a game that returns to the same round start (so can go on forever), step by
  step, or as one round ending in the seat-rotated image of its start.
- agreement: random concrete transitions satisfy the z3 transition relation.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import model

from ..terms import Unsupported
from ..witness import replay
from .agreement import agreement, check_transition
from .common import RLIMIT, SAFETY_SECONDS, Result, machine
from .conservation import conservation
from .cycles import game_cycle, round_bound
from .invariants import invariants
from .legal_move import legal_move
from .reach import parse_condition, reach
from .supply import supply

__all__ = ["DESCRIPTIONS", "QUERIES", "REPLAYED", "RLIMIT", "SAFETY_SECONDS", "Result", "agreement",
           "check_transition", "conservation", "game_cycle", "invariants", "legal_move",
           "machine", "parse_condition", "reach", "replay", "round_bound", "run_all", "supply"]


# ---------------------------------------------------------------------- all
QUERIES: dict[str, Callable[..., Result]] = {
    "conservation": conservation,
    "invariants": invariants,
    "legal_move": legal_move,
    "supply": supply,
    "round_bound": round_bound,
    "game_cycle": game_cycle,
    "agreement": agreement,
}


#: The queries that replay the witness a spec records for their expected failure before
#: they search (queries/recorded.py).
REPLAYED = frozenset({"supply", "round_bound", "game_cycle"})


DESCRIPTIONS = {
    "conservation": "inductive: every action keeps every kind's count, from every well-formed state",
    "invariants": "the spec's invariants are inductive (so hold in every reachable state)",
    "legal_move": "every well-formed non-terminal state in a round has a legal action",
    "supply": "no shared supply is asked for more than it holds in a legal game",
    "round_bound": "the round measure falls with every action: a round ends within a bound",
    "game_cycle": "no cycle of rounds makes a game endless",
    "agreement": "random concrete transitions satisfy the z3 transition relation",
}


def run_all(game: model.Game, limit: int = RLIMIT, only: Sequence[str] | None = None
            ) -> list[Result]:
    out = []
    for name, fn in QUERIES.items():
        if only and name not in only:
            continue
        t0 = time.perf_counter()
        try:
            res = fn(game, limit=limit)
        except Unsupported as exc:
            res = Result(name, "unknown", f"not encoded: {exc}")
        res.seconds = time.perf_counter() - t0
        out.append(res)
    return out
