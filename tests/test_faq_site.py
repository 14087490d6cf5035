"""The published FAQ site: every internal link resolves, every rulebook line is shown
beside what cites it (cited lines found here by scanning the spec text, independently of
the site's own citation walker), and every page loads in a real browser without errors.

The rules explorer is clicked through in a real browser, one parting game per game at
desktop and phone width, and every published parting game is opened at the step where its
readings part; what the page shows there is checked against the replay file played on the
model by this test (`Walk`), not against what the site generator computed."""

from __future__ import annotations

import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag

import attrs
import pytest
import yaml
from browser import chromium
from test_docs_commands import DOCUMENTED, FAQ_SAYS

import model
from model.schema import SPEC_DIR
from properties.compare.lockstep import seen
from properties.concrete import trace
from properties.faq.entries import GameFaq, build
from properties.faq.explorer import script_json
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


# ------------------------------------------------------------------ the rules explorer
@attrs.frozen
class Walk:
    """A stored parting game as this test plays it: the replay file on the model (the
    replay command's engine, `trace.replay`) under the ruling and under the reading, each
    state's legal actions, and where the two part: the first position whose legal actions
    differ (`legal`) or whose state differs (the action before parted them, `outcome`; at
    the deal, `deal`)."""

    game: str
    ambiguity: str
    ruling: str
    reading: str
    actions: tuple[str, ...]
    states: tuple[tuple[model.State, ...], tuple[model.State, ...]]
    legal: tuple[tuple[tuple[str, ...], ...], tuple[tuple[str, ...], ...]]
    part: int
    how: str

    @property
    def id(self) -> str:
        return f"x-{self.ambiguity}={self.reading}"

    def label(self, k: int) -> str:
        """How the explorer names position k (the FAQ's step numbers)."""
        if self.how == "deal":
            return "The deal"
        if self.how == "outcome" and k == len(self.actions):
            return f"After step {k}"
        return f"Step {k + 1}"


def _seen(state: model.State) -> Any:
    """What some player sees of a state: where the readings part is where this differs."""
    return seen(state)


def walk(path: Path) -> Walk:
    game, amb, reading = path.stem.split("-")
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    spec = SPEC_DIR / f"{game}.yaml"
    g = model.load_ir(spec, players=int(data["players"]))
    ruling = next(a.default for a in g.ambiguities if a.id == amb)
    runs = tuple(tuple(trace.replay({**data, "spec": str(spec), "variants": {amb: v}})[1])
                 for v in (ruling, reading))
    legal = tuple(tuple(tuple(str(a) for a in s.legal_actions()) for s in run) for run in runs)
    part, how = len(runs[0]) - 1, "legal"
    for k, (a, b) in enumerate(zip(*runs, strict=True)):
        if _seen(a) != _seen(b):
            part, how = (0, "deal") if k == 0 else (k - 1, "outcome")
            break
        if set(legal[0][k]) != set(legal[1][k]):
            part, how = k, "legal"
            break
    return Walk(game, amb, ruling, reading, tuple(map(str, data["actions"])), runs, legal,
                part, how)


def _stored(game: str) -> list[Path]:
    return sorted(p for p in STORE.glob(f"{game}-*-*.yaml"))


def _heading(state: model.State) -> str:
    d = state.to_dict()
    return f"Round {d['round']}, " + ("the game is over" if d["terminal"]
                                      else f"player {d['active']} to act")


def _shown(page: Any) -> dict[str, Any]:
    """What the explorer shows now."""
    return page.evaluate("""() => {
      const col = c => document.getElementById('col-' + c);
      const shown = c => document.getElementById('table-' + c);
      const read = c => ({
        legal: [...col(c).querySelectorAll('.legal li code')].map(e => e.textContent),
        only: [...col(c).querySelectorAll('.legal li.only code')].map(e => e.textContent),
        heading: shown(c).querySelector('.table .heading').textContent,
        changed: shown(c).querySelectorAll('.table .changed').length,
        took: col(c).querySelector('.took').textContent,
        name: col(c).querySelector('.reading').textContent});
      const root = document.getElementById('explorer');
      return {where: document.getElementById('where').textContent, part: root.dataset.part,
              marker: document.getElementById('marker').hidden ? '' :
                      document.getElementById('marker').textContent,
              columns: [read(0), read(1)],
              width: document.scrollingElement.scrollWidth,
              unscrolled: [...document.querySelectorAll('#explorer table')].filter(
                t => getComputedStyle(t.parentElement).overflowX !== 'auto').length};
    }""")


def _check_position(w: Walk, k: int, shown: dict[str, Any]) -> None:
    where = f"{w.id}, position {k}"
    assert shown["where"].startswith(w.label(k) + " ("), (where, shown["where"])
    assert shown["columns"][0]["name"] == f"ruling {w.ruling}", where
    assert shown["columns"][1]["name"] == w.reading, where
    for c in (0, 1):
        col, state = shown["columns"][c], w.states[c][k]
        assert col["legal"] == list(w.legal[c][k]), (where, c)
        assert col["only"] == [a for a in w.legal[c][k] if a not in w.legal[1 - c][k]], (where, c)
        assert col["heading"].startswith(_heading(state)), (where, c, col["heading"])
        if k < len(w.actions):
            assert w.actions[k] in col["took"], (where, c, col["took"])
    assert (shown["part"] == "yes") == (k == w.part), where


def _clicked_through(game: str) -> Walk:
    """The game's parting game clicked through: the longest of at most 25 actions."""
    walks = [walk(p) for p in _stored(game)]
    return max((x for x in walks if len(x.actions) <= 25), key=lambda x: (len(x.actions), x.id))


def test_the_explorer_json_cannot_close_its_script_element() -> None:
    value = {"a": "</script><script>alert(1)</script>", "b": "x & y > z\u2028"}
    text = script_json(value)
    assert not re.search("[<>&\u2028\u2029]", text)
    assert json.loads(text) == value


def test_the_explorer_steps_through_one_parting_game_per_game_at_desktop_and_phone_width(
        site: Path, tmp_path: Path) -> None:
    problems: list[str] = []
    with chromium(tmp_path) as (browser, artifacts):
        for game in GAMES:
            w = _clicked_through(game)
            for width in (1280, 390):
                phone = width < 500  # laid out as a phone: the viewport tag is honoured
                context = browser.new_context(viewport={"width": width, "height": 1000},
                                              is_mobile=phone, has_touch=phone,
                                              device_scale_factor=2 if phone else 1)
                page = context.new_page()
                page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
                page.on("console", lambda m: problems.append(f"console: {m.text}")
                        if m.type in ("error", "warning") else None)
                page.goto((site / f"{game}-explorer.html").as_uri())
                page.select_option("#pick", w.id)
                for k in range(w.part):
                    shown = _shown(page)
                    _check_position(w, k, shown)
                    assert shown["marker"] == "", (w.id, k)
                    page.click("#next")
                shown = _shown(page)
                _check_position(w, w.part, shown)
                assert "part" in shown["marker"], shown["marker"]
                assert shown["width"] <= width, f"{w.id} is {shown['width']} px wide at {width}"
                page.screenshot(path=str(artifacts / f"explorer-{game}-{width}.png"),
                                full_page=True)
                if w.how == "outcome":  # the tables after the parting action
                    page.click("#next")
                    after = _shown(page)
                    _check_position(w, w.part + 1, after)
                    # each table highlights what differs from the other's; where no
                    # entry does (Whisk's tie-break: only the winners), the headings differ
                    cols = after["columns"]
                    assert (all(c["changed"] for c in cols)
                            or len({c["heading"] for c in cols}) == len(cols)), (w.id, cols)
                    assert after["marker"], w.id
                    assert after["width"] <= width, f"{w.id}: {after['width']} px at {width}"
                    assert after["unscrolled"] == 0, w.id
                context.close()
            assert (artifacts / f"explorer-{game}-390.png").stat().st_size > 0
    assert problems == []


def test_every_published_parting_game_is_in_the_explorer_and_parts_where_the_replay_does(
        site: Path, tmp_path: Path) -> None:
    with chromium(tmp_path) as (browser, _artifacts):
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        for game in GAMES:
            stored = _stored(game)
            page.goto((site / f"{game}-explorer.html").as_uri())
            options = page.eval_on_selector_all("#pick option", "os => os.map(o => o.value)")
            assert sorted(options) == sorted(f"x-{p.stem.split('-')[1]}={p.stem.split('-')[2]}"
                                             for p in stored)
            for path in stored:
                w = walk(path)
                page.goto((site / f"{game}-explorer.html").as_uri() + f"#{w.id}")
                page.click("#part")
                _check_position(w, w.part, _shown(page))
