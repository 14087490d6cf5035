"""`rulespec check`: every property of every spec, over seeded random games, as a table.

A spec's `expect` entries say which properties are known to fail (a hole in the
printed rules) and why; such a failure is reported as expected, and an expected
failure that no longer fails is reported too, so the manifest stays true.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import attrs

import model
from model import ir

from .playout import PROPERTIES, Counter, Finding, Limits, play_and_check


@attrs.frozen
class Row:
    game: str
    players: int
    property: str
    status: str  # holds / FAILS / expected failure / UNEXPECTEDLY HOLDS / unknown / error
    detail: str
    finding: Finding | None = None
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status in ("holds", "expected failure", "unknown")


def expectation_for(g: ir.GameIR, prop: str) -> ir.Expectation | None:
    for e in g.expectations:
        if e.property != prop:
            continue
        if e.players and g.players not in e.players:
            continue
        if any(g.chosen.get(k) != v for k, v in e.variants.items()):
            continue
        return e
    return None


def check_spec(spec: str | Path, *, games: int, seed: int = 0,
               players: Iterable[int] | None = None,
               variants: Mapping[str, str] | None = None,
               progress: Callable[[str], None] | None = None) -> tuple[list[Row], Counter]:
    """Rows of the check table for one spec, and how often each action fired."""
    rows: list[Row] = []
    fired = Counter()
    base = model.load_ir(spec, players=_any_player_count(spec), variants=variants)
    counts = list(players) if players else list(range(base.min_players, base.max_players + 1))
    # Spec validity: every player count and every variant of every ambiguity loads.
    t0 = time.perf_counter()
    loaded = 0
    for n in counts:
        model.load(spec, players=n, variants=variants)
        loaded += 1
        for amb in base.ambiguities:
            for v in amb.variants:
                model.load(spec, players=n, variants={**(variants or {}), amb.id: v.name})
                loaded += 1
    rows.append(Row(base.id, 0, "spec_valid", "holds",
                    f"{loaded} compilations (player counts x variants)", None,
                    time.perf_counter() - t0))
    for n in counts:
        game = model.load(spec, players=n, variants=variants)
        if progress:
            progress(f"{base.id}: {games} games with {n} players")
        first: dict[str, Finding] = {}
        t0 = time.perf_counter()
        for s in range(seed, seed + games):
            findings, used = play_and_check(game, s, Limits())
            for k, v in used.items():
                fired[k] += v
            for f in findings:
                first.setdefault(f.property, f)
        elapsed = time.perf_counter() - t0
        for prop in PROPERTIES:
            rows.append(_row(game.ir, prop, first.get(prop), games, elapsed / len(PROPERTIES)))
    return rows, fired


def _row(g: ir.GameIR, prop: str, finding: Finding | None, games: int, seconds: float) -> Row:
    expected = expectation_for(g, prop)
    if finding is None:
        if expected is not None and expected.result == "fail":
            return Row(g.id, g.players, prop, "UNEXPECTEDLY HOLDS",
                       f"declared to fail ({expected.reason}) but held in {games} games",
                       None, seconds)
        return Row(g.id, g.players, prop, "holds", f"{games} games", None, seconds)
    detail = f"seed {finding.seed}, after {len(finding.actions)} actions: {finding.message}"
    if expected is not None and expected.result == "fail":
        return Row(g.id, g.players, prop, "expected failure", f"{expected.reason} ({detail})",
                   finding, seconds)
    return Row(g.id, g.players, prop, "FAILS", detail, finding, seconds)


def _any_player_count(spec: str | Path) -> int:
    from model.loader import resolve_spec_path
    from model.source import read_yaml

    doc = read_yaml(resolve_spec_path(spec))
    try:
        return int(doc.data["players"]["min"])
    except (TypeError, KeyError, ValueError):
        return 2  # the schema check inside load_ir reports the real problem


def all_specs(spec_dir: Path | None = None) -> list[Path]:
    from model.schema import SPEC_DIR

    return sorted((spec_dir or SPEC_DIR).glob("*.yaml"))
