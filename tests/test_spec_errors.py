"""Broken copies of spec/lama.yaml: each gives one clear message with file:line:column,
exit code 2 and no Python traceback."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAMA = (ROOT / "spec" / "lama.yaml").read_text(encoding="utf-8")

# (name, text to replace, replacement, expected message fragment)
BREAKAGES = [
    ("yaml_syntax", "players: {min: 2, max: 6,", "players: {min: 2, max: [6,",
     "YAML syntax error"),
    ("wrong_type", "hand_size: {value: 6,", "hand_size: {value: [6],", "params/hand_size"),
    ("unknown_key", "  hand: {order: bag,", "  hand: {colour: red, order: bag,",
     "unknown key 'colour' in zones/hand"),
    ("unknown_zone_in_expression", "expr: \"not empty(stock)",
     "expr: \"not empty(stok)", "unknown name 'stok'"),
    ("unknown_name_in_expression", "follows(card, top(discard))\"",
     "follows(card, top(discard)) and lucky\"", "unknown name 'lucky'"),
    ("unknown_function", "move_top(stock, hand[active])", "move_top(stock, hand[active], 1, 2)",
     "wrong number of arguments"),
    ("deck_does_not_add_up", '{name: "3", rank: 3, points: 3, copies: 8}',
     '{name: "3", rank: 3, points: 3, copies: 7}', "the cards add up to 55"),
    ("string_where_number", "deal(stock, hand, hand_size)", "deal(stock, hand, 'six')",
     "expected a number, found a name"),
    ("bad_citation", "cite: [lama.en#L17, lama.en#L23,", "cite: [lama.en#L170, lama.en#L23,",
     "lama.en has lines 1 to"),
    ("dunder", "follows(card, top(discard))\"", "follows(card, top(discard)).__class__\"",
     "attribute names starting with '_' are not allowed"),
    ("example_unknown_variant", "      legal: [play 3, draw, quit]\n",
     "      variants: {empty_stock: shuffle}\n      legal: [play 3, draw, quit]\n",
     "no variant empty_stock=shuffle"),
    ("claim_condition_unknown_name", "parts_only_when: empty(stock)",
     "parts_only_when: empty(stok)", "unknown name 'stok'"),
    ("claim_unknown_part", "        differs_in: [legal]\n        parts_only_when",
     "        differs_in: [legals]\n        parts_only_when", "expected one of components"),
    ("clarification_id_taken", "  - id: draw_instead_of_playing", "  - id: empty_stock",
     "already the id"),
    ("claim_on_the_ruling", "      reshuffle:\n        set: {reshuffle_discard: true}",
     "        differs_in: [legal]\n      reshuffle:\n        set: {reshuffle_discard: true}",
     "the default reading is the ruling"),
    ("situation_path_absolute", "situation: ../tests/situations/lama/free_choice.yaml",
     "situation: /etc/free_choice.yaml", "does not have the expected form"),
    ("witness_leaves_its_folder", "witness: witnesses/lama-6p-z3_supply.yaml",
     "witness: ../../etc/passwd.yaml", "does not have the expected form"),
    ("witness_absolute", "witness: witnesses/lama-6p-z3_supply.yaml",
     "witness: /tmp/lama-6p-z3_supply.yaml", "does not have the expected form"),
    ("witness_too_long", "witness: witnesses/lama-6p-z3_supply.yaml",
     "witness: " + "w/" * 100 + "x.yaml", "longer than the limit of 200 characters"),
]


def _broken(tmp_path: Path, old: str, new: str) -> tuple[Path, int]:
    assert LAMA.count(old) >= 1, old
    text = LAMA.replace(old, new, 1)
    line = LAMA[: LAMA.index(old)].count("\n") + 1
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    return path, line


@pytest.mark.parametrize(("name", "old", "new", "message"), BREAKAGES,
                         ids=[b[0] for b in BREAKAGES])
def test_broken_spec_gives_one_clear_error(tmp_path: Path, name: str, old: str, new: str,
                                           message: str) -> None:
    path, line = _broken(tmp_path, old, new)
    result = subprocess.run([sys.executable, "-m", "properties.cli", "check", str(path),
                             "--games", "1", "--profile", "none", "--no-z3"],
                            capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    errors = [ln for ln in result.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1, result.stderr
    assert message in errors[0]
    m = re.search(rf"{re.escape(str(path))}:(\d+):(\d+):", errors[0])
    assert m, errors[0]
    if name not in ("deck_does_not_add_up",):  # that one points at cards/total
        assert int(m.group(1)) == line


def test_bad_arguments_exit_2() -> None:
    for args in (["play", "lama", "--players", "9"], ["play", "nosuchgame", "-p", "2"],
                 ["play", "lama", "-p", "3", "--variant", "nosuch=x"],
                 ["play", "lama", "-p", "3", "--variant", "chip_exchange=sometimes"],
                 ["check", "--games", "x"]):
        result = subprocess.run([sys.executable, "-m", "properties.cli", *args],
                                capture_output=True, text=True, cwd=ROOT, timeout=120)
        assert result.returncode == 2, (args, result.stderr)
        assert "Traceback" not in result.stderr
