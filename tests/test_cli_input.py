"""The command line given bad input, and what it shows of a round's end and of index sets:
every mistake is one error line and exit 2, never a traceback; replay files stand alone."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from properties.cli import main
from properties.concrete import trace as tr

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception  # a traceback is a failure of the test
    return result.exit_code, result.stdout, result.stderr


def one_error(stderr: str) -> str:
    lines = [ln for ln in stderr.splitlines() if ln.lower().startswith("error")]
    assert len(lines) == 1, stderr
    assert "Traceback" not in stderr
    return lines[0]


# ------------------------------------------------------------- counts and times
@pytest.mark.parametrize("args", [
    ("check", "lama", "--games", "0"),
    ("check", "lama", "--games", "-5"),
    ("check", "lama", "--steps", "-1"),
    ("check", "lama", "--examples", "0"),
    ("check", "lama", "--z3-safety-net", "-1"),
    ("check", "lama", "--z3-safety-net", "0"),
    ("check", "lama", "-p", "0"),
    ("bench", "lama", "-p", "2", "--seconds", "-1"),
    ("play", "lama", "-p", "2", "--max-actions", "-1"),
    ("query", "lama", "empty(stock)", "-p", "2", "--max-actions", "-1"),
    ("faq", "lama", "--games", "-1"),  # 0 is allowed: z3 and Hypothesis games only
    ("faq", "lama", "-p", "-2"),
])
def test_counts_and_times_must_be_positive(args: tuple[str, ...]) -> None:
    code, _, err = run(*args)
    assert code == 2
    assert "is not in the range" in one_error(err)


@pytest.mark.parametrize("args", [
    ("check", "lama", "--z3-budget", "0"),
    ("check", "lama", "--z3-budget", "-3"),
    ("check", "lama", "--z3-budget", "100001"),
    ("check", "lama", "--z3-budget", "1.5"),
    ("check", "lama", "--z3-budget", "nan"),
    ("query", "lama", "empty(stock)", "-p", "2", "--budget", "0"),
    ("faq", "lama", "--z3-budget", "-1"),
    ("diff", "lama", "lama", "--z3-budget", "many"),
])
def test_a_z3_budget_is_a_whole_number_of_millions_in_range(args: tuple[str, ...]) -> None:
    code, _, err = run(*args)
    assert code == 2
    line = one_error(err)
    assert ("millions" in line and "z3-budget" in line) or "--budget" in line, line


def test_a_check_that_ran_nothing_is_not_a_pass() -> None:
    from model import ir
    from properties.checks.plan import _row

    game = ir.GameIR.__new__(ir.GameIR)
    object.__setattr__(game, "expectations", ())
    object.__setattr__(game, "id", "lama")
    object.__setattr__(game, "players", 3)
    object.__setattr__(game, "chosen", {})
    nothing = {"outcomes": {}, "findings": {}, "games": 0, "cut": 0}
    row = _row(game, "conservation", nothing, "lama", 0.0)
    assert not row.ok and "nothing was checked" in row.detail


# ------------------------------------------------------------------ output files
def test_query_out_naming_a_folder_is_refused(tmp_path: Path) -> None:
    code, _, err = run("query", "lama", "empty(stock)", "-p", "2", "--out", str(tmp_path))
    assert code == 2 and "is a directory" in one_error(err)


def test_faq_out_naming_a_file_or_an_impossible_place_is_refused(tmp_path: Path) -> None:
    existing = tmp_path / "faq.md"
    existing.write_text("kept\n", encoding="utf-8")
    code, _, err = run("faq", "lama", "--out", str(existing))
    assert code == 2 and "is a file" in one_error(err)
    assert existing.read_text(encoding="utf-8") == "kept\n"
    code, _, err = run("faq", "lama", "--out", str(existing / "inside"))
    assert code == 2 and "cannot write here" in one_error(err)


# ----------------------------------------------------------------- situations
def test_legal_refuses_an_endless_stream_quickly() -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero on this system")
    code, _, err = run("legal", "lama", "-p", "3", "--state", "/dev/zero")
    assert code == 2 and "larger than the limit" in one_error(err)


def test_legal_points_at_a_bad_byte(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_bytes(b"active: 0\nzones: {stock: rest}\x00\n")
    code, _, err = run("legal", "lama", "-p", "3", "--state", str(path))
    assert code == 2 and f"{path}:2:21: the file holds a NUL byte" in one_error(err)


IMPOSSIBLE = {"zones": {"stock": "rest", "discard": ["2"], "hand": [{}, {"4": 1}],
                        "out": [{"3": 1}, {}]},
              "vars": {"quit": [True, False]}}


def test_legal_refuses_an_impossible_situation_unless_unchecked(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(IMPOSSIBLE), encoding="utf-8")
    code, _, err = run("legal", "lama", "-p", "2", "--state", str(path))
    assert code == 2
    assert re.search(r"invariant active_player_in_round fails \(.*lama\.yaml:\d+:\d+: ",
                     one_error(err))
    code, out, _ = run("legal", "lama", "-p", "2", "--state", str(path), "--unchecked")
    assert code == 0 and "- quit:" in out


def test_legal_shows_the_round_end_apart_from_the_next_deal(tmp_path: Path) -> None:
    """lama.en#L22, L27: playing the last card ends the round; player 1's 4 and 2 cost
    4 + 2 points, paid in white chips; then the next round is dealt."""
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump({"zones": {"stock": "rest", "discard": ["2"],
                                              "hand": [{"3": 1}, {"4": 1, "2": 1}]}}))
    code, out, _ = run("legal", "lama", "-p", "2", "--state", str(path))
    assert code == 0
    line = next(ln for ln in out.splitlines() if ln.startswith("- play 3:"))
    changes, _, end = line.partition(" | ")
    assert "hand[0] 3 -> -" in changes and "chips[1] - -> whitex6" in changes
    assert "stock" not in changes  # the gathering and the new deal are not listed
    assert end == ("round 1 ends (hand_emptied); the round scores [0, 6], totals [0, 6]; "
                   "then round 2 is dealt, player 0 to act")


def test_legal_and_play_name_the_position_that_changed(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump({"zones": {"hand": [{"blue_M": 1, "red_A": 1}, {"pink_B": 1}]}}))
    code, out, _ = run("legal", "lambada", "-p", "2", "--state", str(path))
    assert code == 0
    assert "board: L [], A1 [], M [], B []" in out
    line = next(ln for ln in out.splitlines() if ln.startswith("- play blue_M on M:"))
    assert "board[M] [] -> [blue_M]" in line
    assert "items]" not in out
    code, out, _ = run("play", "lambada", "-p", "3", "--seed", "1", "--max-actions", "3")
    assert code == 0
    first = out.splitlines().index(next(ln for ln in out.splitlines()
                                        if re.match(r"\s+1\. r1 p0: play \S+ on (\w+)$", ln)))
    pos = out.splitlines()[first].rsplit(" ", 1)[1]
    assert f"board[{pos}] [" in out.splitlines()[first + 1]


def test_play_says_why_a_round_ended_and_its_scores() -> None:
    code, out, _ = run("play", "lama", "-p", "2", "--seed", "1")
    assert code == 0
    ends = re.findall(r"round (\d+) ends \((\w+)\): the round scores \[(\d+), (\d+)\], totals "
                      r"\[(\d+), (\d+)\]", out)
    assert ends
    total = [0, 0]
    for _, _, a, b, ta, tb in ends:
        total = [total[0] + int(a), total[1] + int(b)]
        assert total == [int(ta), int(tb)]  # no chip was returned in this game


# -------------------------------------------------------------------- replays
@pytest.mark.parametrize(("text", "message"), [
    ("spec: lama\nplayers: 2\nseed: 1\nactions: 5\n", "4:10: actions is a list"),
    ("spec: lama\nplayers: 2\nseed: 1\nvariants: [a]\nactions: []\n", "4:11: variants is a mapping"),
    ("spec: lama\nplayers: 2\nseed: 1\nvariants: {a: [b]}\nactions: []\n",
     "4:11: variants is a mapping"),
    ("spec: lama\nplayers: 2\nseed: x\nactions: []\n", "3:7: seed is a whole number"),
    ("spec: lama\nplayers: 2\nseed: [1]\nactions: []\n", "3:7: seed is a whole number"),
    ("spec: lama\nplayers: '2'\nseed: 1\nactions: []\n", "2:11: players is a whole number"),
    ("spec: lama\nplayers: 2\nactions: []\n", "a seed or recorded shuffles"),
    ("spec: lama\nplayers: 2\nseed: 1\nactions: []\nextra: 1\n", "unknown key(s) extra"),
    ("spec: lama\nplayers: 2\nseed: 1\nactions: []\nsituation: [1]\n", "situation is a situation"),
    ("spec: lama\nplayers: 2\nseed: 1\nactions: [play 9]\n", "'9' is not a card"),
])
def test_a_malformed_replay_file_is_one_error_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "r.yaml"
    path.write_text(text, encoding="utf-8")
    code, _, err = run("replay", str(path))
    assert code != 0
    assert message in one_error(err)


def test_a_replay_names_its_spec_so_it_replays_from_any_folder(tmp_path: Path,
                                                              monkeypatch) -> None:
    mine = tmp_path / "specs" / "mylama.yaml"
    mine.parent.mkdir()
    mine.write_text((ROOT / "spec" / "lama.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    written = tr.write_replay(Path("out") / "a.yaml", spec="specs/mylama.yaml", players=2, seed=3,
                              variants={}, actions=["draw"])
    data = yaml.safe_load(written.read_text(encoding="utf-8"))
    assert data["spec"] == str(mine.resolve())
    own = tr.write_replay(Path("out") / "b.yaml", spec=str(ROOT / "spec" / "lama.yaml"),
                          players=2, seed=3, variants={}, actions=["draw"])
    assert yaml.safe_load(own.read_text(encoding="utf-8"))["spec"] == "lama"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    for path in (tmp_path / "out" / "a.yaml", tmp_path / "out" / "b.yaml"):
        code, out, _ = run("replay", str(path), "-q")
        assert code == 0 and "1. p0: draw" in out


def test_an_existing_replay_file_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "lama-2p-x.yaml"
    first = tr.write_replay(path, spec="lama", players=2, seed=1, variants={}, actions=["draw"])
    again = tr.write_replay(path, spec="lama", players=2, seed=1, variants={}, actions=["draw"])
    other = tr.write_replay(path, spec="lama", players=2, seed=2, variants={}, actions=["draw"])
    third = tr.write_replay(path, spec="lama", players=2, seed=3, variants={}, actions=["draw"])
    assert first == again == path  # the same contents: nothing is lost
    assert other == tmp_path / "lama-2p-x-2.yaml" and third == tmp_path / "lama-2p-x-3.yaml"
    assert yaml.safe_load(path.read_text(encoding="utf-8"))["seed"] == 1


def test_the_test_run_writes_no_replay_into_the_checkout(pytestconfig) -> None:
    folder = Path(pytestconfig.getoption("rulespec_replays"))
    assert folder.resolve() != (ROOT / "replays").resolve()
    assert not str(folder.resolve()).startswith(str(ROOT.resolve()) + os.sep)
