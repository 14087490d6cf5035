"""What a row of `rulespec check` claims (properties/checks/verdict.py), and what the run
exits with: a row neither proved nor shown is undecided, never a pass; a spec may accept
a row as undecided with its reason; z3's budgets are resource units, so a verdict does not
depend on the machine's load; a witness says who found it.
"""

from __future__ import annotations

import json
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import model
from properties.checks.rows import Row
from properties.checks.verdict import (
    EXIT_FAILING,
    EXIT_OK,
    EXIT_UNDECIDED,
    Verdict,
    counts_line,
    exit_code,
    verdict_of,
)
from properties.cli import main

SPEC = Path(__file__).parent.parent / "spec"
#: A small run: two players, a few games, every z3 query.
SMALL = ("-p", "2", "--games", "3", "--profile", "none", "--jobs", "1", "--no-cache")


@pytest.mark.parametrize(("status", "z3", "verdict"), [
    ("holds", True, Verdict.PROVED), ("holds", False, Verdict.TESTED),
    ("expected failure", True, Verdict.SHOWN), ("expected failure", False, Verdict.SHOWN),
    ("FAILS", True, Verdict.FAILING), ("UNEXPECTEDLY HOLDS", False, Verdict.FAILING),
    ("error", True, Verdict.FAILING), ("bounded", True, Verdict.UNDECIDED),
    ("unknown", True, Verdict.UNDECIDED), ("failure not shown", True, Verdict.UNDECIDED),
    ("out of time", True, Verdict.UNDECIDED), ("warning", False, Verdict.UNDECIDED),
])
def test_each_status_has_one_verdict(status: str, z3: bool, verdict: Verdict) -> None:
    assert verdict_of(status, z3) is verdict


def test_an_unknown_status_has_no_verdict() -> None:
    with pytest.raises(ValueError, match="no verdict"):
        verdict_of("probably fine", True)


def test_failing_comes_before_undecided_and_accepted_undecided_passes() -> None:
    p, u, f = Verdict.PROVED, Verdict.UNDECIDED, Verdict.FAILING
    assert exit_code([(p, False), (Verdict.SHOWN, False)]) == EXIT_OK
    assert exit_code([(p, False), (u, False)]) == EXIT_UNDECIDED
    assert exit_code([(u, False), (f, False)]) == EXIT_FAILING
    assert exit_code([(p, False), (u, True)]) == EXIT_OK
    assert counts_line([(p, False), (u, True), (u, False)]) == (
        "1 proved, 0 tested, 0 shown, 2 undecided (1 accepted by the spec), 0 failing")


def test_a_row_is_ok_only_when_decided_or_accepted() -> None:
    bounded = Row("g", 2, "z3_supply", "bounded", "up to 3 actions")
    assert not bounded.ok
    assert bounded.verdict is Verdict.UNDECIDED
    accepted = Row("g", 2, "z3_supply", "bounded", "", accepted_undecided="too deep for z3")
    assert accepted.ok and accepted.accepted and not accepted.now_decided
    decided = Row("g", 2, "z3_supply", "holds", "", accepted_undecided="too deep for z3")
    assert decided.ok and decided.now_decided


def run_check(*args: str, json_to: Path) -> tuple[int, str, dict]:
    r = CliRunner().invoke(main, ["check", *args, "--json", str(json_to)])
    assert "Traceback" not in r.stderr, r.stderr
    return r.exit_code, r.stdout, json.loads(json_to.read_text())


def test_a_row_left_undecided_by_its_budget_makes_check_exit_3(tmp_path: Path) -> None:
    # one million units: too few for the two-player supply search to go past one action
    code, out, data = run_check("lama", *SMALL, "--z3-budget", "1", json_to=tmp_path / "r.json")
    supply = next(r for r in data["rows"] if r["property"] == "z3_supply")
    assert supply["status"] == "bounded" and supply["verdict"] == "undecided"
    assert supply["z3_units"] >= 1_000_000
    assert code == EXIT_UNDECIDED == data["exit_code"]
    assert data["verdicts"]["undecided"] >= 1
    assert "lama z3_supply bounded at 2p" in out
    assert "undecided" in out.splitlines()[-2] and out.splitlines()[-1].startswith("not decided")


def test_a_spec_may_accept_a_row_as_undecided_and_is_told_when_it_is_decided(
        tmp_path: Path) -> None:
    text = (SPEC / "lama.yaml").read_text(encoding="utf-8")
    accept = "".join(
        f"  - {{property: {p}, result: undecided, players: [2], reason: deeper than the "
        "budget}\n" for p in ("z3_supply", "z3_conservation", "coverage"))
    assert "\nexpect:\n" in text
    spec = tmp_path / "lama.yaml"
    spec.write_text(text.replace("\nexpect:\n", "\nexpect:\n" + accept), encoding="utf-8")
    code, out, data = run_check(str(spec), *SMALL, "--z3-budget", "1", json_to=tmp_path / "r.json")
    assert code == EXIT_OK, out
    supply = next(r for r in data["rows"] if r["property"] == "z3_supply")
    assert supply["verdict"] == "undecided" and supply["ok"]
    assert supply["accepted_undecided"] == "deeper than the budget"
    assert "accepted by the spec" in out
    # conservation is proved within one million units: the declaration can go
    assert "lama 2p z3_conservation: proved" in out


def test_a_copy_of_a_spec_finds_its_recorded_witnesses_and_says_who_found_them(
        tmp_path: Path) -> None:
    # as docs/rule-designers.md says: cp spec/lama.yaml my-lama.yaml (no witnesses beside it)
    copy = tmp_path / "my-lama.yaml"
    copy.write_text((SPEC / "lama.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    _, _, data = run_check(str(copy), *SMALL, json_to=tmp_path / "r.json")
    cycle = next(r for r in data["rows"] if r["property"] == "z3_game_cycle")
    assert cycle["verdict"] == "shown"
    assert cycle["found_by"] == "recorded" and cycle["start"] == "deal"
    assert "the recorded witness witnesses/lama-2p-z3_game_cycle.yaml replays" in cycle["detail"]
    proved = next(r for r in data["rows"] if r["property"] == "z3_conservation")
    assert proved["found_by"] is None and proved["verdict"] == "proved"


def test_a_witness_z3_finds_says_so() -> None:
    from properties.checks.z3rows import row_of
    from properties.symbolic import queries as Q

    game = model.load("lama", players=3)
    res = Q.reach(game, "quit[1]", max_depth=6)
    assert res.status == "witness" and res.found_by == "z3" and res.start == "deal"
    row = row_of(game, res)  # a row z3_reach, which no spec declares
    assert row.status == "FAILS" and row.found_by == "z3"
    assert f"found by z3 from a deal after {len(res.trace.actions)} actions" in row.detail


def _spin(seconds: float) -> None:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


@pytest.mark.skipif(sys.platform == "win32", reason="spawns busy processes")
def test_the_same_budget_gives_the_same_verdict_and_work_under_load() -> None:
    from properties.symbolic.isolate import run_isolated

    game = model.load("lama", players=2)
    names = ["conservation", "invariants", "legal_move", "round_bound"]
    # a budget some of the queries need most of: where the search stops depends only on
    # the units, never on how fast the machine is
    budget = 200_000

    def once() -> list[tuple[str, str, int, int | None]]:
        return [(r.query, r.status, r.spent, r.bound)
                for r in run_isolated(game, "lama", None, names, budget)]

    idle = once()
    hogs = [mp.get_context("spawn").Process(target=_spin, args=(120.0,), daemon=True)
            for _ in range(max(os.cpu_count() or 1, 2) + 1)]
    for h in hogs:
        h.start()
    try:
        loaded = once()
    finally:
        for h in hogs:
            h.kill()
    assert loaded == idle
    # the budget binds: one query proves within it, another runs out of it
    statuses = {q: status for q, status, _, _ in idle}
    assert statuses["conservation"] == "proved" and statuses["invariants"] != "proved", idle
