"""A pytest plugin: `pytest spec/` runs every property of every game as its own test item.

Each `spec/<game>.yaml` is collected as a file whose items are named
`<property>[players=N]` (plus `,AMBIGUITY=VARIANT` for a variant other than the
default), for example `spec/<game>.yaml::conservation[players=3]`. An item runs the
Hypothesis state machine of properties/concrete/stateful.py for its player count and variants;
the items of one configuration share one run (the first item to run pays for it).

- A failure prints a short numbered trace (the deal, one action a line with the
  rulebook lines of the clauses that fired) and writes a replay file for
  `rulespec replay FILE` to the replays directory.
- A spec's `expect` entries with `result: fail` mark their items as expected failures
  (`xfail(strict=True)`) with the spec's reason: one that unexpectedly holds fails as
  XPASS(strict).
- At the end a coverage report names every action, clause, end condition and variant
  the runs never exercised (see properties/concrete/coverage.py).
- Each z3 query at each player count is an item too, `z3_<query>[players=N]`, decided as
  `rulespec check` decides its row: proved passes, a declared failure shown is an
  expected failure, and a row neither proved nor shown (bounded, unknown, out of time)
  fails unless the spec accepts it as undecided (`result: undecided`).
  `--rulespec-no-z3` leaves them out; `--rulespec-z3-budget MILLIONS` sets their budget.

Options: `--rulespec-profile ci|thorough` (or the RULESPEC_PROFILE environment
variable; default ci), `--rulespec-variants sample|pairwise|all`,
`--rulespec-examples N` and `--rulespec-steps N` to override the profile's choice of
variant combinations and budget per item, `--rulespec-replays DIR`. With
pytest-xdist, the plugin switches `--dist load` to `loadgroup` so that the items of
one configuration stay on one worker. See docs/property-suite.md.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import attrs
import pytest

import model
from model import RulespecError

from ..checks.rows import expectation_for
from ..concrete import trace as tr
from ..concrete.coverage import Coverage, report_lines
from ..concrete.stateful import (
    CHECKS,
    DEFAULT_PROFILE,
    PROFILES,
    VARIANT_CHOICES,
    Config,
    Outcome,
    configurations,
    replay_name,
    run_config,
)

if TYPE_CHECKING:  # imported where the z3 items run: the plugin loads without z3
    from ..symbolic.queries import Result

_COVERAGE_KEY = "rulespec_coverage"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("rulespec", "rulespec property suite over spec/*.yaml")
    group.addoption("--rulespec-profile", choices=sorted(PROFILES), default=None,
                    help="ci (default; deterministic, sampled variants) or thorough "
                         "(many more examples and steps, pairwise variant combinations); "
                         "also RULESPEC_PROFILE")
    group.addoption("--rulespec-variants", choices=list(VARIANT_CHOICES), default=None,
                    help="which variant combinations run (overrides the profile): sample "
                         "(each variant once), pairwise (every pair of choices once) or all "
                         "(every combination: only for small specs)")
    group.addoption("--rulespec-examples", type=int, default=None,
                    help="Hypothesis examples per item (overrides the profile)")
    group.addoption("--rulespec-steps", type=int, default=None,
                    help="actions per example at most (overrides the profile)")
    group.addoption("--rulespec-no-z3", dest="rulespec_z3", action="store_false",
                    default=True, help="leave out the z3 items (z3_<query>[players=N])")
    group.addoption("--rulespec-z3-budget", type=_millions, default=None, metavar="MILLIONS",
                    help="millions of z3 resource units per query (default: rulespec "
                         "check's)")
    group.addoption("--rulespec-replays", default=None,
                    help="directory for the replay files of failures (default: replays/ "
                         "under the rootdir)")


def _millions(text: str) -> int:
    """`--rulespec-z3-budget`: a whole number of millions of z3 units, 1 to 100,000."""
    import argparse

    try:
        n = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of millions") from None
    if not 1 <= n <= 100_000:
        raise argparse.ArgumentTypeError(f"{n} is not between 1 and 100000 (millions of units)")
    return n


@attrs.define
class _Session:
    profile: str
    variants: str | None
    examples: int | None
    steps: int | None
    replays: Path
    results: dict[tuple, dict[str, Outcome]] = attrs.field(factory=dict)  # by property
    z3_results: dict[tuple, dict[str, Result]] = attrs.field(factory=dict)  # by query


_STATE = pytest.StashKey[_Session]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "rulespec: a property item of a spec (spec/*.yaml)")
    config.addinivalue_line("markers", "xdist_group(name): run on one pytest-xdist worker "
                                       "(declared here too, for runs without xdist)")
    profile = (config.getoption("rulespec_profile") or os.environ.get("RULESPEC_PROFILE")
               or DEFAULT_PROFILE)
    if profile not in PROFILES:
        raise pytest.UsageError(f"RULESPEC_PROFILE={profile!r}: choose one of "
                                f"{', '.join(sorted(PROFILES))}")
    replays = config.getoption("rulespec_replays")
    config.stash[_STATE] = _Session(
        profile, config.getoption("rulespec_variants"), config.getoption("rulespec_examples"),
        config.getoption("rulespec_steps"),
        Path(replays) if replays else Path(config.rootpath) / "replays")
    # pytest-xdist: keep the items of one configuration (one shared run) on one worker.
    # The controller schedules by group; each worker must tag its items with their group,
    # which it does when told so through its workerinput (see pytest_configure_node).
    if getattr(config.option, "dist", "no") == "load":
        config.option.dist = "loadgroup"
    config.pluginmanager.register(_Reporter(), f"rulespec-reporter-{id(config)}")
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None and workerinput.get("rulespec_loadgroup"):
        config.option.loadgroup = True


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node) -> None:
    """pytest-xdist, on the controller: tell each worker whether to group items."""
    node.workerinput["rulespec_loadgroup"] = node.config.getvalue("dist") == "loadgroup"


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if file_path.suffix == ".yaml" and file_path.parent.name == "spec":
        return SpecFile.from_parent(parent, path=file_path)
    return None


def pytest_report_header(config: pytest.Config) -> str:
    st = config.stash[_STATE]
    p = PROFILES[st.profile]
    how = f"; variants: {st.variants}" if st.variants else ""
    return (f"rulespec profile: {p.name} ({st.examples or p.examples} examples x "
            f"{st.steps or p.steps} steps per configuration; {p.description}{how})")


class SpecFile(pytest.File):
    """A spec: one item per property, player count and (sampled) variant choice."""

    def collect(self):
        st = self.config.stash[_STATE]
        base = model.load_ir(self.path, players=_min_players(self.path))
        defaults = {a.id: a.default for a in base.ambiguities}
        for cfg in configurations(base, PROFILES[st.profile], variants=st.variants):
            g = attrs.evolve(base, players=cfg.players, chosen={**defaults, **dict(cfg.variants)})
            expected = {p: e for p in CHECKS if (e := expectation_for(g, p)) is not None
                        and e.result in ("fail", "may_fail")}
            for prop in CHECKS:
                item = SpecItem.from_parent(self, name=f"{prop}[{cfg.label}]", prop=prop,
                                            cfg=cfg, expected=tuple(expected))
                item.add_marker(pytest.mark.rulespec)
                item.add_marker(pytest.mark.xdist_group(name=f"{base.id}-{cfg.label}"))
                if prop in expected:
                    e = expected[prop]  # may_fail: a hole random runs find only sometimes
                    item.add_marker(pytest.mark.xfail(reason=f"expected by the spec: {e.reason}",
                                                      strict=e.result == "fail",
                                                      raises=PropertyFailed))
                yield item

        if not self.config.getoption("rulespec_z3"):
            return
        from ..symbolic.queries import QUERIES

        for n in range(base.min_players, base.max_players + 1):
            for q in QUERIES:
                prop = f"z3_{q}"
                item = Z3Item.from_parent(self, name=f"{prop}[players={n}]", query=q, players=n)
                item.add_marker(pytest.mark.rulespec)
                item.add_marker(pytest.mark.xdist_group(name=f"{base.id}-z3-{n}"))
                g = attrs.evolve(base, players=n, chosen=defaults)
                e = expectation_for(g, prop)
                if e is not None and e.result == "fail":
                    item.add_marker(pytest.mark.xfail(reason=f"expected by the spec: {e.reason}",
                                                      strict=True, raises=PropertyFailed))
                yield item

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, RulespecError):
            return f"cannot collect {self.path.name}: {excinfo.value}"
        return super().repr_failure(excinfo, style)


class PropertyFailed(Exception):
    """A property item failed; the message is the readable trace."""


class SpecItem(pytest.Item):
    def __init__(self, *, prop: str, cfg: Config, expected: tuple[str, ...] = (),
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.prop = prop
        self.cfg = cfg
        self.expected = expected  # the properties the spec expects to fail here

    def runtest(self) -> None:
        st = self.config.stash[_STATE]
        key = (str(self.path), self.path.stat().st_mtime_ns, self.cfg, st.profile,
               st.examples, st.steps)
        if key not in st.results:
            cov = Coverage(str(self.path))
            outcomes = run_config(self.path, self.cfg, st.profile, examples=st.examples,
                                  steps=st.steps, coverage=cov, expected_failures=self.expected)
            st.results[key] = outcomes
            self.user_properties.append((_COVERAGE_KEY, cov.to_dict()))
        outcome = st.results[key][self.prop]
        if outcome.status == "holds":
            return
        if outcome.status == "error":
            raise RuntimeError(outcome.message)
        assert outcome.replay is not None
        path = st.replays / replay_name(self.path.stem, self.cfg, self.prop)
        tr.write_replay(path, spec=outcome.replay["spec"], players=outcome.replay["players"],
                        seed=0, variants=outcome.replay["variants"],
                        actions=outcome.replay["actions"], note=outcome.message,
                        shuffles=outcome.replay["shuffles"], prop=self.prop)
        shown = _relative(path)
        raise PropertyFailed(tr.failure_text(tr.read_replay(path), shown))

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, PropertyFailed):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, self.name


class Undecided(Exception):
    """A z3 row neither proved nor shown within its budget, which the spec does not accept
    as undecided: not a pass."""


class Z3Item(pytest.Item):
    """One z3 query at one player count, as `rulespec check` decides its row: the items of
    one count share one run of every query, in order, in a worker process (the queries
    share what the earlier ones proved, so they run as a whole, as `rulespec check` runs
    them)."""

    def __init__(self, *, query: str, players: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.query = query
        self.players = players

    def runtest(self) -> None:
        from ..checks.verdict import Verdict
        from ..checks.z3rows import row_of
        from ..symbolic.isolate import run_isolated
        from ..symbolic.queries import QUERIES, RLIMIT

        st = self.config.stash[_STATE]
        key = ("z3", str(self.path), self.path.stat().st_mtime_ns, self.players)
        game = model.load(str(self.path), players=self.players)
        if key not in st.z3_results:
            budget = self.config.getoption("rulespec_z3_budget")
            limit = budget * 1_000_000 if budget else RLIMIT
            st.z3_results[key] = {r.query: r for r in run_isolated(game, str(self.path), None,
                                                                    list(QUERIES), limit)}
        row = row_of(game, st.z3_results[key][self.query])
        if row.verdict is Verdict.FAILING or row.verdict is Verdict.SHOWN:
            if row.status == "UNEXPECTEDLY HOLDS":
                return  # the xfail(strict) marker reports it as XPASS(strict)
            raise PropertyFailed(f"{row.status}: {row.detail}")
        if row.verdict is Verdict.UNDECIDED and not row.accepted:
            raise Undecided(f"{row.status} (undecided, and the spec does not accept it so): "
                            f"{row.detail}")

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, PropertyFailed | Undecided):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, self.name


def _relative(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _min_players(path: Path) -> int:
    from model.loader import any_player_count

    return any_player_count(path)


class _Reporter:
    """Per session: merges the coverage the items report and prints it at the end.

    Items attach their run's coverage to their report (`user_properties`), which
    pytest-xdist sends from the workers to the controller, where this merges them.
    """

    def __init__(self) -> None:
        self.coverage: dict[str, Coverage] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        for name, value in report.user_properties:
            if name == _COVERAGE_KEY:
                data = cast("dict[str, Any]", value)  # what runtest appended: cov.to_dict()
                self.coverage.setdefault(data["spec"], Coverage(data["spec"])).merge(
                    Coverage.from_dict(data))

    def pytest_terminal_summary(self, terminalreporter, exitstatus: int,
                                config: pytest.Config) -> None:
        if hasattr(config, "workerinput") or not self.coverage:
            return
        st = config.stash[_STATE]
        terminalreporter.section(f"rulespec coverage ({st.profile} profile)")
        for spec in sorted(self.coverage):
            try:
                for line in report_lines(spec, self.coverage[spec]):
                    terminalreporter.write_line(line)
            except RulespecError as exc:
                terminalreporter.write_line(f"{spec}: no coverage report: {exc}")
