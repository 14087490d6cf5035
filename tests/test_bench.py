"""`rulespec bench` with a hand-written yardstick: what it prints and how it measures.

No timings are asserted (speed is a benchmark, not a test): the ratio printed must be
the ratio of the rates printed, the three ways of playing must take turns, and a bad
yardstick file must be a clear error.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

import model
from model.chance import RandomChance, RecordingChance
from properties.cli import bench, main

ROOT = Path(__file__).resolve().parent.parent
YARDSTICK = ROOT / "benchmarks" / "handwritten_lama.py"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def rate(out: str, label: str) -> float:
    m = re.search(rf"^{re.escape(label)}.*?: ([\d,]+) actions/s, [\d,.]+ games/s", out, re.M)
    assert m, out
    return float(m.group(1).replace(",", ""))


def test_bench_prints_the_yardstick_and_the_ratio() -> None:
    code, out, err = run("bench", "lama", "-p", "3", "--seconds", "0.2",
                         "--yardstick", str(YARDSTICK))
    assert code == 0, err
    api, hand = rate(out, "State API"), rate(out, "hand-written")
    in_place = rate(out, "in-place")
    shown = float(re.search(r"^State API / hand-written: ([\d.]+)×$", out, re.M).group(1))
    assert shown == pytest.approx(hand / api, abs=0.0051)  # rates are printed rounded
    shown = float(re.search(r"^in-place / hand-written: ([\d.]+)×$", out, re.M).group(1))
    assert shown == pytest.approx(hand / in_place, abs=0.0051)


def test_the_ways_of_playing_take_turns(monkeypatch: pytest.MonkeyPatch) -> None:
    turns: list[str] = []
    take_turn = bench.Tally.take_turn

    def recorded(self: bench.Tally, seconds: float) -> None:
        turns.append(self.label.split()[0])
        take_turn(self, seconds)

    monkeypatch.setattr(bench.Tally, "take_turn", recorded)
    monkeypatch.setattr(bench, "TURN", 0.02)
    list(bench.run_bench("lama", 2, 0.1, 0, {}, YARDSTICK))
    assert turns[:6] == ["State", "in-place", "hand-written"] * 2


def test_the_yardstick_script_still_runs_alone() -> None:
    import subprocess
    import sys

    done = subprocess.run([sys.executable, str(YARDSTICK), "3", "0.1"], capture_output=True,
                          text=True, check=True)
    assert re.search(r"hand-written LAMA, 3 players: [\d,]+ actions/s", done.stdout)


class Replay:
    """An `rng` for the yardstick that deals the model's shuffles and makes its choices."""

    def __init__(self, ranks: list[int], shuffles: list[list[int]], draws: list[float]) -> None:
        self.ranks, self.shuffles, self.draws = ranks, shuffles, draws

    def shuffle(self, deck: list[int]) -> None:
        order = [self.ranks[k] for k in self.shuffles.pop(0)]
        assert sorted(order) == sorted(deck)
        deck[:] = order

    def random(self) -> float:
        return self.draws.pop(0)


@pytest.mark.parametrize("players", [2, 3, 4, 6])
def test_the_yardstick_plays_the_models_game(players: int) -> None:
    """Given the model's shuffles and random draws, the yardstick takes as many actions
    as the model in every game and uses up both: the two play the same game, with the
    legal actions in the same order, so the ratio `bench` prints compares like with like."""
    game = model.load("lama", players=players)
    ranks = [kind.attrs.get("rank", 0) for kind in game.ir.kinds]
    yardstick = bench.load_yardstick(YARDSTICK)
    for seed in range(150):
        chance = RecordingChance(RandomChance(random.Random(seed)))
        draw = random.Random(10_000 + seed).random  # apart from the shuffles' stream
        draws: list[float] = []
        state = game.initial_state(seed, chance)
        while not state.is_terminal:
            legal = state.legal_actions()
            draws.append(draw())
            state = state.apply(legal[int(draws[-1] * len(legal))], chance)
        replay = Replay(ranks, chance.outcomes, list(draws))
        assert yardstick(replay, players) == len(draws), f"game {seed}"
        assert replay.shuffles == [] and replay.draws == [], f"game {seed}"


@pytest.mark.parametrize(("text", "message"), [
    ("def play(rng, players):\n    return 1\n", "must define game(rng, players)"),
    ("def game(rng, players):\n    return 1 / 0\n", "game() failed: ZeroDivisionError"),
    ("def game(rng, players):\n    return 'ten'\n", "must return its number of actions"),
    ("def game(rng, players)\n", "could not be loaded: SyntaxError"),
])
def test_a_bad_yardstick_is_a_clear_error(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "mine.py"
    path.write_text(text)
    code, _, err = run("bench", "lama", "-p", "2", "--seconds", "0.05", "--yardstick", str(path))
    assert code == 2
    assert message in err and "Traceback" not in err
