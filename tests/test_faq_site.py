"""The published FAQ site: every internal link resolves, every rulebook line is shown
beside what cites it (cited lines found here by scanning the spec text, independently of
the site's own citation walker), and every page loads in a real browser without errors."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urldefrag

import pytest
from browser import chromium
from test_docs_commands import DOCUMENTED, FAQ_SAYS

from model.schema import SPEC_DIR
from properties.faq.entries import GameFaq, build
from properties.faq.site import write_site

GAMES = sorted(p.stem for p in SPEC_DIR.glob("*.yaml"))
STORE = SPEC_DIR.parent / "docs" / "faq" / "partings"  # the published parting games
#: How docs/publishing.md publishes the site, which its index says wrote it.
PUBLISH = "rulespec faq --partings docs/faq/partings --html site/"


@pytest.fixture(scope="module")
def faqs() -> list[GameFaq]:
    return [build(g, store=STORE, stored_only=True, command=PUBLISH) for g in GAMES]


@pytest.fixture(scope="module")
def site(faqs: list[GameFaq], tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    write_site(faqs, folder)
    return folder


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []
        self.rows: dict[str, str] = {}  # book row id -> its class
        self.external: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.add(a["id"] or "")
            if tag == "tr":
                self.rows[a["id"] or ""] = a.get("class") or ""
        if tag == "a" and a.get("href") is not None:
            self.links.append(a["href"] or "")
        for key in ("src", "href"):
            value = a.get(key) or ""
            if tag in ("link", "script", "img") and value:
                self.external.append(value)


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def test_every_internal_link_resolves_and_nothing_is_loaded_from_outside(site: Path) -> None:
    pages = {p.name: _parse(p) for p in site.glob("*.html")}
    assert "index.html" in pages
    for name, page in pages.items():
        assert page.external == [], f"{name} loads {page.external}"
        for href in page.links:
            assert not href.startswith(("http:", "https:", "//")), f"{name}: {href}"
            target, anchor = urldefrag(href)
            target = target or name
            assert target in pages, f"{name}: broken link {href}"
            if anchor:
                assert anchor in pages[target].ids, f"{name}: no #{anchor} in {target}"


def test_every_game_and_rulebook_has_a_page_linked_from_the_index(site: Path,
                                                                   faqs: list[GameFaq]) -> None:
    index = _parse(site / "index.html")
    for f in faqs:
        assert f"{f.id}.html" in index.links
        for source in f.sources:
            assert f"{source}.html" in index.links
        questions = _parse(site / f"{f.id}.html")
        for q in f.questions:
            assert f"q-{q.id}" in questions.ids
        for a in f.answered:
            assert f"c-{a.id}" in questions.ids


def test_each_rulebook_line_is_marked_cited_exactly_when_the_spec_cites_it(
        site: Path, faqs: list[GameFaq]) -> None:
    for f in faqs:
        text = f.spec.read_text(encoding="utf-8")
        for source in f.sources:
            cited: set[int] = set()
            for m in re.finditer(re.escape(source) + r"#L(\d+)(?:-L?(\d+))?", text):
                first = int(m.group(1))
                cited.update(range(first, int(m.group(2) or first) + 1))
            book = f.rulebook(source)
            rows = _parse(site / f"{source}.html").rows
            assert len(rows) == len(book)
            for n in range(1, len(book) + 1):
                uncovered = "uncovered" in rows[f"L{n}"]
                assert uncovered == (n not in cited), f"{source}#L{n}"


def test_every_command_the_site_prints_is_one_the_docs_test_runs(site: Path) -> None:
    """The site prints the commands of the published Markdown FAQ (and the one that
    publishes it), each of which tests/test_docs_commands.py runs and holds to its text."""
    printed: dict[str, set[str]] = {}
    for page in site.glob("*.html"):
        for code in re.findall(r"<code>(rulespec [^<]*)</code>", page.read_text(encoding="utf-8")):
            printed.setdefault(html.unescape(code), set()).add(page.name)
    assert PUBLISH in printed and any(c.startswith("rulespec play ") for c in printed)
    unrun = {c: sorted(p) for c, p in printed.items() if c not in FAQ_SAYS and c not in DOCUMENTED}
    assert unrun == {}, "the site prints commands that no test runs"


def test_every_page_loads_in_a_real_browser_without_errors(site: Path, faqs: list[GameFaq],
                                                          tmp_path: Path) -> None:
    problems: list[str] = []
    with chromium(tmp_path) as (browser, artifacts):
        page = browser.new_page(viewport={"width": 1100, "height": 1400})
        page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}")
                if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        page.on("requestfailed", lambda r: problems.append(f"failed request: {r.url}"))
        ids: dict[str, set[str]] = {}
        links: dict[str, list[str]] = {}
        for html in sorted(site.glob("*.html")):
            page.goto(html.as_uri())
            ids[html.name] = set(page.eval_on_selector_all("[id]", "els => els.map(e => e.id)"))
            links[html.name] = page.eval_on_selector_all(
                "a[href]", "els => els.map(e => e.getAttribute('href'))")
        for f in faqs:
            page.goto((site / f"{f.id}.html").as_uri())
            page.screenshot(path=str(artifacts / f"faq-{f.id}.png"))
    assert problems == []
    for name, hrefs in links.items():
        for href in hrefs:
            target, anchor = urldefrag(href)
            target = target or name
            assert target in ids, f"{name}: broken link {href}"
            assert not anchor or anchor in ids[target], f"{name}: no #{anchor} in {target}"
    for f in faqs:
        assert (artifacts / f"faq-{f.id}.png").stat().st_size > 0
