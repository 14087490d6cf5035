"""What the readers of a spec's sections share: the document and its data, the player
count, the scope of names being built, and errors that point at a place in the file
(file, line, column). `model.loader` puts the readers together: `model.readings`
(ambiguities, params), `model.kinds` (cards and tokens), `model.procedures` (effects and
procedures), and the rest itself."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast

from . import ir, limits
from .errors import SpecError
from .expr import ExprParser, Scope
from .limits import identifier_problem, over, short
from .rulebooks import CITATION, cites, find_rulebook, rulebook_folders, rulebook_length
from .source import Located, PathKey
from .types import Type


class SpecReader:
    """The state and helpers of reading one spec for one player count."""

    #: the names the spec declares, filled section by section
    scope: Scope
    #: lines in each source's rulebook (`sources`)
    book_lines: dict[str, int]

    def __init__(self, doc: Located, players: int, variants: dict[str, str]):
        self.doc = doc
        self.d: dict[str, Any] = doc.data
        self.players = players
        self.requested = variants
        self.depth = self.loops = 0  # statements, and loops, the effects being read are inside

    def err(self, path: PathKey, message: str) -> SpecError:
        return self.doc.error(path, message)

    def key_err(self, path: PathKey, message: str) -> SpecError:
        """An error about the mapping key naming the value at `path` (an unknown key)."""
        return SpecError(self.doc.key_where(path), message)

    def parser(self, path: PathKey) -> ExprParser:
        return ExprParser(self.scope, lambda offset: self.doc.where(path, offset))

    def expr(self, path: PathKey, text: Any, expect: Type | None = None,
             env: Mapping[str, ir.Expr] | None = None) -> ir.Expr:
        if not isinstance(text, str):
            text = str(text).lower() if isinstance(text, bool) else str(text)
        return self.parser(path).expression(text, env, expect)

    def ident(self, path: PathKey, name: Any, what: str, in_expressions: bool = True) -> str:
        """`name` if it is a valid identifier (the schema checks the same), else a SpecError
        pointing at it (at the key, when the name is a mapping key)."""
        problem = identifier_problem(name, in_expressions)
        if problem is not None:
            raise SpecError(self.doc.key_where(path), f"{what}: {problem}")
        return cast(str, name)  # identifier_problem found it is text

    def signature(self, path: PathKey, key: str, what: str) -> tuple[str, tuple[str, ...]]:
        """The name and parameters of a `name` or `name(a, b)` key of a section (`what`: "a
        def", "a procedure"), each a checked identifier."""
        m = re.fullmatch(r"\s*([A-Za-z][A-Za-z0-9_]*)\s*(?:\(([^)]*)\))?\s*", key)
        if not m:
            raise self.err(path, f"{what} is named like name or name(a, b)")
        name = self.ident(path, m.group(1), f"{what}'s name")
        params = tuple(self.ident(path, q.strip(), f"{what}'s parameter")
                       for q in (m.group(2) or "").split(",") if q.strip())
        return name, params

    def bounded(self, path: PathKey, value: int, limit: str, what: str, low: int = 0) -> int:
        """`value` if it lies in low..the limit named `limit`, else a SpecError saying so."""
        if value < low:
            raise self.err(path, f"{what} cannot be {value}; it must be at least {low}")
        if value > limits.LIMITS[limit]:
            raise self.err(path, over(limit, what, value))
        return value

    def sources(self) -> dict[str, int]:
        """Lines in each source's rulebook; a source without one is an error."""
        folders = rulebook_folders(self.doc.file)
        lines = {}
        for i, source in enumerate(self.d["sources"]):
            book = find_rulebook(self.doc.file, source)
            if book is None:
                raise self.err(("sources", i), f"no rulebook {source}.txt for source {source} in "
                               + " or ".join(str(f) for f in folders)
                               + "; put it there, or set RULESPEC_RULEBOOKS to its folder")
            lines[source] = rulebook_length(book)
        return lines

    def check_cites(self, path: PathKey, value: Any) -> tuple[str, ...]:
        cites_ = cites(value)
        for i, c in enumerate(cites_):
            m = CITATION.match(c)
            at = (*path, i) if not isinstance(value, str) else path
            if not m:
                raise self.err(at, "a citation looks like <source>#L<line> (rules.en#L17), found "
                                   + short(c))
            if m.group(1) not in self.book_lines:
                raise self.err(at, f"{m.group(1)} is not one of this spec's sources: "
                                   + ", ".join(sorted(self.book_lines)))
            n = self.book_lines[m.group(1)]
            last = int(m.group(3) or m.group(2))
            if not 1 <= int(m.group(2)) <= last <= n:
                raise self.err(at, f"{c}: {m.group(1)} has lines 1 to {n}")
        return cites_
