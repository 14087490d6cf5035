"""Play statistics (properties/compare/): intervals against values known exactly, the
comparison's false-alarm rate and power, determinism for any number of jobs and on
Dask, and the command line's errors.

tests/specs/coin.yaml is a game whose statistics are known exactly (its header derives
them). The checks over repeated runs use fixed seeds, so they pass or fail the same way
every time; each states how likely its bound is to be crossed if the intervals are right.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from properties.compare import intervals as iv
from properties.compare.runner import Version
from properties.compare.stats import compare_play, compare_statistics, play_statistics

ROOT = Path(__file__).resolve().parent.parent
COIN = ROOT / "tests" / "specs" / "coin.yaml"
COIN_TEXT = COIN.read_text(encoding="utf-8")

# The exact values under uniform random play (see the spec's header).
KNOWN = {"win_share/0": 0.5, "win_share/1": 0.5, "actions": 2.0, "rounds": 1.0,
         "score_mean/0": 2 / 3, "score_sd/0": math.sqrt(2) / 3, "action/go": 1.0,
         "action/stop": 1.0, "round_end/stopped": 1.0, "game_end/one_round": 1.0, "capped": 0.0}


def coin(label: str = "coin", old: str = "", new: str = "") -> Version:
    text = COIN_TEXT
    if old:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return BASE.with_text(label, text)


BASE = Version.of(COIN, label="coin")
# seat 0 wins on heads, which is now 2 cards of 4: share 2/4 + 1/8 = 5/8
BIASED = coin("biased", "{name: heads, side: 0, copies: 1}", "{name: heads, side: 0, copies: 2}")
BIASED = BASE.with_text(BIASED.label, BIASED.text.replace("total: 3", "total: 4"))
# seat 0 wins on tails and seat 1 on heads: the same distribution, other winners per game
SWAPPED = BASE.with_text("swapped", COIN_TEXT.replace("p == 0 and count(up, 'heads')", "p == 0 and X")
                  .replace("p == 1 and count(up, 'tails')", "p == 1 and count(up, 'heads')")
                  .replace("p == 0 and X", "p == 0 and count(up, 'tails')")
                  .replace("count(up, 'heads') if p == 0 else count(up, 'tails')",
                           "count(up, 'tails') if p == 0 else count(up, 'heads')"))


def test_the_variants_are_what_they_say() -> None:
    assert BIASED.text.count("copies: 2") == 1 and "total: 4" in BIASED.text
    assert SWAPPED.text.count("'tails'") == COIN_TEXT.count("'tails'")
    assert SWAPPED.text != COIN_TEXT


# ------------------------------------------------------------------ intervals
def test_intervals_against_textbook_values() -> None:
    w = iv.wilson([1.0] * 30 + [0.0] * 70)  # Wilson 95% for 30 of 100
    assert (round(w.low, 4), round(w.high, 4)) == (0.2189, 0.3958)
    assert abs(iv.t_quantile(0.975, 10) - 2.228139) < 1e-4
    assert abs(iv.t_quantile(0.975, 30) - 2.042272) < 1e-5
    assert iv.mean_t([1.0] * 29).low is None  # below MIN_N: no interval
    assert iv.holm([0.01, 0.04, 0.03, None, 0.005]) == [True, False, False, False, True]


def test_intervals_cover_the_known_values() -> None:
    """40 independent runs of 500 games; each known value's interval misses it in at
    most 6 runs. With 95% intervals, 7 or more misses of 40 has probability 0.9%."""
    misses = dict.fromkeys(KNOWN, 0)
    for seed in range(40):
        s = play_statistics(coin(), players=[2], policies=["random"], games=500, jobs=1,
                            seed=seed)
        cell = s.cell(2, "random")
        for key, true in KNOWN.items():
            e = cell.row(key).estimate
            assert e.n == 500
            misses[key] += not e.covers(true)
    assert all(m <= 6 for m in misses.values()), misses


def test_the_safety_cap_counts_possibly_endless_games() -> None:
    s = play_statistics(coin(), players=[2], policies=["random"], games=2000, jobs=1,
                        max_actions=3)
    cell = s.cell(2, "random")
    assert cell.row("capped").estimate.covers(1 / 8)  # go, go, go
    assert cell.outcomes["cap"] + cell.outcomes["end"] == 2000
    assert cell.row("win_share/0").estimate.n == cell.outcomes["end"]
    assert cell.row("win_share/0").estimate.covers(0.5)


def test_greedy_follows_the_better_direction() -> None:
    """With a point for each go, a greedy player who wants more never stops (every game
    reaches the cap); one who wants fewer stops at once (exactly one action)."""
    text = (COIN_TEXT.replace("  stopped: {type: bool, init: false}",
                              "  stopped: {type: bool, init: false}\n"
                              "  bonus: {type: int, per: player, init: 0}")
            .replace('effects: ["active = (active + 1) % player_count"]',
                     'effects: ["bonus[active] += 1", "active = (active + 1) % player_count"]')
            .replace("expr: \"count(up, 'edge')", "expr: \"bonus[p] + count(up, 'edge')"))
    more = BASE.with_text("more", text)
    fewer = BASE.with_text("fewer", text.replace("better: higher", "better: lower"))
    cell = play_statistics(more, policies=["greedy"], games=50, jobs=1, max_actions=20).cell(
        2, "greedy")
    assert cell.outcomes["cap"] == 50
    cell = play_statistics(fewer, policies=["greedy"], games=50, jobs=1).cell(2, "greedy")
    assert cell.row("actions").estimate.value == 1.0
    assert cell.row("action/go").estimate.value == 0.0


def test_a_provisional_score_judges_each_action_as_if_the_round_ended() -> None:
    """Each go earns a point that the round's scoring banks, and the score is the bank: it
    moves only at the scoring, so a greedy player ties go with stop (stop banks nothing
    yet at the first turn) and plays at random; judged by what the scoring would give
    (`provisional: scoring`), go is always better, and every game reaches the cap."""
    text = (COIN_TEXT.replace("  stopped: {type: bool, init: false}",
                              "  stopped: {type: bool, init: false}\n"
                              "  earned: {type: int, per: player, init: 0}\n"
                              "  bank: {type: int, per: player, init: 0}")
            .replace('effects: ["active = (active + 1) % player_count"]',
                     'effects: ["earned[active] += 1", "active = (active + 1) % player_count"]')
            .replace("  end:\n    - {name: stopped, when: stopped}",
                     "  end:\n    - {name: stopped, when: stopped}\n"
                     "  scoring:\n    - for: p in players\n      do: [\"bank[p] += earned[p]\"]")
            .replace("expr: \"count(up, 'edge') + (count(up, 'heads') if p == 0 else "
                     "count(up, 'tails'))\"", "expr: bank[p]"))
    assert "expr: bank[p]" in text and "bank[p] += earned[p]" in text
    as_is = BASE.with_text("as-is", text)
    scored = BASE.with_text("scored", text.replace("better: higher",
                                                   "better: higher\n  provisional: scoring"))
    cell = play_statistics(scored, policies=["greedy"], games=50, jobs=1, max_actions=20).cell(
        2, "greedy")
    assert cell.outcomes["cap"] == 50  # nobody ever stops
    cell = play_statistics(as_is, policies=["greedy"], games=50, jobs=1, max_actions=20).cell(
        2, "greedy")
    assert cell.outcomes["cap"] < 50  # ties broken at random: some games stop


# ------------------------------------------------------------------ sequential
def test_play_grows_until_the_precision_is_reached() -> None:
    s = play_statistics(coin(), policies=["random"], precision=0.02, budget=600, jobs=1)
    cell = s.cell(2, "random")
    assert s.stopped_by == "precision" and cell.reached
    assert cell.games > 1000  # the first batch (1000) gives +-3.1 pp at p = 1/2; +-2 needs 2401
    assert all(cell.row(f"win_share/{p}").estimate.half_width <= 0.02 for p in (0, 1))


def test_stopping_on_width_keeps_the_coverage() -> None:
    """20 sequential runs to +-2.5 pp: seat 0's interval misses 1/2 in at most 3 (with 95%
    intervals, 4 or more misses of 20 has probability 1.6%)."""
    misses = 0
    for seed in range(20):
        s = play_statistics(coin(), policies=["random"], precision=0.025, budget=600, jobs=1,
                            seed=100 + seed)
        assert s.stopped_by == "precision"
        misses += not s.cell(2, "random").row("win_share/0").estimate.covers(0.5)
    assert misses <= 3


def test_a_budget_too_small_says_so() -> None:
    s = play_statistics(coin(), policies=["random"], precision=0.001, budget=1e-6, jobs=1)
    assert s.stopped_by == "budget"
    assert "time budget" in s.to_text()


def test_a_budget_too_small_still_plays_every_cell_its_minimum() -> None:
    """A budget that runs out at once once left the later cells (greedy, the second
    version) with no games and rows of nan: each plays its first MIN_GAMES games."""
    from properties.compare.stats import MIN_GAMES, compare_play

    old, new = coin("old"), coin("new", "better: higher", "better: lower")
    both = compare_play(old, new, policies=["random", "greedy"], precision=0.001,
                        budget=1e-6, jobs=1)
    for s in (both.old, both.new):
        assert s.stopped_by == "budget"
        for policy in ("random", "greedy"):
            cell = s.cell(2, policy)
            assert cell.games == MIN_GAMES
            assert not math.isnan(cell.row("win_share/0").estimate.value)


# ------------------------------------------------------------------ comparison
def test_a_known_effect_is_flagged() -> None:
    """Seat 0's share goes from 1/2 to 5/8: flagged in every one of 10 runs of 1000 games
    (at this size the chance of missing it in a run is below 1e-4), and the interval of
    the difference misses +12.5 pp in at most 2 runs (3 or more: probability 1.2%)."""
    misses = 0
    for seed in range(10):
        c = compare_play(coin(), BIASED, policies=["random"], games=1000, jobs=1, seed=seed)
        row = next(r for r in c.rows if r.key == "win_share/0")
        assert row.significant and row.difference is not None and c.plays_differently
        assert row.difference.low is not None and row.difference.high is not None
        misses += not row.difference.low < 0.125 < row.difference.high
    assert misses <= 2


def test_an_unchanged_game_is_not_flagged() -> None:
    """The swapped version plays the same distribution with other winners game by game:
    paired differences are not zero, yet nothing is flagged in more than 6 of 40 runs.
    Holm's correction keeps the chance of any mark at 5% per run; 7 or more of 40 would
    have probability 1.4%."""
    alarms = 0
    for seed in range(40):
        c = compare_play(coin(), SWAPPED, policies=["random"], games=500, jobs=1, seed=seed)
        assert c.paired
        row = next(r for r in c.rows if r.key == "win_share/0")
        assert row.difference is not None and row.difference.p is not None
        alarms += c.plays_differently
    assert alarms <= 6, alarms


def test_the_same_version_plays_the_same_games() -> None:
    c = compare_play(coin(), coin("again"), games=300, jobs=1)
    assert not c.plays_differently
    assert all(r.difference is None or r.difference.value == 0 for r in c.rows)


def test_unpaired_when_the_seeds_differ() -> None:
    a = play_statistics(coin(), policies=["random"], games=600, jobs=1, seed=1)
    b = play_statistics(BIASED, policies=["random"], games=600, jobs=1, seed=2)
    c = compare_statistics(a, b)
    assert not c.paired
    row = next(r for r in c.rows if r.key == "win_share/0")
    assert row.difference is not None and not row.difference.paired
    assert row.difference.low < 0.125 < row.difference.high


# ------------------------------------------------------------------ execution
def _numbers(s) -> dict:
    data = s.to_json()
    for key in ("seconds", "jobs"):
        data.pop(key)
    return data


def test_the_numbers_do_not_depend_on_the_number_of_jobs() -> None:
    one = play_statistics("lama", players=[3], games=450, jobs=1, seed=3)
    two = play_statistics("lama", players=[3], games=450, jobs=2, seed=3)
    assert _numbers(one) == _numbers(two)
    assert one.cell(3, "greedy").records == two.cell(3, "greedy").records


def test_a_dask_cluster_gives_the_same_numbers() -> None:
    distributed = pytest.importorskip("distributed")  # the extra [cluster]; CI installs it
    local = play_statistics(coin(), games=400, jobs=1, seed=5)
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2,
                                  dashboard_address=None) as cluster:
        remote = play_statistics(coin(), games=400, scheduler=cluster.scheduler_address,
                                 seed=5)
    assert _numbers(local) == _numbers(remote)
    assert remote.jobs == 2


# ------------------------------------------------------------------ reports
def test_reports_in_every_format() -> None:
    c = compare_play(coin(), BIASED, policies=["random"], games=400, jobs=1)
    assert "*" in c.to_text() and "win share, seat 0" in c.to_text()
    assert "| win share, seat 0 |" in c.to_markdown()
    data = json.loads(json.dumps(c.to_json()))
    assert data["plays_differently"] and data["correction"] == "holm"
    html = c.to_html_fragment()
    assert html.count("<svg") == 2 and "<script" not in html
    s = play_statistics(coin(), policies=["random"], games=100, jobs=1)
    assert s.to_json()["cells"][0]["games"] == 100


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "properties.cli", "stats", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_the_command_writes_its_files(tmp_path: Path) -> None:
    md, js, page = tmp_path / "s.md", tmp_path / "s.json", tmp_path / "s.html"
    r = _cli(str(COIN), "--games", "200", "--jobs", "1", "--policy", "random", "--markdown",
             str(md), "--json", str(js), "--html", str(page))
    assert r.returncode == 0, r.stderr
    assert "win share, seat 0" in r.stdout
    assert json.loads(js.read_text())["cells"][0]["games"] == 200
    assert md.read_text().startswith("### Play statistics")
    text = page.read_text()
    assert text.startswith("<!DOCTYPE html>") and text.count("<svg") == 2
    assert "<script" not in text and 'src="' not in text and "<link" not in text


@pytest.mark.parametrize(("args", "message"), [
    (["--precision", "-1"], "--precision"),
    (["--budget", "0"], "--budget"),
    (["--jobs", "-2"], "--jobs"),
    (["--jobs", "many"], "--jobs"),
    (["--policy", "clever"], "--policy"),
    (["--games", "0"], "--games"),
    (["--variant", "nonsense"], "--variant"),
    (["-p", "9"], "players"),
], ids=lambda x: x if isinstance(x, str) else " ".join(x))
def test_bad_input_is_one_line_and_exit_2(args: list[str], message: str) -> None:
    r = _cli(str(COIN), *args)
    assert r.returncode == 2, r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], r.stderr


def test_greedy_needs_the_better_direction(tmp_path: Path) -> None:
    path = tmp_path / "unstated.yaml"
    path.write_text(COIN_TEXT.replace("  better: higher\n", ""), encoding="utf-8")
    r = _cli(str(path), "--games", "10", "--policy", "greedy")
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "better" in r.stderr


def test_statistics_of_one_version_only_are_shown_without_a_difference() -> None:
    renamed = coin("renamed", "  go:\n    say: go\n", "  advance:\n    say: advance\n")
    c = compare_play(coin(), renamed, policies=["random"], games=200, jobs=1)
    rows = {r.key: r for r in c.rows}
    assert rows["action/go"].new is None and rows["action/go"].difference is None
    assert rows["action/advance"].old is None and rows["action/advance"].new is not None
    assert not c.plays_differently  # the same games, the action only renamed
    assert "only old" in c.to_text() and "only new" in c.to_text()
