"""What a reading does to the game, for the FAQ: the play statistics that change
significantly when the ruling is replaced by another reading (the statistics engine of
`rulespec stats` and `rulespec diff`: the same seeds on both, 95% intervals, Holm's
correction over every statistic compared).

A fixed number of games per policy, not a time budget, so that the same rules give the
same numbers on any machine and with any number of jobs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from model import ir

from ..compare import policies, report
from ..compare.runner import Version
from ..compare.stats import compare_play
from . import commands

#: Games per policy and version; enough for about +-3 percentage points on a win share.
GAMES = 1000


@attrs.frozen
class Change:
    """One statistic that differs significantly: under the ruling, under the reading, and
    the difference, each with its 95% interval, as the statistics report writes them."""

    policy: str
    label: str
    ruling: str
    reading: str
    difference: str


@attrs.frozen
class Effect:
    """The statistics compared at one player count: games per policy and what changed."""

    players: int
    games: int
    changes: tuple[Change, ...]
    policy_version: int = policies.VERSION  # the policies that played them

    def to_data(self) -> dict[str, Any]:
        return {"players": self.players, "games": self.games, "policies": self.policy_version,
                "changes": [attrs.asdict(c) for c in self.changes]}

    @classmethod
    def from_data(cls, d: dict[str, Any]) -> Effect:
        """Statistics read back (stored before policies had a version: version 1)."""
        return cls(int(d["players"]), int(d["games"]),
                   tuple(Change(**{k: str(v) for k, v in c.items()}) for c in d["changes"]),
                   int(d.get("policies", 1)))

    @property
    def current(self) -> bool:
        """Played by today's policies (else `rulespec faq` plays them again)."""
        return self.policy_version == policies.VERSION


def statistics_effect(spec: Path, amb: ir.Ambiguity, reading: str, players: int,
                      games: int = GAMES) -> Effect:
    """The ruling and `reading` played on the same seeds, `games` games per policy."""
    ruling = Version.of(spec, {amb.id: amb.default}, label=amb.default)
    other = Version.of(spec, {amb.id: reading}, label=reading)
    c = compare_play(ruling, other, players=[players], games=games)
    return Effect(players, games, tuple(
        Change(r.policy, r.label, _estimate(r.kind, r.old), _estimate(r.kind, r.new),
               report.difference(r.kind, r.difference))
        for r in c.significant))


def _estimate(kind: str, e: Any) -> str:
    return "–" if e is None else f"{report.value(kind, e.value)} {report.interval(kind, e)}"


@attrs.frozen
class Declared:
    """A property the spec declares failing under a reading: the sentence (`text`, with
    the property in backticks) and the `rulespec check` run of that configuration
    (`command`), which shows the failure as the spec declares it."""

    text: str
    command: str
    property: str
    result: str  # "fail" or "may_fail", as declared
    players: tuple[int, ...]  # the counts it is declared for (none: every count)


def property_changes(g: ir.GameIR, amb: ir.Ambiguity, reading: str,
                     spec: str | None = None) -> tuple[Declared, ...]:
    """The properties the spec declares failing under `reading` (each with its reason):
    `rulespec check` runs every reading and fails if such a property holds after all.
    `spec`: how a command names the spec (default: the game id)."""
    out = []
    for e in g.expectations:
        if e.variants.get(amb.id) != reading or e.property == "coverage":
            continue
        at = f" with {', '.join(map(str, e.players))} players" if e.players else ""
        also = [f"{k}={v}" for k, v in e.variants.items() if k != amb.id]
        together = f" (together with {', '.join(also)})" if also else ""
        verb = "fails" if e.result == "fail" else "can fail"
        out.append(Declared(f"`{e.property}` {verb}{at}{together}: {e.reason}",
                            commands.check(spec or g.id, e.players, e.variants),
                            e.property, e.result, tuple(e.players)))
    return tuple(out)


def effect_text(e: Effect) -> str:
    """One paragraph: what changes significantly, or that nothing does, with the games."""
    greedy = "greedy" if e.current else "a greedy player who saw every hand, an earlier policy"
    games = (f"{e.games} games per policy (uniform random and {greedy}) with {e.players} "
             "players, the same deals under both readings")
    if not e.changes:
        return f"No play statistic differs significantly ({games})."
    shown = "; ".join(f"{c.label} ({c.policy}) {c.ruling} under the ruling, {c.reading} under "
                      f"this reading, a difference of {c.difference}" for c in e.changes[:6])
    more = f" (and {len(e.changes) - 6} more)" if len(e.changes) > 6 else ""
    return f"Significant changes in play ({games}; 95% intervals): {shown}{more}."
