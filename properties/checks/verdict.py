"""What a row of `rulespec check` claims: one of five verdicts, each with one meaning.

- `proved`: z3 proved the property, for every well-formed state or every game;
- `tested`: the property held in every seeded game and Hypothesis example that ran (a
  sample, not a proof: the concrete back end's claim);
- `shown`: the property fails as the spec declares, shown by a witness that replays;
- `failing`: contrary to the spec: a failure it does not declare, a declared failure that
  held, or a check that could not run;
- `undecided`: neither proved nor shown within the budget (bounded, unknown, out of
  time, a declared failure not shown, rules never exercised).

A run passes when every row is decided as the spec declares; a spec may accept a row as
undecided within its budget (`expect: [{property: ..., result: undecided, reason: ...}]`),
and is told when such a row becomes decided. `exit_code` is the one table of exit codes.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable


class Verdict(enum.Enum):
    PROVED = "proved"
    TESTED = "tested"
    SHOWN = "shown"
    FAILING = "failing"
    UNDECIDED = "undecided"


#: The row statuses of each verdict, for the z3 rows and for the concrete ones (a concrete
#: row that holds is tested, a z3 row that holds proved).
_Z3 = {"holds": Verdict.PROVED, "expected failure": Verdict.SHOWN}
_CONCRETE = {"holds": Verdict.TESTED, "expected failure": Verdict.SHOWN}
FAILING = frozenset({"FAILS", "UNEXPECTEDLY HOLDS", "error"})
UNDECIDED = frozenset({"bounded", "unknown", "failure not shown", "out of time", "warning",
                       "undecided (declared)"})

#: Who found a witness: z3's search, the deep search, Hypothesis, a seeded playout, or a
#: replay file the spec records (a regression test, not a result of the tool).
FOUND_BY = ("z3", "search", "hypothesis", "playout", "recorded")


def verdict_of(status: str, z3: bool) -> Verdict:
    """The verdict of a row with this status (`z3`: a row of a z3 query)."""
    if status in FAILING:
        return Verdict.FAILING
    if status in UNDECIDED:
        return Verdict.UNDECIDED
    table = _Z3 if z3 else _CONCRETE
    if status not in table:
        raise ValueError(f"no verdict for a row with status {status!r}")
    return table[status]


#: `rulespec check` exits with: 0 every row decided as the spec declares (or accepted as
#: undecided), 1 a property fails, 2 bad input, 3 rows stay undecided, 4 a bug in rulespec,
#: 130 interrupted.
EXIT_OK, EXIT_FAILING, EXIT_BAD_INPUT, EXIT_UNDECIDED, EXIT_BUG, EXIT_INTERRUPTED = (
    0, 1, 2, 3, 4, 130)


def exit_code(verdicts: Iterable[tuple[Verdict, bool]]) -> int:
    """The exit code of a run whose rows have these (verdict, accepted) pairs: failing
    before undecided; an undecided row the spec accepts does not count."""
    failing = undecided = False
    for v, accepted in verdicts:
        failing |= v is Verdict.FAILING
        undecided |= v is Verdict.UNDECIDED and not accepted
    return EXIT_FAILING if failing else EXIT_UNDECIDED if undecided else EXIT_OK


def counts_line(verdicts: Iterable[tuple[Verdict, bool]]) -> str:
    """`12 proved, 800 tested, 27 shown, 2 undecided (1 accepted by the spec), 0 failing`."""
    n = dict.fromkeys(Verdict, 0)
    accepted = 0
    for v, ok in verdicts:
        n[v] += 1
        accepted += v is Verdict.UNDECIDED and ok
    undecided = f"{n[Verdict.UNDECIDED]} undecided"
    if accepted:
        undecided += f" ({accepted} accepted by the spec)"
    return (f"{n[Verdict.PROVED]} proved, {n[Verdict.TESTED]} tested, {n[Verdict.SHOWN]} shown, "
            f"{undecided}, {n[Verdict.FAILING]} failing")
