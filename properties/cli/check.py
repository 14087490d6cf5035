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
from model.loader import any_player_count

from ..concrete.coverage import Coverage
from ..concrete.playout import PROPERTIES, Counter, Finding, Limits, play_and_check


@attrs.frozen
class Row:
    game: str
    players: int
    property: str
    status: str  # holds / FAILS / expected failure / UNEXPECTEDLY HOLDS / unknown / error
    detail: str
    finding: Finding | None = None
    seconds: float = 0.0
    variants: str = ""  # the variants that differ from the default, "a=v,b=w"
    replay: dict | None = None  # a state-machine failure's replay data (with its shuffles)

    @property
    def ok(self) -> bool:
        return self.status in ("holds", "expected failure", "warning", "unknown")


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
               progress: Callable[[str], None] | None = None,
               profile: str | None = "ci", examples: int | None = None,
               steps: int | None = None,
               coverage: Coverage | None = None) -> tuple[list[Row], Counter]:
    """Rows of the check table for one spec, and how often each action fired.

    Every configuration gets `games` seeded random playouts and, unless `profile` is
    None, the Hypothesis state machine of the property suite with that profile (the
    same runs `pytest spec/` makes; the profile also picks the variants, unless
    `variants` fixes them). A property fails if either finds a failure; the state
    machine's shrunk trace is preferred. `coverage` collects what the runs exercised.
    """
    from ..concrete.stateful import CHECKS, PROFILES, Config, configurations, run_game

    rows: list[Row] = []
    fired = Counter()
    base = model.load_ir(spec, players=any_player_count(spec), variants=variants)
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
    if coverage is not None and profile is None:
        coverage.traced = False  # seeded playouts count actions but trace no clauses
    if profile is None or variants:
        configs = [Config(n, tuple(sorted((variants or {}).items()))) for n in counts]
    else:
        configs = configurations(base, PROFILES[profile], counts)
    for cfg in configs:
        game = model.load(spec, players=cfg.players, variants=dict(cfg.variants))
        if progress:
            progress(f"{base.id}: {games} games and the {profile or 'no'} state machine at "
                     f"{cfg.label}")
        first: dict[str, Finding] = {}
        t0 = time.perf_counter()
        here = Counter()
        for s in range(seed, seed + games):
            findings, used = play_and_check(game, s, Limits())
            for k, v in used.items():
                fired[k] += v
                here[k] += v
            for f in findings:
                first.setdefault(f.property, f)
        outcomes = {}
        if profile is not None:
            expected = [p for p in CHECKS if (e := expectation_for(game.ir, p)) is not None
                        and e.result == "fail"]
            outcomes = run_game(game, profile, examples=examples, steps=steps, spec=str(spec),
                                coverage=coverage, expected_failures=expected)
        if coverage is not None:
            coverage.actions.update(here)
            coverage.players.add(cfg.players)
            coverage.variants |= set(game.ir.chosen.items())
        elapsed = time.perf_counter() - t0
        label = ",".join(f"{a}={v}" for a, v in cfg.variants)
        for prop in PROPERTIES:
            row = _row(game.ir, prop, first.get(prop), games, elapsed / len(PROPERTIES),
                       outcomes.get(prop))
            rows.append(attrs.evolve(row, variants=label))
    return rows, fired


def _row(g: ir.GameIR, prop: str, finding: Finding | None, games: int, seconds: float,
         outcome=None) -> Row:
    expected = expectation_for(g, prop)
    ran = f"{games} games" + (f" + {outcome.message}" if outcome is not None
                              and outcome.status == "holds" else "")
    replay = None
    if outcome is not None and outcome.status == "fails":
        replay = outcome.replay
        detail = f"after {len(outcome.trace.actions)} actions (shrunk): {outcome.message}"
    elif outcome is not None and outcome.status == "error":
        return Row(g.id, g.players, prop, "error", outcome.message, None, seconds)
    elif finding is not None:
        detail = f"seed {finding.seed}, after {len(finding.actions)} actions: {finding.message}"
    else:
        if games < 1 and (outcome is None or outcome.status != "holds"):
            return Row(g.id, g.players, prop, "FAILS", "no game and no example ran: nothing "
                       "was checked", None, seconds)
        if expected is not None and expected.result == "may_fail":
            return Row(g.id, g.players, prop, "holds", f"{ran}; a known hole, not hit this "
                       f"time: {expected.reason}", None, seconds)
        if expected is not None and expected.result == "fail":
            return Row(g.id, g.players, prop, "UNEXPECTEDLY HOLDS",
                       f"declared to fail ({expected.reason}) but held in {ran}",
                       None, seconds)
        return Row(g.id, g.players, prop, "holds", ran, None, seconds)
    if expected is not None and expected.result in ("fail", "may_fail"):
        return Row(g.id, g.players, prop, "expected failure", f"{expected.reason} ({detail})",
                   finding, seconds, replay=replay)
    return Row(g.id, g.players, prop, "FAILS", detail, finding, seconds, replay=replay)


def all_specs(spec_dir: Path | None = None) -> list[Path]:
    from model.schema import SPEC_DIR

    return sorted((spec_dir or SPEC_DIR).glob("*.yaml"))
