"""The property table of `rulespec check` for both versions, old beside new, with what changed
marked: newly failing (with its replay file), newly holding, expectation changed.

Both tables come from `rulespec check`'s own plan, runner and cache, so a row here is
exactly a row there: every configuration the profile checks (player count and choice of
readings) where neither version fixes its readings, else each version at the readings it
fixes. A row undecided on either side (bounded, unknown, out of time) is never a change:
an undecided row says nothing of play.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import attrs

from ..checks.rows import Row
from ..checks.verdict import Verdict
from ..concrete import trace as tr
from .versions import Version


@attrs.frozen
class PropertyPair:
    """One property at one player count (0: all), in both versions."""

    players: int
    property: str
    variants: str  # the configuration's readings that differ from the default ("" none)
    old_status: str
    new_status: str
    old_detail: str
    new_detail: str
    #: same / undecided / newly failing / newly holding / expectation changed / changed
    change: str
    replay: str | None = None  # the new failure's replay file


#: The changes that are not a change in play.
UNCHANGED = ("same", "undecided")


def outcome(status: str) -> str:
    """What a status says about the property itself, expectations aside."""
    return {"FAILS": "fails", "expected failure": "fails", "holds": "holds",
            "UNEXPECTEDLY HOLDS": "holds"}.get(status, status)


def change_of(old: str, new: str, undecided: bool = False) -> str:
    """What changed between two statuses. `undecided`: a row is undecided on a side, which
    is no change in play, unless the new version fails with a witness (a failure shown is
    a failure, whatever the old side could decide)."""
    o, n = outcome(old), outcome(new)
    if undecided and n != "fails":
        return "same" if old == new else "undecided"
    if o == n:
        return "same" if old == new else "expectation changed"
    if n == "fails":
        return "newly failing"
    if o == "fails" and n == "holds":
        return "newly holding"
    return "changed"


def compare_checks(old: Version, new: Version, players: Iterable[int], *, games: int,
                   profile: str | None, use_z3: bool, z3_limit: int, jobs: int,
                   replays: Path, seed: int = 0,
                   progress: Callable[[str], None] | None = None) -> list[PropertyPair]:
    """Run the check table on both versions and pair the rows, configuration by
    configuration."""
    tables = _tables((old, new), list(players), games=games, profile=profile, seed=seed,
                     use_z3=use_z3, z3_limit=z3_limit, jobs=jobs, progress=progress)
    fixed = bool(old.variants or new.variants)

    def key(r: Row) -> tuple[int, str, str]:
        # at readings a version fixes, the two sides' readings differ: pair them anyway
        return r.players, "" if fixed else r.variants, r.property

    old_rows = {key(r): r for r in tables[0]}
    new_rows = {key(r): r for r in tables[1]}
    out = []
    for k in list(old_rows) + [k for k in new_rows if k not in old_rows]:
        a, b = old_rows.get(k), new_rows.get(k)
        sa = a.status if a else "(not checked)"
        sb = b.status if b else "(not checked)"
        undecided = any(r is not None and r.verdict is Verdict.UNDECIDED for r in (a, b))
        change = change_of(sa, sb, undecided)
        replay = None
        if change == "newly failing" and b is not None:
            replay = _write_replay(b, new, replays)
        out.append(PropertyPair(k[0], k[2], k[1], sa, sb, a.detail if a else "",
                                b.detail if b else "", change, replay))
    return out


def compared_configurations(old: Version, new: Version) -> str:
    """Which configurations the property table compares, as the report says it."""
    if old.variants or new.variants:
        return ("each version at the readings it fixes (old: "
                f"{_readings(old.variants)}; new: {_readings(new.variants)})")
    return "every configuration `rulespec check` runs (player counts and readings of the profile)"


def _readings(variants: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(variants.items())) or "default readings"


def _tables(versions: tuple[Version, ...], counts: list[int], *, games: int,
            profile: str | None, seed: int, use_z3: bool, z3_limit: int, jobs: int,
            progress: Callable[[str], None] | None) -> list[list[Row]]:
    """The rows of each version, its readings fixed, as `rulespec check` plans, caches and
    runs them: a version whose rules play as before costs a cache look-up, and the jobs of
    both versions share the `jobs` workers."""
    from ..checks.cache import Cache, default_folder
    from ..checks.plan import Options, plan, rows_of_spec, store
    from ..checks.progress import Progress, Timings
    from ..checks.runner import run_jobs

    say = progress or (lambda _m: None)
    cache = Cache(default_folder(), say)
    plans = []
    for v in versions:
        # readings a version fixes stay fixed; otherwise the profile's configurations
        chosen = tuple(sorted(v.variants.items()))
        opts = Options(games=games, seed=seed, players=tuple(counts), variants=chosen,
                       profile=profile, z3=use_z3, z3_budget=z3_limit)
        with v.errors():
            plans.append((v, opts, plan(v.spec, opts, cache)))
    # a job of the new version that computes what one of the old computes (the same key:
    # the rules it depends on play alike) is run once
    first: dict[str, Any] = {}
    todo, twins = [], []
    for _, _, p in plans:
        for job in p.jobs:
            keys = [e.key for e in job.entries]
            if keys and all(k is not None and k in first for k in keys):
                twins.append(job)
                continue
            for e in job.entries:
                if e.key is not None:
                    first.setdefault(e.key, e)
            todo.append(job)
    say(f"properties of both versions: {len(todo)} jobs to run, {cache.hits} results "
        "from the cache")
    shown = Progress(todo, jobs, Timings(None), lambda text: say(text.rstrip()),
                     terminal=False)
    try:
        run_jobs(todo, jobs, shown, lambda job, res: store(cache, job, res))
    finally:
        shown.close()
    for job in twins:
        for e in job.entries:
            assert e.key is not None  # a twin is a job whose every key is in `first`
            e.result, e.cached = first[e.key].result, first[e.key].cached
    out = []
    for v, opts, p in plans:
        with v.errors():
            out.append(rows_of_spec(p, opts)[0])
    return out


def _write_replay(row: Row, version: Version, replays: Path) -> str | None:
    """The replay file of a failing row, as `rulespec check` writes it."""
    path = replays / f"{row.game}-{row.players}p-{row.property}-new.yaml"
    if row.replay is not None:
        d = row.replay
        tr.write_replay(path, spec=version.label, players=d["players"], seed=0,
                        variants=d["variants"], actions=d["actions"], note=d.get("note", ""),
                        shuffles=d.get("shuffles"), prop=row.property,
                        situation=d.get("situation"))
        return str(path)
    if row.finding is not None:
        f = row.finding
        tr.write_replay(path, spec=version.label, players=f.players, seed=f.seed,
                        variants=f.variants, actions=f.actions, note=f.message, prop=row.property)
        return str(path)
    return None
