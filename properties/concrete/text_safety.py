"""Spec text made safe to show: in Markdown (the FAQ, `diff --markdown`, `stats --markdown`)
and on a terminal.

A spec, a situation and a replay file are untrusted input, and their text (a title, a
question, a reading, a `say` text) ends up in documents and on screens. In Markdown it
could open raw HTML, a `javascript:` link, a new heading or a code span that swallows
the rest of the page; on a terminal a control character could set the window's title
(an OSC escape) or, with a carriage return, overwrite a line already printed. The
loader refuses control characters in a file's text (model/source.py); these helpers
are the second line, used by every writer:

- `markdown_text`: prose (escapes HTML-significant characters, link and emphasis syntax,
  and whatever would start a block at the beginning of a line);
- `markdown_cell`: the same, for a table cell (one line; `|` escaped);
- `code_span`: text shown as code, between backtick fences longer than any run of
  backticks inside it;
- `terminal_text`: C0 and C1 control characters (but newline and tab) shown as `\\xNN`.

The HTML pages escape with `html.escape` and do not need these.
"""

from __future__ import annotations

import re

#: Characters that mean something inside a Markdown line: HTML and autolinks (`<`, `>`,
#: `&` as entities), code (`` ` ``, when unpaired), emphasis and strike-through (`*`,
#: `~`), table cells (`|`), and the backslash that escapes them all.
_INLINE = {"\\": "\\\\", "&": "&amp;", "<": "&lt;", ">": "&gt;", "`": "\\`", "*": "\\*",
           "~": "\\~", "|": "\\|"}
_INLINE_RE = re.compile("[" + re.escape("".join(_INLINE)) + "]")
#: A link or an image is `[text](target)`; `[text]` alone is one only beside a reference
#: definition, which starts a line (escaped there, `_LINE_START`). So `](` is escaped.
_LINK = re.compile(r"\](?=\()")
#: `_` starts or ends emphasis only at the edge of a word (`hand_size` is plain text).
_EDGE_UNDERSCORE = re.compile(r"(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
#: What starts a block at the beginning of a line: a heading, a list item, a setext
#: underline, a numbered item (`1.`, `1)`), a link reference definition or footnote
#: (`[`); a quote's `>` is an entity already.
_LINE_START = re.compile(r"^(#|[-+=\[]|\d+(?=[.)]))")
#: Text between a pair of single backticks on one line: the writer meant code.
_PAIRED = re.compile(r"(?<!`)`([^`]+)`(?!`)")
#: C0 controls but tab and newline, DEL, and C1 controls.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_BACKTICKS = re.compile("`+")


def markdown_text(text: object, starts_line: bool = False) -> str:
    """Spec text as Markdown prose that shows exactly that text: no HTML, link, emphasis
    or block (heading, list, quote, code block) of its own. Text between a pair of
    backticks stays code (`owe`), in a span nothing inside can close. Lines are kept;
    `starts_line`: the text begins a line of the document (else it follows other text
    there, where `1.` or `#` starts nothing)."""
    lines = _CONTROL.sub(" ", str(text)).splitlines() or [""]
    return "\n".join(_markdown_line(line, block=starts_line or i > 0)
                     for i, line in enumerate(lines))


def markdown_cell(text: object) -> str:
    """Spec text for one cell of a Markdown table: `markdown_text` on one line."""
    return _markdown_line(" ".join(_CONTROL.sub(" ", str(text)).split()), cell=True)


def _markdown_line(line: str, block: bool = False, cell: bool = False) -> str:
    """One line; `block`: it begins a line of the document, where it must not start a
    block (its indentation would make code, `#` a heading, `1.` a list)."""
    parts = _PAIRED.split(line.lstrip() if block else line)  # prose, code, prose, ...
    out = "".join(code_span(part, cell) if i % 2 else _escape_prose(part)
                  for i, part in enumerate(parts))
    match = _LINE_START.match(out) if block else None
    if match is None:
        return out
    if match.group().isdigit():  # `1.` -> `1\.`
        return out[: match.end()] + "\\" + out[match.end():]
    return "\\" + out


def _escape_prose(text: str) -> str:
    text = _INLINE_RE.sub(lambda m: _INLINE[m.group()], text)
    return _LINK.sub(r"\\]", _EDGE_UNDERSCORE.sub(r"\\_", text))


def code_span(text: object, cell: bool = False) -> str:
    """Text as inline code: between backtick fences one longer than its longest run of
    backticks (padded with a space where it begins or ends with one), on one line, so
    that nothing in it can close the span. `cell`: in a table cell, where GFM needs `|`
    escaped even in code."""
    body = " ".join(_CONTROL.sub(" ", str(text)).split("\n"))
    runs = [len(m.group()) for m in _BACKTICKS.finditer(body)]
    fence = "`" * (max(runs, default=0) + 1)
    if body.startswith("`") or body.endswith("`") or (
            body.startswith(" ") and body.endswith(" ") and body.strip()):
        body = f" {body} "
    span = f"{fence}{body}{fence}"
    return span.replace("|", "\\|") if cell else span


def terminal_text(text: str, redraw: bool = False) -> str:
    """`text` with every C0 and C1 control character but newline and tab shown as `\\xNN`
    (an escape sequence cannot reach the terminal). `redraw`: a carriage return at the
    very start is kept, for a progress line that rewrites itself."""
    if redraw and text.startswith("\r"):
        return "\r" + terminal_text(text[1:])
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
