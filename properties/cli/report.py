"""What `rulespec check` prints: a summary to take in at a glance, the full table, JSON.

The summary has one line per game and property, across player counts and variant
configurations (`game  conservation  holds 2-6p, 13 configurations (z3 proved 2-6p)`),
followed by the rows that need a reader: those that fail, are expected to fail, hold
only up to a bound, or are unknown. `--verbose` prints every row; `--json FILE` writes
every row as data, with stable keys (`json_report`): its verdict (checks/verdict.py), who
found a witness and where it starts, and the z3 resource units a query spent.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..checks.rows import Row
from ..checks.verdict import Verdict
from ..concrete.invariants import PROPERTIES

#: Statuses in the order a reader needs them: the worst first.
ORDER = ("FAILS", "error", "UNEXPECTEDLY HOLDS", "failure not shown", "out of time", "unknown",
         "bounded", "warning", "expected failure", "holds")
JSON_FORMAT = 2


def needs_reading(r: Row) -> bool:
    return r.status != "holds"


def player_counts(counts: Iterable[int]) -> str:
    """`2-6p`, `2p, 4-6p`: player counts as runs."""
    ns = sorted(set(counts))
    runs: list[list[int]] = []
    for n in ns:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"{r[0]}-{r[-1]}p" if len(r) > 1 else f"{r[0]}p" for r in runs)


def _part(rows: list[Row], z3: bool) -> str:
    """What a set of rows of one property says, status by status."""
    pieces = []
    for status in ORDER:
        rs = [r for r in rows if r.status == status]
        if not rs:
            continue
        word = {"holds": "proved", "bounded": "proved up to a bound"}.get(status, status) \
            if z3 else status
        where = player_counts(r.players for r in rs)
        if not z3 and status != "holds" and len(rs) <= 2 and any(r.variants for r in rs):
            where = "; ".join(f"{r.players}p" + (f" {r.variants}" if r.variants else "")
                              for r in rs)
        elif len(rs) > len({r.players for r in rs}):
            where += f" ({len(rs)} configurations)"
        pieces.append(f"{word} {where}")
    return ", ".join(pieces)


def summary_lines(rows: list[Row]) -> list[str]:
    """One line per game and property; z3's proof of the same property in brackets."""
    groups: dict[tuple[str, str], tuple[list[Row], list[Row]]] = {}
    for r in rows:
        base = r.property[3:] if r.property.startswith("z3_") else r.property
        is_z3 = r.property.startswith("z3_")
        name = base if base in PROPERTIES or not is_z3 else r.property
        concrete_rows, z3_rows = groups.setdefault((r.game, name), ([], []))
        (z3_rows if is_z3 else concrete_rows).append(r)
    width_game = max((len(g) for g, _ in groups), default=4)
    width_prop = max((len(p) for _, p in groups), default=8)
    out = []
    for (game, prop), (concrete, z3) in groups.items():
        if prop in ("spec_valid", "coverage"):
            (r,) = concrete
            text = f"{r.status}{' (accepted by the spec)' if r.accepted else ''}: {r.detail}"
        elif concrete:
            text = _part(concrete, False) + (f" (z3 {_part(z3, True)})" if z3 else "")
        else:
            text = _part(z3, True)
        out.append(f"{game:<{width_game}}  {prop:<{width_prop}}  {text}")
    return out


def detail_lines(rows: list[Row]) -> list[str]:
    """The rows that need reading, those with the same text together."""
    same: dict[tuple[str, str, str, str], list[Row]] = {}
    for r in rows:
        if needs_reading(r) and r.property not in ("coverage",):
            same.setdefault((r.game, r.property, r.status, r.detail), []).append(r)
    out = []
    for (game, prop, status, detail), rs in sorted(
            same.items(), key=lambda kv: (kv[0][0], ORDER.index(kv[0][2]), kv[0][1])):
        where = "; ".join(f"{r.players}p" + (f" {r.variants}" if r.variants else "") for r in rs)
        if len(rs) > 3:
            where = f"{player_counts(r.players for r in rs)} ({len(rs)} configurations)"
        out.append(f"{game} {prop} {status} at {where}: {detail}")
    return out


def table_lines(rows: list[Row]) -> list[str]:
    """Every row: game, players and variants, property, result, time, detail."""
    header = ("game", "players", "property", "result", "time", "detail")
    table = [(r.game, str(r.players or "all") + (f" {r.variants}" if r.variants else ""),
              r.property, r.status, "cached" if r.cached else f"{r.seconds:.2f}s", r.detail)
             for r in rows]
    widths = [max(len(h), *(len(t[i]) for t in table)) for i, h in enumerate(header[:-1])]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths) + "  {}"
    return [fmt.format(*header), fmt.format(*("-" * w for w in widths), "-" * 6)] + [
        fmt.format(*t) for t in table]


def json_report(rows: list[Row], specs: Mapping[str, str], replays: Mapping[int, str],
                coverage: Mapping[str, list[dict[str, Any]]], seconds: float,
                exit_code: int) -> dict[str, Any]:
    """Every row as data. `replays` maps a row's index to the replay file written for it,
    `coverage` a game to its unexercised parts."""
    return {
        "format": JSON_FORMAT,
        "exit_code": exit_code,
        "seconds": round(seconds, 3),
        "passed": sum(r.ok for r in rows),
        "failed": sum(not r.ok for r in rows),
        "verdicts": {v.value: sum(r.verdict is v for r in rows) for v in Verdict},
        "accepted_undecided": sum(r.accepted for r in rows),
        "cached": sum(r.cached for r in rows),
        "specs": [{"game": g, "spec": s} for g, s in specs.items()],
        "summary": summary_lines(rows),
        "rows": [{"game": r.game, "players": r.players or None,
                  "variants": dict(v.split("=", 1) for v in r.variants.split(",") if v),
                  "property": r.property, "status": r.status, "verdict": r.verdict.value,
                  "ok": r.ok, "accepted_undecided": r.accepted_undecided,
                  "found_by": r.found_by, "start": r.start, "z3_units": r.spent,
                  "bound": r.bound, "detail": r.detail, "seconds": round(r.seconds, 3),
                  "cached": r.cached, "replay": replays.get(i)}
                 for i, r in enumerate(rows)],
        "coverage": [{"game": g, "gaps": gs} for g, gs in coverage.items()],
    }
