"""`rulespec check`: every property of every spec, each result computed once.

For each spec the work is a set of jobs (properties/checks/work.py):

- `spec_valid`: every player count, and every variant of every ambiguity, compiles;
- one job per configuration (a player count and a choice of variants, as the profile
  picks them): `games` seeded playouts and the Hypothesis state machine of the property
  suite, which together decide that configuration's row of every property;
- with z3, one job per player count for the z3 queries (properties/checks/z3rows.py).

`plan` looks each result up in the cache (properties/checks/cache.py) under what decides
it; the jobs left run in parallel (properties/checks/runner.py), and `rows_of_spec` turns the
results into the rows of the table. A spec's `expect` entries say which properties are
known to fail (a hole in the printed rules) and why; they are applied to a result when
the rows are made, not when it is computed, so editing a reason re-runs nothing. An
expected failure is reported as such, and one that no longer fails is reported too,
so the manifest stays true.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs

import model
from model import ir
from model.loader import any_player_count
from model.situation import MAX_INPUT_BYTES

from ..concrete.coverage import Coverage, gaps
from ..concrete.playout import PROPERTIES, Finding, Limits
from . import work
from .cache import Cache, Fingerprint, fingerprint, key_of, names_a_place, tool_version
from .rows import Row, expectation_for
from .verdict import Verdict


@attrs.frozen
class Options:
    """What `rulespec check` was asked to do (the command's options)."""

    games: int = 200
    seed: int = 0
    players: tuple[int, ...] = ()  # () = every player count the spec allows
    variants: tuple[tuple[str, str], ...] = ()  # fixed for every configuration
    profile: str | None = "ci"  # None: seeded playouts only
    examples: int | None = None
    steps: int | None = None
    z3: bool = True
    #: z3 resource units per query (deterministic: the cache key names it)
    z3_budget: int = 400_000_000
    #: the wall-clock safety net per query, seconds (a query it stops is never cached)
    z3_seconds: float = 900.0


# ------------------------------------------------------------------ the plan
@attrs.define(eq=False)
class Entry:
    """One cached result: its key (None: never cached) and, once known, the result."""

    key: str | None
    shape: Any  # a work.valid_* function
    fp: Fingerprint | None = None  # of the configuration the result is about
    result: Any = None
    cached: bool = False

    @property
    def sources(self) -> str:
        """Where the clauses are: kept with a result whose text names a place."""
        return self.fp.sources if self.fp is not None else ""


@attrs.define(eq=False)
class Job:
    """Work for the runner: `fn(*args, **kwargs)` computes the results of `entries`."""

    kind: str  # "spec_valid", "configuration" or "z3"
    spec: str
    game: str
    players: int  # 0: all player counts
    label: str  # the configuration's variants, or the z3 queries
    fn: Any
    args: tuple
    kwargs: dict[str, Any]
    entries: list[Entry]
    #: How much longer than others of its kind it is guessed to take, before it has run once.
    weight: float = 1.0

    @property
    def name(self) -> str:
        """As the progress line shows it: `game 3p ambiguity=reading`."""
        return " ".join(x for x in (self.game, f"{self.players}p" if self.players else "",
                                    self.label) if x)


@attrs.define(eq=False)
class Configuration:
    players: int
    variants: tuple[tuple[str, str], ...]  # those that differ from the default
    ir: ir.GameIR
    fp: Fingerprint
    entry: Entry

    @property
    def label(self) -> str:
        return ",".join(f"{a}={v}" for a, v in self.variants)


@attrs.define(eq=False)
class Z3Count:
    players: int
    ir: ir.GameIR
    entries: dict[str, Entry]  # per query


@attrs.define(eq=False)
class SpecPlan:
    spec: str
    base: ir.GameIR
    counts: list[int]
    valid: Entry
    configurations: list[Configuration]
    z3: list[Z3Count]
    jobs: list[Job]


def plan(spec: str, opts: Options, cache: Cache) -> SpecPlan:
    """The results of one spec, found in the cache where they are, and the jobs for the
    rest. Loads the IR of every configuration (a bad spec raises its SpecError here)."""
    from ..concrete.stateful import CHECKS, PROFILES, Config, configurations

    variants = dict(opts.variants)
    base = model.load_ir(spec, players=any_player_count(spec), variants=variants)
    counts = list(opts.players) or list(range(base.min_players, base.max_players + 1))
    jobs: list[Job] = []
    concrete = tool_version("concrete")

    text = model.resolve_spec_path(spec).read_bytes()
    valid = Entry(key_of(kind="spec_valid", tool=concrete, text=hashlib.sha256(text).hexdigest(),
                         rulebooks=_rulebooks(base), counts=counts, variants=opts.variants),
                  work.valid_spec_result)
    _look_up(cache, valid)
    if valid.result is None:
        jobs.append(Job("spec_valid", spec, base.id, 0, "spec_valid", work.validate_spec,
                        (spec, counts, variants), {}, [valid]))

    profile = PROFILES[opts.profile] if opts.profile is not None else None
    fixed = tuple(sorted(variants.items()))
    if profile is None or variants:
        configs = [Config(n, fixed) for n in counts]
    else:
        configs = configurations(base, profile, counts)
    irs: dict[tuple, tuple[ir.GameIR, Fingerprint]] = {}
    planned: list[Configuration] = []
    for cfg in configs:
        g = model.load_ir(spec, players=cfg.players, variants={**variants, **dict(cfg.variants)})
        fp = fingerprint(g)
        irs[(cfg.players, cfg.variants)] = (g, fp)
        expected = [p for p in CHECKS if (e := expectation_for(g, p)) is not None
                    and e.result in ("fail", "may_fail")]
        numbers = None if profile is None else {
            "examples": opts.examples or profile.examples, "steps": opts.steps or profile.steps,
            "derandomize": profile.derandomize, "database": profile.database,
            "shrink_seconds": profile.shrink_seconds, "variants": profile.variants}
        # A profile that searches at random finds something new each run: not cached.
        key = None if profile is not None and not profile.derandomize else key_of(
            kind="configuration", tool=concrete, play=fp.play, expected=expected,
            games=opts.games, seed=opts.seed, limits=attrs.asdict(Limits()),
            profile=opts.profile, profile_numbers=numbers)
        entry = Entry(key, work.valid_configuration_result, fp)
        _look_up(cache, entry)
        c = Configuration(cfg.players, tuple(sorted(cfg.variants)), g, fp, entry)
        planned.append(c)
        if entry.result is None:
            jobs.append(Job("configuration", spec, base.id, cfg.players, c.label,
                            work.run_configuration,
                            (spec, cfg.players, {**variants, **dict(cfg.variants)}),
                            {"games": opts.games, "seed": opts.seed, "profile": opts.profile,
                             "examples": opts.examples, "steps": opts.steps,
                             "expected": expected}, [entry],
                            # games the spec expects may not end are played to the limit
                            weight=ENDLESS_WEIGHT if _expects_endless(g) else 1.0))

    z3: list[Z3Count] = []
    if opts.z3:
        from ..symbolic.queries import QUERIES

        tool = tool_version("z3")
        for n in counts:
            g, fp = irs.get((n, fixed)) or _load(spec, n, variants)
            entries = {}
            for q in QUERIES:
                entries[q] = Entry(key_of(kind="z3", tool=tool, play=fp.play, query=q,
                                          budget=opts.z3_budget, recorded=_recorded(g, q)),
                                   work.valid_z3_result, fp)
                _look_up(cache, entries[q])
            z3.append(Z3Count(n, g, entries))
            if any(e.result is None for e in entries.values()):
                # All of the count's queries run again, in order: the queries of a worker
                # share what the earlier ones proved, so the z3 work a query needs (and what
                # its budget reaches) depends on the queries before it. Run as a whole, the
                # same spec, budget and code give the same rows, cached or not.
                for again in entries.values():
                    again.result, again.cached = None, False
                jobs.append(Job("z3", spec, base.id, n, "z3 queries", work.run_z3,
                                (spec, n, variants, list(entries), opts.z3_budget,
                                 opts.z3_seconds), {},
                                list(entries.values()), weight=len(entries)))
    return SpecPlan(spec, base, counts, valid, planned, z3, jobs)


def _recorded(g: ir.GameIR, query: str) -> str | None:
    """What a z3 query reads besides the game: the witness file the spec records for its
    expected failure, which supply, round_bound and game_cycle replay first (its name and
    digest; None if there is none or the query does not replay it)."""
    from ..symbolic.queries import REPLAYED
    from ..symbolic.queries.recorded import recorded_file

    found = recorded_file(g, f"z3_{query}") if query in REPLAYED else None
    if found is None:
        return None
    # no more than the replay reader reads: a larger file is never replayed
    try:
        with open(found[1], "rb") as f:
            head = f.read(MAX_INPUT_BYTES + 1)
    except OSError:
        return f"{found[0]}:unreadable"
    return f"{found[0]}:{hashlib.sha256(head).hexdigest()}"


#: A configuration that plays endless games: one to 20,000 actions and the others to
#: 1,000 each, where a game that ends takes a few hundred.
ENDLESS_WEIGHT = 6.0


def _expects_endless(g: ir.GameIR) -> bool:
    e = expectation_for(g, "game_ends")
    return e is not None and e.result in ("fail", "may_fail")


def _load(spec: str, players: int, variants: Mapping[str, str]) -> tuple[ir.GameIR, Fingerprint]:
    g = model.load_ir(spec, players=players, variants=variants)
    return g, fingerprint(g)


def _rulebooks(base: ir.GameIR) -> list[tuple[str, int]]:
    """The length of each rulebook the spec cites from (citations are checked against it)."""
    from model.rulebooks import find_rulebook, rulebook_length

    books = [(s, find_rulebook(base.file, s)) for s in base.sources]
    return [(s, rulebook_length(book) if book is not None else 0) for s, book in books]


def _look_up(cache: Cache, entry: Entry) -> None:
    if entry.key is None:
        return
    result = cache.get(entry.key, entry.shape, entry.sources)
    if result is not None and entry.fp is not None and "coverage" in result:
        result = _coverage_by_position(result, entry.fp, cache)
    if result is not None:
        entry.result, entry.cached = result, True


def store(cache: Cache, job: Job, results: list[Any]) -> None:
    """Keep a job's results: each in its entry, and in the cache unless it failed to run
    (an error may be passing: a worker that crashed, a machine out of memory)."""
    for entry, result in zip(job.entries, results, strict=True):
        entry.result = result
        if entry.key is None or _errored(result):
            continue
        kept = result
        if job.kind == "configuration":
            if not result["coverage"]["traced"] and job.kwargs["profile"] is not None:
                continue  # another tracer was active: this run's clause coverage is partial
            assert entry.fp is not None
            kept = _coverage_by_place(result, entry.fp)
            if kept is None:
                continue
        cache.put(entry.key, kept, entry.sources if names_a_place(result) else None,
                  about=f"{job.name} {job.kind}")


def _errored(result: Any) -> bool:
    """A result that says nothing of the game: a job that could not run, or a z3 query the
    wall-clock safety net stopped."""
    if not isinstance(result, dict):
        return False
    return result.get("status") in ("error", "timeout") or any(
        o["status"] == "error" for o in result.get("outcomes", {}).values())


def _coverage_by_place(result: dict, fp: Fingerprint) -> dict | None:
    """The result with its statements named by their place in the folded IR."""
    cov = result["coverage"]
    if any(s not in fp.paths for s in cov["statements"]):
        return None  # not a statement of the IR: cannot be kept by place
    return {**result, "coverage": {**cov, "statements": sorted(fp.paths[s]
                                                              for s in cov["statements"])}}


def _coverage_by_position(result: dict, fp: Fingerprint, cache: Cache) -> dict | None:
    """A cached result with its statements named by their current "line:column"."""
    at = {path: pos for pos, path in fp.paths.items()}
    cov = result["coverage"]
    if any(s not in at for s in cov["statements"]):
        cache.warn("warning: ignoring a cache entry that names clauses the spec does not have")
        return None
    return {**result, "coverage": {**cov, "statements": sorted(at[s] for s in cov["statements"])}}


# ------------------------------------------------------------------ the rows
def rows_of_spec(p: SpecPlan, opts: Options) -> tuple[list[Row], Coverage]:
    """The rows of one spec's table (in a fixed order) and what its runs exercised."""
    from .z3rows import row_of

    out: list[Row] = []
    valid = p.valid.result
    out.append(Row(p.base.id, 0, "spec_valid", "holds",
                   f"{valid['compilations']} compilations (player counts x variants)", None,
                   valid["seconds"], cached=p.valid.cached))
    cov = Coverage(p.spec)
    for c in p.configurations:
        r = c.entry.result
        cov.merge(Coverage.from_dict(r["coverage"]))
        for prop in PROPERTIES:
            row = _row(c.ir, prop, r, p.spec, r["seconds"] / len(PROPERTIES))
            out.append(attrs.evolve(row, variants=c.label, cached=c.entry.cached))
    for z in p.z3:
        game = model.load(p.spec, players=z.players, variants=dict(opts.variants))
        for q, entry in z.entries.items():
            r = entry.result
            if r["status"] == "error":
                out.append(Row(p.base.id, z.players, f"z3_{q}", "error", r["detail"],
                               seconds=r["seconds"]))
                continue
            row = row_of(game, _z3_result(r))
            replay = {**r["replay"], "spec": p.spec} if r.get("replay") else None
            out.append(attrs.evolve(row, replay=replay if row.verdict is Verdict.FAILING
                                    else None, cached=entry.cached, property=f"z3_{q}"))
    unexplained = [f"{g.what} {g.name}" for g in gaps(p.spec, cov) if g.explained is None]
    # A gap is undecided, not failing: a short run may simply not reach a rule, but what
    # no run reached is not checked (a spec accepts a gap with `result: undecided`).
    out.append(Row(p.base.id, 0, "coverage", "warning" if unexplained else "holds",
                   f"never exercised: {', '.join(unexplained)}" if unexplained
                   else "every action, clause, end condition and variant exercised",
                   cached=all(c.entry.cached for c in p.configurations)).with_declaration(p.base))
    return out, cov


def _z3_result(r: dict) -> Any:
    from ..symbolic.queries import Result

    return Result(r["query"], r["status"], r["detail"], r["seconds"], None, r.get("bound"),
                  r.get("spent", 0), r.get("found_by"), r.get("start"))


def _row(g: ir.GameIR, prop: str, r: dict, spec: str, seconds: float) -> Row:
    """One property's row at one configuration, from the configuration's result."""
    expected = expectation_for(g, prop)
    outcome = r["outcomes"].get(prop)
    f = r["findings"].get(prop)
    finding = None if f is None else Finding(prop, g.players, f["seed"], f["message"],
                                             tuple(f["actions"]), dict(g.chosen))
    return _concrete_row(g, prop, r, spec, seconds, expected, outcome, finding).with_declaration(g)


def _concrete_row(g: ir.GameIR, prop: str, r: dict, spec: str, seconds: float,
                  expected: ir.Expectation | None, outcome: dict | None,
                  finding: Finding | None) -> Row:
    games = f"{r['games']} games"
    if r["cut"]:
        games += (f" ({r['cut']} stopped unfinished at {r['cut_at']:,} actions, after one "
                  "had run past the action limit)")
    ran = games + (f" + {outcome['message']}" if outcome is not None
                   and outcome["status"] == "holds" else "")
    replay = None
    found_by = None
    if outcome is not None and outcome["status"] == "fails":
        replay = {**outcome["replay"], "spec": spec}
        found_by = "hypothesis"
        detail = (f"found by Hypothesis after {outcome['actions']} actions (shrunk): "
                  f"{outcome['message']}")
    elif outcome is not None and outcome["status"] == "error":
        return Row(g.id, g.players, prop, "error", outcome["message"], None, seconds)
    elif finding is not None:
        found_by = "playout"
        detail = (f"found by a seeded playout, seed {finding.seed}, after "
                  f"{len(finding.actions)} actions: {finding.message}")
    else:
        if r["games"] < 1 and (outcome is None or outcome["status"] != "holds"):
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
                   finding, seconds, replay=replay, found_by=found_by, start="deal")
    return Row(g.id, g.players, prop, "FAILS", detail, finding, seconds, replay=replay,
               found_by=found_by, start="deal")


def all_specs(spec_dir: Path | None = None) -> list[Path]:
    from model.schema import SPEC_DIR

    return sorted((spec_dir or SPEC_DIR).glob("*.yaml"))

