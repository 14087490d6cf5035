"""Fuzzing the spec side: mutated copies of the four specs never run code, crash or hang.

Hypothesis takes one of the specs of spec/ and changes it the way a careless or hostile
contributor might: a name or text anywhere replaced by one that carries Python code (or
is empty, huge, a reserved word, not ASCII), a value replaced by a huge, negative or
odd one or one of the wrong type, an expression nested deep or indexed past its range,
a section deleted or duplicated. The result is written out and loaded, and if it loads,
a few random games are played on it. Every outcome must be one of: it loads and plays,
a `SpecError` (the file is refused, with its place), or a `ModelError` (the rules ask
for something impossible, reported as `rules_defined`). A traceback of any other kind,
a `SyntaxError` from compiling the generated code, a file created by a payload, or a
run over the time limit fails the test.

Profile (docs/property-suite.md): `FUZZ_EXAMPLES` examples (60 by default, about 20 s),
derandomized, so CI runs the same examples every time. A soak:
`RULESPEC_FUZZ_EXAMPLES=5000 python -m pytest tests/test_fuzz_spec.py` (random seeds,
about 20 minutes); each example has `EXAMPLE_SECONDS` to finish.
"""

from __future__ import annotations

import copy
import linecache
import os
import random
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import model
from model import ModelError, SpecError
from model.source import read_yaml

ROOT = Path(__file__).resolve().parent.parent
SPECS = {p.stem: read_yaml(p).data for p in sorted((ROOT / "spec").glob("*.yaml"))}
FUZZ_EXAMPLES = int(os.environ.get("RULESPEC_FUZZ_EXAMPLES", "60"))
SOAK = "RULESPEC_FUZZ_EXAMPLES" in os.environ
#: Seconds one example (write, load, compile, play) may take before it counts as a hang.
EXAMPLE_SECONDS = 20
MARKER = "rulespec-fuzz-marker"

Path_ = tuple[str | int, ...]


def _payloads(marker: Path) -> list[str]:
    """Names and texts that would run code (touching `marker`) if pasted into source."""
    touch = f"__import__('os').system('touch {marker}')"
    return [
        f"zz = 0\nimport os; os.system('touch {marker}')\nKA_zz2",
        f'"""\n{touch}\n"""',
        f"'''\n{touch}\n'''",
        f"x\n{touch}",
        f"{{{touch}}}",
        f"a]; {touch}; b = [0",
        f"__class__.__init__.__globals__['os'].system('touch {marker}')",
        f"\\\n{touch}",
        "#\n" + touch,
    ]


ODD_NAMES = ["", " ", "_x", "__x", "x__y", "x_", "class", "pass", "None", "True", "é",
             "a" * 200, "1x", "x-y", "x.y", "x y", "\t", "\u200b", "ｘ", "l_x", "KA_rank"]
ODD_VALUES: list[Any] = [
    0, -1, 1, -(10**9), 10**9 + 1, 10**12, 2**63, 10**18, 1.5, float("inf"), float("nan"),
    True, False, None, "", "x", "1", "-1", "10**9", [], [1], {}, {"a": 1}, [[[[[]]]]],
    "x" * 3000, "not " * 600 + "True", "1+" * 1500 + "1", "-" * 1900 + "1",
    "range(0, 1000000000)", "[p for p in range(0, 100000)]",
]
EXPR_EDITS = [
    ("[active]", "[active + 1]"), ("[p]", "[p + 1]"), ("[p]", "[-1]"), ("[active]", "[7]"),
    ("players", "range(0, 1000)"), ("players", "range(-5, 99)"), (" + ", " * 1000000000 * "),
    (" - ", " // 0 - "), (" - ", " % (round - round) - "), ("== 0", "== 10**9"),
    ("True", "(not not not not True)"), ("count(", "count(count("), ("1", "-1"),
]


def _walk(data: Any, path: Path_ = ()) -> Iterator[tuple[Path_, Any]]:
    yield path, data
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _walk(v, (*path, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            yield from _walk(v, (*path, i))


def _parent(data: Any, path: Path_) -> Any:
    for p in path[:-1]:
        data = data[p]
    return data


class Mutant:
    """A changed spec; shown (when a test fails) as the spec's name and the changes."""

    def __init__(self, name: str, data: dict, changes: list[str]):
        self.name, self.data, self.changes = name, data, changes

    def __repr__(self) -> str:
        return f"Mutant({self.name}: {'; '.join(self.changes)})"


@st.composite
def mutated_specs(draw: st.DrawFn, marker: Path) -> Mutant:
    """One of the four specs with one to three changes."""
    name = draw(st.sampled_from(sorted(SPECS)))
    data = copy.deepcopy(SPECS[name])
    hostile = _payloads(marker)
    changes: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        nodes = [(p, v) for p, v in _walk(data) if p]
        path, value = draw(st.sampled_from(nodes))
        parent = _parent(data, path)
        key = path[-1]
        how = draw(st.sampled_from(["rename", "text", "value", "expr", "delete", "duplicate"]))
        changes.append(f"{how} {'/'.join(map(str, path))[:80]!r}")
        if how == "rename" and isinstance(parent, dict):
            new = draw(st.sampled_from(hostile + ODD_NAMES))
            if new not in parent:
                parent[new] = parent.pop(key)
        elif how == "text" and isinstance(value, str):
            parent[key] = draw(st.sampled_from(hostile))
        elif how == "value":
            parent[key] = draw(st.sampled_from(ODD_VALUES))
        elif how == "expr" and isinstance(value, str):
            old, new = draw(st.sampled_from(EXPR_EDITS))
            parent[key] = value.replace(old, new)
        elif how == "delete":
            del parent[key]
        elif how == "duplicate":
            if isinstance(parent, list):
                parent.insert(key, copy.deepcopy(value))
            else:
                parent[f"{key}2" if isinstance(key, str) else key] = copy.deepcopy(value)
    return Mutant(name, data, changes)


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    def hang(signum, frame):
        raise TimeoutError(f"no result within {seconds} s")

    old = signal.signal(signal.SIGALRM, hang)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _play(game: model.Game, seed: int, actions: int = 40) -> None:
    rng = random.Random(seed)
    state = game.initial_state(seed)
    for _ in range(actions):
        if state.is_terminal:
            return
        legal = state.legal_actions()
        if not legal:
            return
        action = rng.choice(legal)
        str(action)
        state = state.apply(action)
    state.to_dict()
    state.scores  # noqa: B018 - the score function runs too


def check_one(tmp: Path, spec_text: str, players: int, seed: int) -> str:
    """Load and play one spec text; the outcome's name. Raises on anything not allowed."""
    path = tmp / "fuzzed.yaml"
    path.write_text(spec_text, encoding="utf-8")
    try:
        with time_limit(EXAMPLE_SECONDS):
            game = model.load(path, players=players)
            for s in (seed, seed + 1):
                try:
                    _play(game, s)
                except ModelError:
                    return "model error"
    except SpecError:  # a bug in rulespec is an InternalError, not a SpecError: it fails
        return "spec error"
    finally:  # a soak loads thousands of specs: keep neither their games nor their sources
        model.game._GAMES.clear()
        for name in [n for n in linecache.cache if n.startswith("<rulespec ")]:
            del linecache.cache[name]
    return "plays"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz")


def _settings() -> settings:
    return settings(max_examples=FUZZ_EXAMPLES, deadline=None, derandomize=not SOAK,
                    database=None, suppress_health_check=list(HealthCheck))


@_settings()
@given(data=st.data())
def test_mutated_specs_never_run_code_crash_or_hang(workdir: Path, data: st.DataObject) -> None:
    marker = workdir / MARKER
    mutant = data.draw(mutated_specs(marker))
    text = yaml.safe_dump(mutant.data, sort_keys=False, allow_unicode=True, width=100)
    players = data.draw(st.sampled_from([0, 1, 2, 3, 6, 17]))
    outcome = check_one(workdir, text, players, data.draw(st.integers(0, 1000)))
    note(f"outcome: {outcome}")
    assert not marker.exists(), f"a payload ran code ({mutant}, outcome {outcome})"


def test_the_fuzzer_reaches_every_outcome(tmp_path: Path) -> None:
    """The outcomes the fuzz test allows all happen (else it would test less than it says)."""
    lama = (ROOT / "spec" / "lama.yaml").read_text(encoding="utf-8")
    assert check_one(tmp_path, lama, 3, 0) == "plays"
    assert check_one(tmp_path, lama.replace("title:", "title: [", 1), 3, 0) == "spec error"
    assert "then: [starter = round_ender]" in lama
    broken = lama.replace("then: [starter = round_ender]", "then: [starter = round_ender + 7]")
    assert check_one(tmp_path, broken, 3, 5) in ("model error", "plays")
    assert check_one(tmp_path, broken.replace("hand_size: {value: 6", "hand_size: {value: 1"),
                     3, 5) == "model error"
