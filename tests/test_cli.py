"""The command line as a user runs it: outputs, exit codes, replay of a written trace."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml
from click.testing import CliRunner

from properties.cli import main

SITUATIONS = Path(__file__).parent / "situations" / "lama"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_play_prints_a_readable_trace() -> None:
    code, out, _ = run("play", "lama", "--players", "4", "--seed", "7")
    assert code == 0
    assert re.search(r"^\s+1\. r1 p0: (play \S+|draw|quit)$", out, re.M)
    assert "final scores" in out


def test_play_json_is_replayable() -> None:
    code, out, _ = run("play", "lama", "-p", "3", "--seed", "5", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["final"]["terminal"] is True
    assert max(data["scores"]) >= 40
    import model
    g = model.load("lama", players=3)
    state = g.initial_state(5)
    for step in data["actions"]:
        state = state.apply(g.parse_action(step["action"]))
    assert list(state.scores) == data["scores"]


def test_legal_lists_actions_and_effects(tmp_path: Path) -> None:
    code, out, _ = run("legal", "lama", "-p", "3", "--state", str(SITUATIONS / "llama_on_six.yaml"))
    assert code == 2  # a scenario file is not a bare situation: the top-level keys are wrong
    situation = yaml.safe_load((SITUATIONS / "llama_on_six.yaml").read_text())["situation"]
    path = tmp_path / "situation.yaml"
    path.write_text(yaml.safe_dump(situation))
    code, out, _ = run("legal", "lama", "-p", "3", "--state", str(path))
    assert code == 0
    lines = [ln for ln in out.splitlines() if ln.startswith("- ")]
    assert [ln.split(":")[0] for ln in lines] == ["- play 6", "- play llama", "- draw", "- quit"]
    assert "discard" in lines[1] and "active 0 -> 1" in lines[1]


def only_coverage_undecided(code: int, out: str) -> bool:
    """A small run: every row decided but for the rules it did not reach (exit 3, the
    coverage row the one undecided), or every rule reached too (exit 0)."""
    counts = re.search(r"^\d+ proved, \d+ tested, \d+ shown, (\d+) undecided, 0 failing",
                       out, re.M)
    if counts is None:
        return False
    undecided = int(counts.group(1))
    gaps = re.search(r"^\w+\s+(all\s+)?coverage\s+warning", out, re.M) is not None
    return (code, undecided, gaps) in ((0, 0, False), (3, 1, True))


def test_check_prints_the_summary_and_counts_the_verdicts(tmp_path: Path) -> None:
    code, out, _ = run("check", "lama", "--games", "20", "-p", "3", "--profile", "none",
                       "--replays", str(tmp_path / "replays"))  # tests write only to tmp
    assert only_coverage_undecided(code, out), out
    # one line per property; z3's verdict on the same property in brackets
    for prop in ("conservation", "legal_move", "invariants"):
        assert re.search(rf"^lama\s+{prop}\s+holds 3p \(z3 \w.*3p\)$", out, re.M), prop
    assert re.search(r"^lama\s+round_ends\s+holds 3p$", out, re.M)
    assert re.search(r"^lama\s+z3_round_bound\s+\w.* 3p$", out, re.M)
    assert re.search(r"^[1-9]\d* proved, [1-9]\d* tested, [1-9]\d* shown, ", out, re.M)


def test_check_verbose_prints_every_row() -> None:
    code, out, _ = run("check", "lama", "--games", "20", "-p", "3", "--profile", "none",
                       "--no-z3", "--verbose")
    assert only_coverage_undecided(code, out), out
    for prop in ("conservation", "legal_move", "round_ends", "invariants", "game_ends"):
        assert re.search(rf"^lama\s+3\s+{prop}\s+holds", out, re.M), prop
    assert "coverage:" in out


def test_check_fails_on_a_broken_rule(tmp_path: Path) -> None:
    text = (Path(__file__).parent.parent / "spec" / "lama.yaml").read_text()
    # Quitting forgets to take the player out of the round (and their cards off them):
    # rounds need not end.
    broken = text.replace("      - move_all(hand[active], out[active])\n      - quit[active] = True\n",
                          "", 1)
    assert broken != text
    spec = tmp_path / "noquit.yaml"
    spec.write_text(broken.replace("game: lama", "game: noquit"))
    replays = tmp_path / "replays"
    code, out, _ = run("check", str(spec), "--games", "10", "-p", "2", "--profile", "none",
                         "--replays", str(replays))
    assert code == 1
    assert re.search(r"^noquit\s+round_ends\s+FAILS 2p", out, re.M), out
    assert re.search(r"^  noquit round_ends FAILS at 2p: found by a seeded playout, seed \d+, "
                     r"after \d+ actions: the round "
                     r"measure", out, re.M), out
    files = list(replays.glob("*round_ends*.yaml"))
    assert files
    code, out, _ = run("replay", str(files[0]), "--quiet")
    assert code == 1  # the failure is reproduced
    assert "reproduced: round_ends fails" in out and "round measure" in out


def test_bench_reports_rates() -> None:
    code, out, _ = run("bench", "lama", "-p", "2", "--seconds", "0.3")
    assert code == 0
    assert re.search(r"[\d,]+ actions/s, [\d,.]+ games/s", out)
