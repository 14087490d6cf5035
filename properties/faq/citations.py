"""Every citation in a spec file, with the spec clause that makes it.

Walks the spec as read from YAML (every `cite:` at any depth), so that nothing the
loader does not keep in the IR (a zone's or a param's citation, say) is missed. Each
citation becomes a `Citation`: the rulebook lines it names and the clause citing them,
with that clause's line in the spec, which the annotated rulebook links both ways.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import attrs

from model.source import Located, PathKey

_CITE = re.compile(r"^([a-z]+\.[a-z]{2})#L(\d+)(?:-L?(\d+))?$")


@attrs.frozen
class Citation:
    """`source` lines `first`..`last`, cited by the clause `clause` at spec line `spec_line`."""

    source: str
    first: int
    last: int
    clause: tuple[str | int, ...]  # the path to the clause, list items named by id or name
    spec_line: int

    @property
    def label(self) -> str:
        """The clause as a reader names it: `actions.play`, `ambiguities.chip_shortage`."""
        return ".".join(str(p) for p in self.clause) or "(top)"

    @property
    def section(self) -> str:
        return str(self.clause[0]) if self.clause else ""


def citations(doc: Located) -> list[Citation]:
    """Every citation of the spec, in file order."""
    out = list(_walk(doc, doc.data, (), ()))
    return sorted(out, key=lambda c: (c.spec_line, c.source, c.first))


def _walk(doc: Located, node: Any, path: PathKey, named: tuple[str | int, ...]
          ) -> Iterator[Citation]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "cite":
                yield from _cites(value, named, doc.where(path).line)
            else:
                yield from _walk(doc, value, (*path, key), (*named, key))
    elif isinstance(node, list):
        for i, item in enumerate(node):
            name = item.get("id") or item.get("name") if isinstance(item, dict) else None
            yield from _walk(doc, item, (*path, i), (*named, name if isinstance(name, str) else i))


def _cites(value: Any, clause: tuple[str | int, ...], line: int) -> Iterator[Citation]:
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    for item in items:
        m = _CITE.match(item) if isinstance(item, str) else None
        if m is None:
            continue  # the loader reports malformed citations; nothing to annotate
        first = int(m.group(2))
        yield Citation(m.group(1), first, int(m.group(3) or first), clause, line)
