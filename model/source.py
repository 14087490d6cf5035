"""Safe YAML reading that remembers where every value came from.

`read_yaml` reads a spec, situation or replay file as untrusted input: at most
`MAX_FILE_BYTES`, UTF-8 text without control characters, one YAML document of plain
data (mappings, lists, text, whole numbers, yes/no, null). A number is written in plain
decimal digits: the YAML 1.1 forms that read as another number (`010` is 8, `0x10`,
`0b10`, `1_000`, `1:30` is 90) and YAML 1.2's `0o10` are refused, and so is text holding
a control character (but tab and newline), which a quoted scalar's escapes can write and
which would drive a terminal it is printed on. YAML tags (`!!python/...`,
`!!str`, on values and on keys) are refused; aliases are allowed, but every use counts
in full toward `MAX_YAML_NODES`, so an alias bomb stops at the limit instead of
filling memory; nesting stops at `MAX_YAML_DEPTH`. The document is built from the
parser's events by a loop (no recursion), so no input can exhaust the stack.

It returns the data plus a map from each value's path to its line and column, so that
later stages (schema validation, the loader, the expression parser) can point a user
at the exact place of a mistake. Every problem is a `SpecError` with its position.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path
from typing import Any

import yaml

from .errors import SpecError, Where
from .limits import MAX_FILE_BYTES, MAX_YAML_DEPTH, MAX_YAML_NODES, over, short

PathKey = tuple[str | int, ...]
# libyaml's safe parser when PyYAML was built with it (ten times faster), else the Python one.
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

#: The longest whole number any file may hold, in digits (a seed fits; the spec loader
#: applies its own, smaller limit, `max_int`, to the numbers of a spec).
MAX_FILE_INT_DIGITS = 18

_INT, _FLOAT, _STR = (f"tag:yaml.org,2002:{t}" for t in ("int", "float", "str"))
#: What makes a number YAML 1.1 resolves read differently from its decimal digits: a
#: leading zero (octal) or a 0b/0x prefix, `_` between digits, `:` (base 60).
_YAML11_NUMBER = re.compile(r"^[-+]?0[0-9bx_]|_|:")
#: Numbers of YAML 1.2 that YAML 1.1 leaves as text.
_YAML12_NUMBER = re.compile(r"[-+]?0o[0-7]+")

#: Control characters a value may not hold: C0 but tab and newline, DEL, C1.
_CONTROL_IN_TEXT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")

# What YAML allows in a file (its "printable" set, YAML 1.1 section 5.1), as a negated class.
_NOT_PRINTABLE = re.compile("[^\t\n\r\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


class Located:
    """Plain data read from YAML, with the source position of every node."""

    def __init__(self, file: str, data: Any, marks: dict[PathKey, tuple[int, int, str]],
                 key_marks: dict[PathKey, tuple[int, int]] | None = None):
        self.file = file
        self.data = data
        self._marks = marks
        self._key_marks = key_marks or {}

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

    def key_where(self, path: PathKey) -> Where:
        """Position of the mapping key naming the value at `path` (else of the value)."""
        mark = self._key_marks.get(tuple(path))
        return Where(self.file, *mark) if mark else self.where(path)

    def error(self, path: PathKey, message: str, offset: int = 0) -> SpecError:
        return SpecError(self.where(path, offset), message)


def read_text(path: str | Path) -> str:
    """A file's text: at most MAX_FILE_BYTES, UTF-8, without control characters."""
    file = str(path)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise SpecError(Where(file), f"cannot read the file: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise SpecError(Where(file), f"the file is larger than the limit of {MAX_FILE_BYTES:,} "
                                     "bytes (max_file_bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise SpecError(Where(file, line, column),
                        f"the file is not UTF-8 text (byte 0x{data[exc.start]:02x})") from None


def check_text(file: str, text: str) -> None:
    """Refuse text YAML cannot hold (NUL and other control characters), and oversized text."""
    if len(text) > MAX_FILE_BYTES:
        raise SpecError(Where(file), f"the text is larger than the limit of {MAX_FILE_BYTES:,} "
                                     "characters (max_file_bytes)")
    m = _NOT_PRINTABLE.search(text)
    if m:
        line = text.count("\n", 0, m.start()) + 1
        column = m.start() - (text.rfind("\n", 0, m.start()) + 1) + 1
        raise SpecError(Where(file, line, column),
                        f"the control character U+{ord(m.group()):04X} is not allowed in a YAML "
                        "file")


def read_yaml(path: str | Path, text: str | None = None) -> Located:
    """Read a YAML file safely; every problem becomes a SpecError with its position."""
    file = str(path)
    if text is None:
        text = read_text(path)
    check_text(file, text)
    loader = _SafeLoader(text)
    try:
        return _Builder(file, loader).document()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Where(file, mark.line + 1, mark.column + 1) if mark else Where(file)
        raise SpecError(where, f"YAML syntax error: {exc.problem or exc.context}") from None
    except yaml.YAMLError as exc:
        raise SpecError(Where(file), f"YAML error: {exc}") from None
    finally:
        loader.dispose()


class _Frame:
    """A mapping or list being built."""

    __slots__ = ("anchor", "height", "key", "key_mark", "path", "size0", "value")

    def __init__(self, value: dict[str, Any] | list[Any], path: PathKey, anchor: str | None, size0: int):
        self.value = value
        self.path = path
        self.anchor = anchor
        self.size0 = size0
        self.height = 1
        self.key: str | None = None  # a mapping's key waiting for its value
        self.key_mark: tuple[int, int] | None = None


class _Builder:
    """Plain data from the parser's events, with limits on nesting and size."""

    def __init__(self, file: str, loader: Any):
        self.file = file
        self.loader = loader
        self.marks: dict[PathKey, tuple[int, int, str]] = {}
        self.key_marks: dict[PathKey, tuple[int, int]] = {}
        self.anchors: dict[str, tuple[Any, int, int]] = {}  # value, size, height
        self.nodes = 0

    def fail(self, event: yaml.Event, message: str) -> SpecError:
        m = event.start_mark
        return SpecError(Where(self.file, m.line + 1, m.column + 1) if m else Where(self.file),
                         message)

    def document(self) -> Located:
        get = self.loader.get_event
        get()  # stream start
        if self.loader.check_event(yaml.StreamEndEvent):
            return Located(self.file, None, self.marks)
        get()  # document start
        data = self.value()
        get()  # document end
        if not self.loader.check_event(yaml.StreamEndEvent):
            raise self.fail(get(), "a file holds one YAML document; remove the second (---)")
        return Located(self.file, data, self.marks, self.key_marks)

    def value(self) -> Any:
        """One node, however deeply nested, built without recursion."""
        stack: list[_Frame] = []
        while True:
            event = self.loader.get_event()
            parent = stack[-1] if stack else None
            if parent is not None and isinstance(parent.value, dict) and parent.key is None:
                if isinstance(event, yaml.MappingEndEvent):
                    value, height = self._close(stack.pop()), None
                else:
                    self._key(parent, event)
                    continue
            elif isinstance(event, yaml.SequenceEndEvent):
                value, height = self._close(stack.pop()), None
            else:
                path = self._path(parent)
                if isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
                    self._refuse_tag(event)
                    if len(stack) >= MAX_YAML_DEPTH:
                        raise self.fail(event, f"the file nests mappings and lists deeper than "
                                               f"the limit of {MAX_YAML_DEPTH} (max_yaml_depth)")
                    self._count(event, 1)
                    self._mark(path, event)
                    container: dict[str, Any] | list[Any] = {} if isinstance(
                        event, yaml.MappingStartEvent) else []
                    stack.append(_Frame(container, path, event.anchor, self.nodes))
                    continue
                value, height = self._leaf(event, path, len(stack))
            # `value` is complete: hand it to its parent (or return it)
            if not stack:
                return value
            frame = stack[-1]
            if height is not None:
                frame.height = max(frame.height, height + 1)
            if isinstance(frame.value, dict):
                key = frame.key
                assert key is not None
                frame.value[key] = value
                frame.key = None
            else:
                frame.value.append(value)

    def _close(self, frame: _Frame) -> Any:
        size = self.nodes - frame.size0 + 1
        if frame.anchor is not None:
            self.anchors[frame.anchor] = (frame.value, size, frame.height)
        return frame.value

    def _path(self, parent: _Frame | None) -> PathKey:
        if parent is None:
            return ()
        if isinstance(parent.value, dict):
            assert parent.key is not None
            path = (*parent.path, parent.key)
            if parent.key_mark is not None:
                self.key_marks[path] = parent.key_mark
            return path
        return (*parent.path, len(parent.value))

    def _mark(self, path: PathKey, event: yaml.Event) -> None:
        m = event.start_mark
        assert m is not None, "the parser marks where every event starts"
        self.marks[path] = (m.line + 1, m.column + 1, getattr(event, "style", None) or "")

    def _count(self, event: yaml.Event, n: int) -> None:
        self.nodes += n
        if self.nodes > MAX_YAML_NODES:
            raise self.fail(event, over("max_yaml_nodes", "the number of values in the file "
                                        "(aliases counted in full)", self.nodes))

    def _refuse_tag(self, event: Any) -> None:
        if event.tag is not None:
            raise self.fail(event, f"YAML tags such as {short(_written(event.tag))} are not allowed; write "
                                   "plain values")

    def _leaf(self, event: Any, path: PathKey, depth: int) -> tuple[Any, int]:
        if isinstance(event, yaml.AliasEvent):
            if event.anchor not in self.anchors:
                raise self.fail(event, f"the alias *{event.anchor} names no anchor defined "
                                       "before it")
            value, size, height = self.anchors[event.anchor]
            if depth + height > MAX_YAML_DEPTH:
                raise self.fail(event, f"the alias *{event.anchor} nests the file deeper than the "
                                       f"limit of {MAX_YAML_DEPTH} (max_yaml_depth)")
            self._count(event, size)
            self._mark(path, event)
            return copy.deepcopy(value), height
        if not isinstance(event, yaml.ScalarEvent):
            raise self.fail(event, "expected a value")
        self._refuse_tag(event)
        self._count(event, 1)
        self._mark(path, event)
        value = self._scalar(event)
        if event.anchor is not None:
            self.anchors[event.anchor] = (value, 1, 0)
        return value, 0

    def _scalar(self, event: Any) -> Any:
        """The value of a plain or quoted scalar: text, a whole number, a float, yes/no, null."""
        tag = self.loader.resolve(yaml.ScalarNode, event.value, event.implicit)
        if not event.style:
            self._refuse_surprising_number(event, tag)
        self._refuse_control(event)
        if tag == "tag:yaml.org,2002:str" or tag == "tag:yaml.org,2002:timestamp":
            return event.value
        node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
        if tag == "tag:yaml.org,2002:int":
            digits = sum(c.isdigit() for c in event.value)
            if digits > MAX_FILE_INT_DIGITS:
                raise self.fail(event, f"a whole number has at most {MAX_FILE_INT_DIGITS} "
                                       f"digits; this one has {digits}")
            return self.loader.construct_yaml_int(node)
        if tag == "tag:yaml.org,2002:float":
            return self.loader.construct_yaml_float(node)
        if tag == "tag:yaml.org,2002:bool":
            return self.loader.construct_yaml_bool(node)
        if tag == "tag:yaml.org,2002:null":
            return None
        return event.value  # any other implicit tag (merge, value): its text

    def _refuse_control(self, event: Any) -> None:
        """Refuse text holding a control character (but tab and newline), as a quoted
        scalar's escapes (`"\\e"`, `"\\r"`, `"\\x9b"`) can write one: printed, it could
        drive the terminal (set its title, overwrite a line)."""
        m = _CONTROL_IN_TEXT.search(event.value)
        if m:
            raise self.fail(event, f"the text holds the control character U+{ord(m.group()):04X}"
                                   "; text in a file is printable (tab and newline allowed)")

    def _refuse_surprising_number(self, event: Any, tag: str) -> None:
        """Refuse a plain scalar that YAML 1.1 reads as a number other than its digits say
        (`010` is 8, `0x10` 16, `1_000` 1000, `1:30` 90), or that a YAML 1.2 reader would
        take for a number (`0o10`): such a value is a number only in plain decimal."""
        text = event.value
        if tag in (_INT, _FLOAT) and _YAML11_NUMBER.search(text):
            meant = self.loader.construct_yaml_int(_node(event, tag)) if tag == _INT else (
                self.loader.construct_yaml_float(_node(event, tag)))
            raise self.fail(event, f"{short(text)} is a YAML 1.1 number form that reads as "
                                   f"{meant!r}; write a number in plain decimal digits (no "
                                   "leading zero, prefix, _ or :), or quote text")
        if tag == _STR and _YAML12_NUMBER.fullmatch(text):
            raise self.fail(event, f"{short(text)} is a number in YAML 1.2 but text in YAML "
                                   "1.1; write a number in plain decimal digits, or quote text")

    def _key(self, frame: _Frame, event: Any) -> None:
        if not isinstance(event, yaml.ScalarEvent):
            raise self.fail(event, "a mapping key must be a plain value (text or a number)")
        self._refuse_tag(event)
        self._count(event, 1)
        value = self._scalar(event)
        key = event.value if isinstance(value, float) else str(value)
        if key in frame.value:
            raise self.fail(event, f"duplicate key {short(key)}")
        frame.key = key
        m = event.start_mark
        assert m is not None, "the parser marks where every event starts"
        frame.key_mark = (m.line + 1, m.column + 1)


def _node(event: Any, tag: str) -> yaml.ScalarNode:
    return yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)


def _written(tag: str) -> str:
    """A tag as it is usually written (`!!str` rather than `tag:yaml.org,2002:str`)."""
    return "!!" + tag.removeprefix("tag:yaml.org,2002:") if tag.startswith("tag:yaml.org") else tag
