"""The HTML reports read on a phone: `rulespec diff --html`, `rulespec stats --html` and the
FAQ site (`rulespec faq --html`) each carry the viewport tag, put every table in a container
that scrolls sideways, and wrap long lines (a state, a situation, a game's actions), so that
at 390 px nothing but a table's own container is wider than the screen
(`properties/compare/phone.py`).

The pages are generated here, by the commands: a diff whose parting game, not shortened,
is over 100 actions long (LAMA's empty_stock=reshuffle, found by lock-step games), the
statistics of LAMA, and the
site of LAMA's published FAQ.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from browser import chromium
from click.testing import CliRunner

from model.schema import SPEC_DIR
from properties.cli import main
from properties.compare import phone
from properties.faq.entries import build
from properties.faq.site import write_site

STORE = SPEC_DIR.parent / "docs" / "faq" / "partings"  # the published parting games


def _run(*args: str) -> None:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code in (0, 1), (result.exit_code, result.stdout, result.stderr)


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("pages")
    diff, stats = folder / "diff.html", folder / "stats.html"
    _run("diff", "lama", "lama", "--new-variant", "empty_stock=reshuffle", "-p", "4",
         "--no-properties", "--no-z3", "--shorten-steps", "0", "--stats-games", "50",
         "--html", str(diff),
         "--replays", str(folder / "replays"))
    _run("stats", "lama", "-p", "4", "--games", "100", "--html", str(stats))
    site = folder / "site"
    write_site([build("lama", store=STORE, stored_only=True)], site)
    return {"diff": diff, "stats": stats, "faq index": site / "index.html",
            "faq game": site / "lama.html", "faq rulebook": site / "lama.en.html"}


def test_every_page_has_the_viewport_tag_and_its_tables_scroll(pages: dict[str, Path]) -> None:
    for name, path in pages.items():
        html = path.read_text(encoding="utf-8")
        head = html[:html.index("<body")]
        assert re.search(r'<meta name="viewport" content="width=device-width[^"]*"', head), name
        tables = html.count("<table")
        assert tables, f"{name}: no table to check"
        wrapped = html.count(f'<div class="{phone.SCROLL}"><table')
        assert wrapped == tables, f"{name}: {tables - wrapped} of {tables} tables do not scroll"
        style = "".join(re.findall(r"<style>(.*?)</style>", head, re.S))
        assert re.search(rf"\.{phone.SCROLL}\s*\{{[^}}]*overflow-x:\s*auto", style), name
        # long lines wrap: preformatted text (a situation), code (actions), cells
        assert re.search(r"(^|[},\s])pre\s*\{[^}]*white-space:\s*pre-wrap", style), name
        assert re.search(r"(^|[},\s])code[^{]*\{[^}]*overflow-wrap:\s*anywhere", style), name


def test_the_diff_page_shows_a_long_game_and_a_situation(pages: dict[str, Path]) -> None:
    """The diff page holds what used to run off the page: a parting game of over 100
    actions (the lock-step games' own, not shortened) on one line and the situation where
    the versions part, preformatted."""
    html = pages["diff"].read_text(encoding="utf-8")
    assert "<pre>" in html
    (actions,) = re.findall(r"<p>The game from the deal: <code>(.*?)</code></p>", html)
    assert actions.count(" / ") >= 100


@pytest.mark.parametrize(("width", "mobile"), [(390, True), (1280, False)])
def test_nothing_is_wider_than_the_screen_in_a_real_browser(
        pages: dict[str, Path], width: int, mobile: bool, tmp_path: Path) -> None:
    """Laid out by Chromium as a phone (390 px, which honours the viewport tag: without it a
    phone lays the page out 980 px wide) and as a desktop: the page is never wider than the
    screen, and every table sits in a container that scrolls sideways."""
    too_wide: list[str] = []
    with chromium(tmp_path) as (browser, artifacts):
        context = browser.new_context(viewport={"width": width, "height": 800},
                                      is_mobile=mobile, has_touch=mobile,
                                      device_scale_factor=2 if mobile else 1)
        page = context.new_page()
        for name, path in pages.items():
            page.goto(path.as_uri())
            inner, scroll = page.evaluate(
                "[window.innerWidth, document.documentElement.scrollWidth]")
            if inner != width or scroll > width:
                too_wide.append(f"{name}: laid out {inner} px wide, {scroll} px of content")
            unscrolled = page.eval_on_selector_all(
                "table", "ts => ts.filter(t => getComputedStyle(t.parentElement).overflowX"
                         " !== 'auto').length")
            if unscrolled:
                too_wide.append(f"{name}: {unscrolled} tables outside a scrolling container")
            page.screenshot(path=str(artifacts / f"{name.replace(' ', '-')}-{width}.png"))
    assert too_wide == []
