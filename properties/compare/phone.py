"""HTML pages that read on a phone as well as on a desktop: the `diff --html` report, the
`stats --html` report and the FAQ site (`faq --html`).

Three things make a page phone-ready, and every page builder applies all three:

- `VIEWPORT`, the meta tag without which a phone lays the page out 980 px wide and
  shrinks it;
- `scrolling_tables`: every table inside a `<div class="scroll">` that scrolls sideways,
  so a wide table scrolls on its own instead of clipping or widening the page;
- `CSS` (phone.css): long lines wrap (a state, a situation, a list of actions, a code
  span), so that nothing but a table's own container is ever wider than the screen.

`tests/test_phone_ready.py` checks the generated pages for each, and lays them out at
390 and 1280 px in a real browser where one is installed.
"""

from __future__ import annotations

import re
from pathlib import Path

VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">'

#: The class of the container a table scrolls in (phone.css styles it).
SCROLL = "scroll"

#: The style every phone-ready page carries (after its own).
CSS = (Path(__file__).parent / "phone.css").read_text(encoding="utf-8")

_TABLE = re.compile(r"<table\b.*?</table>", re.S)


def scrolling_tables(html: str) -> str:
    """`html` with every table wrapped in a container that scrolls sideways. Tables are
    never nested in these pages (their text is escaped, so `<table` is always a tag)."""
    def wrap(m: re.Match[str]) -> str:
        table = m.group()
        if "<table" in table[6:]:
            raise ValueError("a table inside a table: wrap it by hand")
        return f'<div class="{SCROLL}">{table}</div>'
    return _TABLE.sub(wrap, html)
