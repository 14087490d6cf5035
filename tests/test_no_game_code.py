"""No game-specific Python: model/ and properties/ never name a game, a kind or an action.

Every spec's game id, kind names and action names (from spec/ and tests/mutants/) are
looked for in the code of model/ and properties/: identifiers and string literals,
not comments or docstrings (those may use a game as an example).
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from pathlib import Path

import pytest

from model.source import read_yaml

ROOT = Path(__file__).parent.parent
SPECS = sorted((ROOT / "spec").glob("*.yaml")) + sorted((ROOT / "tests" / "mutants").glob("*.yaml"))
CODE = sorted((ROOT / "model").rglob("*.py")) + sorted((ROOT / "properties").rglob("*.py"))

#: words that are also ordinary programming words; an action called "draw" or "play" is
#: common to card games and to code (Hypothesis's data.draw), so such names are skipped
#: "exchange" is also an effect of the spec language, and "copy", "give", "collect" are
#: everyday words for lists and arguments
GENERIC = {"draw", "play", "pass", "quit", "start", "end", "return", "exchange", "copy",
           "give", "collect", "skip"}

#: (file, word): allowed, with the reason
ALLOWED: dict[tuple[str, str], str] = {}


@functools.cache
def _game_words() -> frozenset[str]:
    words: set[str] = set()
    for spec in SPECS:
        data = read_yaml(spec).data
        words.add(str(data["game"]))
        for section in ("cards", "tokens"):
            for kind in (data.get(section) or {}).get("kinds", []):
                words.add(str(kind["name"]))
        words.update(str(a) for a in data.get("actions", {}))
    return frozenset(w.lower() for w in words if re.fullmatch(r"[A-Za-z_]\w{3,}", w)) - GENERIC


def _docstring_lines(source: str) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                lines.update(range(body[0].lineno, body[0].end_lineno + 1))
    return lines


@pytest.mark.parametrize("path", CODE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_no_game_names_in_code(path):
    words = _game_words()
    assert words, "no game words found: is spec/ empty?"
    source = path.read_text(encoding="utf-8")
    docs = _docstring_lines(source)
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in (tokenize.NAME, tokenize.STRING) or tok.start[0] in docs:
            continue
        for w in words:
            if (path.name, w) in ALLOWED:
                continue
            if re.search(rf"(?<![a-z]){re.escape(w)}(?![a-z])", tok.string.lower()):
                found.append(f"{path.name}:{tok.start[0]}: {tok.string!r} names {w!r}")
    assert not found, "game-specific code:\n" + "\n".join(found)
