"""Where a spec writes its named clauses: invariants, action guards and each conjunct of
a guard, so that a message can point a designer at the line to read.

The IR keeps the meaning of a clause, not its text; the text and its line and column are
read back from the spec file, once per game and only when a message needs them.
"""

from __future__ import annotations

import ast
from functools import cached_property
from pathlib import Path
from typing import Any

import attrs

from . import ir
from .errors import RulespecError, Where
from .source import Located, read_yaml


@attrs.frozen
class Part:
    """One conjunct of a guard: its text as written and where it is."""

    text: str
    where: Where


class Places:
    """The places of one game's clauses in its spec file."""

    def __init__(self, g: ir.GameIR) -> None:
        self.g = g

    @cached_property
    def _doc(self) -> Located | None:
        try:
            return read_yaml(self.g.file)
        except (RulespecError, OSError):
            return None

    @cached_property
    def _lines(self) -> list[str]:
        try:
            return Path(self.g.file).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            return []

    def _where(self, path: tuple[Any, ...]) -> Where:
        doc = self._doc
        return doc.where(path) if doc is not None else Where(self.g.file)

    def _value(self, path: tuple[Any, ...]) -> Any:
        node: Any = self._doc.data if self._doc is not None else None
        for key in path:
            try:
                node = node[key]
            except (KeyError, IndexError, TypeError):
                return None
        return node

    def invariant(self, index: int) -> Where:
        """The `when:` of the spec's `index`-th invariant."""
        return self._where(("invariants", index, "when"))

    def invariant_text(self, index: int) -> str:
        value = self._value(("invariants", index, "when"))
        return " ".join(str(value).split()) if value is not None else "?"

    def guard_text(self, action: int) -> str:
        value = self._value(("actions", self.g.actions[action].name, "when"))
        return " ".join(str(value).split()) if value is not None else "?"

    def guard(self, action: int) -> Where:
        """The `when:` of an action."""
        return self._where(("actions", self.g.actions[action].name, "when"))

    def guard_parts(self, action: int, count: int) -> list[Part]:
        """The top-level conjuncts (`a and b and c`) of an action's `when:`, as written.

        `count` is how many conjuncts the compiled guard has; when the text does not split
        into as many (a def that expands to a conjunction, say), the whole text is one part.
        """
        path = ("actions", self.g.actions[action].name, "when")
        value = self._value(path)
        text = (str(value).lower() if isinstance(value, bool) else str(value)) \
            if value is not None else ""
        whole = [Part(" ".join(text.split()), self._where(path))]
        stripped = text.strip()
        try:
            tree = ast.parse(stripped, mode="eval")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return whole
        body = tree.body
        if count < 2 or not (isinstance(body, ast.BoolOp) and isinstance(body.op, ast.And)
                             and len(body.values) == count):
            return whole
        out = []
        start = self._where(path)
        line, col = start.line, max(start.column - 1, 0)
        for node in body.values:
            segment = ast.get_source_segment(stripped, node) or ""
            found = self._find(segment.split("\n")[0], line, col)
            if found is None:
                out.append(Part(" ".join(segment.split()), start))
                continue
            line, col = found
            out.append(Part(" ".join(segment.split()), Where(self.g.file, line, col + 1)))
            col += len(segment.split("\n")[0])
        return out

    def _find(self, needle: str, line: int, col: int) -> tuple[int, int] | None:
        """The first place of `needle` in the file at or after line:col (1-based line)."""
        lines = self._lines
        if not needle or not line:
            return None
        for n in range(line - 1, min(len(lines), line + 40)):
            at = lines[n].find(needle, col if n == line - 1 else 0)
            if at >= 0:
                return n + 1, at
        return None
