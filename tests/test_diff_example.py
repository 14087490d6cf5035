"""The worked example of docs/rule-designers.md: LAMA with a llama worth 7 points instead of
10, its `rulespec diff` report committed as docs/examples/lama-llama-worth-7.md.

The parts of that report that do not depend on timing — what changed in the rules, and the
shortest game where play parts (its actions and the step where they part; the deal is
z3's choice) — must still be what `rulespec diff` finds today, and the parting game must
replay under both versions and part at its last step. (The property table's z3 rows and
the statistics depend on time limits and are not compared.)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_diff import LLAMA, SPEC, assert_parts_at_the_end

from properties.cli import main

EXAMPLE = SPEC.parent.parent / "docs" / "examples" / "lama-llama-worth-7.md"
REGENERATE = ("regenerate it as docs/rule-designers.md says (from the repository root: "
              "the sed line, then rulespec diff lama my-lama.yaml -p 4 --markdown ...)")


def section(markdown: str, title: str) -> str:
    """The lines of a `### title` section, up to the next heading of that level or above."""
    m = re.search(rf"^### {re.escape(title)}\n(.*?)(?=^#{{2,3}} |\Z)", markdown, re.M | re.S)
    assert m is not None, f"no section {title!r}"
    return m.group(1).strip()


def game_of(part: str) -> list[str]:
    """A parting section without the rows of its side-by-side table (the states)."""
    return [line for line in part.splitlines()
            if not line.startswith("  | ") or line.endswith("| old | new |")]


def test_the_worked_example_is_what_diff_finds(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    committed = EXAMPLE.read_text(encoding="utf-8")
    # the change the example is about, told apart from the code under test
    assert "| kinds: llama | changed | `points 10` | `points 7` |" in committed
    assert "**The versions play differently (with 4 players" in committed
    assert re.search(r"^### Play statistics: .*differ", committed, re.M)
    assert "pairs of games" in committed

    monkeypatch.chdir(tmp_path)  # the report names the files as the example's command does
    text = SPEC.read_text(encoding="utf-8")
    assert text.count(LLAMA[0]) == 1
    Path("my-lama.yaml").write_text(text.replace(*LLAMA), encoding="utf-8")
    result = CliRunner().invoke(main, ["diff", "lama", "my-lama.yaml", "-p", "4",
                                       "--no-properties", "--no-statistics",
                                       "--markdown", "fresh.md"])
    assert result.exit_code == 1, result.stdout + result.stderr
    fresh = Path("fresh.md").read_text(encoding="utf-8")
    assert section(fresh, "What changed in the rules") == \
        section(committed, "What changed in the rules"), \
        f"docs/examples: what changed in the rules is out of date; {REGENERATE}"
    # the shortest parting game: its length, actions and the step where play parts; the
    # deal is z3's choice (any deal that parts them so soon), so the states may differ
    assert game_of(section(fresh, "Where play parts")) == \
        game_of(section(committed, "Where play parts")), \
        f"docs/examples: the parting game is out of date; {REGENERATE}"
    (path,) = Path("replays").glob("my-lama-4p-parting.yaml")
    assert_parts_at_the_end(path, str(SPEC), "my-lama.yaml")
