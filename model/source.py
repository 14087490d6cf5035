"""Safe YAML reading that remembers where every value came from.

`read_yaml` parses with PyYAML's safe composer only (no tags that build Python
objects) and returns plain data plus a map from each value's path to its line and
column, so that later stages (schema validation, the loader, the expression parser)
can point a user at the exact place of a mistake.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .errors import SpecError, Where

PathKey = tuple[str | int, ...]
# libyaml's safe loader when PyYAML was built with it (ten times faster), else the Python one.
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Located:
    """Plain data read from YAML, with the source position of every node."""

    def __init__(self, file: str, data: Any, marks: dict[PathKey, tuple[int, int, str]]):
        self.file = file
        self.data = data
        self._marks = marks

    def where(self, path: PathKey, offset: int = 0) -> Where:
        """Position of the value at `path` (or its nearest located ancestor).

        `offset` is a 0-based character offset inside a one-line scalar, used to point
        into an expression string.
        """
        p = tuple(path)
        while p not in self._marks and p:
            p = p[:-1]
        line, col, style = self._marks.get(p, (0, 0, ""))
        if not line:
            return Where(self.file)
        quote = 1 if style in ("'", '"') else 0
        return Where(self.file, line, col + quote + offset)

    def error(self, path: PathKey, message: str, offset: int = 0) -> SpecError:
        return SpecError(self.where(path, offset), message)


def read_yaml(path: str | Path, text: str | None = None) -> Located:
    """Read a YAML file safely; a syntax error becomes a SpecError with its position."""
    file = str(path)
    if text is None:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise SpecError(Where(file), f"cannot read the file: {exc.strerror}") from None
    loader = _SafeLoader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Where(file, mark.line + 1, mark.column + 1) if mark else Where(file)
        raise SpecError(where, f"YAML syntax error: {exc.problem or exc.context}") from None
    finally:
        loader.dispose()
    marks: dict[PathKey, tuple[int, int, str]] = {}
    if node is None:
        return Located(file, None, marks)
    data = _build(loader, node, (), marks, file)
    return Located(file, data, marks)


def _build(loader: Any, node: yaml.Node, path: PathKey, marks: dict, file: str) -> Any:
    style = getattr(node, "style", None) or ""
    marks[path] = (node.start_mark.line + 1, node.start_mark.column + 1, style)
    if isinstance(node, yaml.MappingNode):
        out: dict[str, Any] = {}
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                raise SpecError(_where(file, key_node), "a mapping key must be a plain value")
            key = str(loader.construct_object(key_node))
            if key in out:
                raise SpecError(_where(file, key_node), f"duplicate key {key!r}")
            out[key] = _build(loader, value_node, (*path, key), marks, file)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_build(loader, child, (*path, i), marks, file) for i, child in enumerate(node.value)]
    try:
        return loader.construct_object(node, deep=True)
    except yaml.YAMLError as exc:
        raise SpecError(_where(file, node), f"cannot read this value: {exc}") from None


def _where(file: str, node: yaml.Node) -> Where:
    return Where(file, node.start_mark.line + 1, node.start_mark.column + 1)
