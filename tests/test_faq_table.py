"""The table a player sees (properties/faq/table.py): a small situation of known contents
drawn as piles, hands and chips, variables at their start left out, changes marked, the
differences of two states told in the same words, and spec text escaped."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import model
from model import ir
from model.schema import SPEC_DIR
from properties.faq import table
from properties.faq.entries import GameFaq, build
from properties.faq.markdown import render
from properties.faq.site import write_site

SITUATION = {
    "game": "lama", "players": 3, "active": 1,
    "zones": {"stock": {"top": ["6", "llama", "2"], "rest": True}, "discard": ["1", "4", "5"],
              "hand": [{}, {"5": 2, "llama": 1, "2": 1}, {"6": 1}],
              "out": [{"3": 1, "1": 1}, {}, {}],
              "pool": {"white": 40, "black": 19}, "chips": [{}, {"white": 10, "black": 1}, {}]},
    "vars": {"quit": [True, False, False]},
}


def _state(**changes: object) -> model.State:
    game = model.load("lama", players=3)
    data = {**SITUATION, **changes}
    return game.state_from_dict(data, "<test>", checked=False)


def _rows(t: table.Table) -> dict[str, dict[str, str]]:
    return {r.title: {e.key: e.words() for e in r.entries} for r in t.rows}


def test_piles_show_their_top_and_count_and_bags_their_kinds_in_the_spec_order() -> None:
    rows = _rows(table.build(_state()))
    assert rows["On the table"]["stock"] == "2 on top (46 cards)"
    assert rows["On the table"]["discard"] == "5 on top (3 cards)"
    assert rows["On the table"]["pool"] == "white ×40, black ×19 (59 tokens)"
    assert rows["Player 1"]["hand"] == "2, 5 ×2, llama (4 cards)"  # the spec's kind order
    assert rows["Player 1"]["chips"] == "white ×10, black (11 tokens)"
    assert rows["Player 2"]["hand"] == "6"
    assert rows["Player 0"]["out"] == "1, 3 (2 cards)"


def test_variables_at_their_start_and_empty_zones_of_a_player_are_left_out() -> None:
    rows = _rows(table.build(_state()))
    assert rows["Player 0"] == {"out": "1, 3 (2 cards)", "quit": "yes"}  # no empty hand
    assert "quit" not in rows["Player 1"] and "out" not in rows["Player 1"]
    for hidden in ("phase", "ended", "starter", "unpaid"):  # all at their start
        assert all(hidden not in entries for entries in rows.values())
    t = table.build(_state(vars={"quit": [True, False, False], "phase": "return"}))
    assert _rows(t)["On the table"]["phase"] == "return"
    assert t.heading == "Round 1, player 1 to act"


def test_what_changed_since_the_state_before_is_marked_and_shown_even_when_empty() -> None:
    before = _state()
    after = before.apply(before.game.parse_action("play 5"))
    t = table.build(after, before)
    changed = {(r.title, e.key): e.words() for r in t.rows for e in r.entries if e.changed}
    assert changed == {("On the table", "discard"): "5 on top (4 cards)",
                       ("Player 1", "hand"): "2, 5, llama (3 cards)"}
    assert t.heading == "Round 1, player 2 to act"
    lines = table.markdown_lines(t)
    assert "- On the table: stock 2 on top (46 cards; face down); **discard 5 on top " \
           "(4 cards)**; pool white ×40, black ×19 (59 tokens)." in lines
    assert '<span class="entry changed"><span class="name">discard</span>' in table.html(t)
    # a zone left out when empty is shown once it changed to empty
    emptied = _state(zones={**SITUATION["zones"], "hand": [{}, {}, {"6": 1}]})
    assert _rows(table.build(emptied, _state()))["Player 1"]["hand"] == "empty"


def test_two_states_differ_in_the_words_of_the_table() -> None:
    a = _state()
    b = _state(active=2, zones={**SITUATION["zones"], "pool": {"white": 50, "black": 10},
                                "chips": [{}, {"black": 10}, {}]})
    assert table.differences(a, b) == [
        ("to act", "player 1", "player 2"),
        ("player 1's score", "20", "100"),  # the scores first: the chips count
        ("pool", "white ×40, black ×19 (59 tokens)", "white ×50, black ×10 (60 tokens)"),
        ("player 1's chips", "white ×10, black (11 tokens)", "black ×10"),
    ]


def test_the_spec_notes_explain_the_names_shown() -> None:
    spec_legend = table.legend(SPEC_DIR / "lama.yaml")
    assert spec_legend.notes["out"] == "the face-down cards of a player who quit"
    assert spec_legend.attributes["cards"] == ("rank", "points")
    t = table.build(_state(), None, spec_legend)
    assert ("out", "the face-down cards of a player who quit") in t.legend
    assert "unpaid" not in dict(t.legend)  # a note of a variable not shown is not given
    assert 'title="rank 7, points 10">llama</span>' in table.html(t)


def test_spec_text_is_escaped_and_a_colour_is_used_only_when_it_is_a_plain_word() -> None:
    hostile = "<img src=x onerror=alert(1)> *bold* [a](javascript:x)"
    t = table.build(_state(), None, table.Legend({"out": hostile}, {}))
    md = "\n".join(table.markdown_lines(t))
    assert "<img" not in md and "\\*bold\\*" in md and "[a\\](javascript" in md
    page = table.html(t)
    assert "<img" not in page and "&lt;img" in page
    kinds = {"x": ir.Kind("x", "cards", 1, {"colour": "red;background:url(http://e/)"}, "s"),
             "y": ir.Kind("y", "cards", 1, {"colour": "green"}, "s")}
    drawn = table.Table(1, 0, (), (table.Row("table", "On the table", (
        table.Entry("z", "z", (("x", 1), ("y", 2))),)),), (), kinds, {"cards": ("colour",)})
    page = table.html(drawn)
    assert "url(" not in page.split('title="')[0] and 'style="--c:green"' in page
    assert page.count("style=") == 1


@pytest.fixture(scope="module")
def lama_faq() -> GameFaq:
    return build("lama", store=SPEC_DIR.parent / "docs" / "faq" / "partings", stored_only=True)


def test_the_faq_draws_a_clarification_situation_instead_of_naming_it(lama_faq: GameFaq
                                                                        ) -> None:
    text = render(lama_faq)
    section = text.split("### May I draw a card although I could play one?")[1].split("###")[0]
    assert "free_choice.yaml" not in section
    # tests/situations/lama/free_choice.yaml: player 0 holds a 3 and a 5 on a 3
    assert "- Player 0 (to act): hand 3, 5 (2 cards; only its player sees it)." in section
    assert "- Player 1: hand 2 ×2 (only its player sees it)." in section
    assert "- On the table: stock llama on top (49 cards; face down); discard 3 on top (1 card)" in section
    assert "`draw`: then player 1 to act; player 0's hand: 3, 5, llama (3 cards)." in section
    assert Path(SPEC_DIR.parent / "tests" / "situations" / "lama" / "free_choice.yaml").exists()


def _families(game: str) -> set[str]:
    g = model.load_ir(game, players=model.loader.any_player_count(game))
    return {z.name for z in g.zones} | {v.name for v in g.vars}


@pytest.mark.parametrize("game", sorted(p.stem for p in SPEC_DIR.glob("*.yaml")))
def test_the_published_faq_shows_no_engine_slot_and_draws_every_parting_step(game: str) -> None:
    """docs/faq: no `hand[2]` or `quit True, False` where readings part or an example plays,
    and every parting game that has a step before the parting one draws its table."""
    text = (SPEC_DIR.parent / "docs" / "faq" / f"{game}.md").read_text(encoding="utf-8")
    slot = re.compile(r"\b(" + "|".join(map(re.escape, _families(game))) + r")\[\w+\]")
    entries = text.split("\n- **")[1:]
    parted = [e for e in entries if "**They part" in e]
    assert parted
    for e in parted:
        telling = "\n".join(line for line in e.splitlines()  # but the spec's prose and stats
                             if not line.startswith(("  Property", "  What it does to play")))
        assert not slot.search(telling), telling[:300]
        assert not re.search(r"\b(True|False)\b", telling), telling[:300]
        assert "\n  - Round " in telling, telling[:300]  # the table's heading line
    assert "Example: the situation" not in text


def test_the_site_draws_the_parting_step_and_the_situation_with_tiles(lama_faq: GameFaq,
                                                                     tmp_path: Path) -> None:
    write_site([lama_faq], tmp_path)
    page = (tmp_path / "lama.html").read_text(encoding="utf-8")
    chips = page.split('id="q-chip_exchange"')[1].split("</section>")[0]
    part = chips.split('<div class="part">')[1]
    assert '<div class="table">' in part and 'class="entry changed"' in part
    assert '<dt class="to-act">Player 2 (to act)</dt>' in part
    assert 'class="tile chip" style="--c:black" title="value 10">black</span>' in part
    example = page.split('id="c-draw_instead_of_playing"')[1].split("</section>")[0]
    assert "free_choice" not in example
    assert ('<span class="name">hand</span> <span class="tile card" title="rank 3, points 3">'
            '3</span><span class="tile card" title="rank 5, points 5">5</span>') in example


def test_a_zone_not_everyone_sees_says_who_does_as_its_spec_declares() -> None:
    t = table.build(_state())
    seen = {(r.title, e.key): e.seen for r in t.rows for e in r.entries}
    declared = {z.name: (z.sees, z.top) for z in model.load("lama", players=3).ir.zones}
    for (_, key), words in seen.items():
        if key not in declared:
            continue  # a variable or the score
        sees, _top = declared[key]
        assert (words == "") == (sees == "everyone"), (key, words)
    assert declared["hand"][0] == "owner" and declared["stock"][0] == "nobody"
    assert seen[("Player 1", "hand")] == "only its player sees it"
    assert seen[("On the table", "stock")] == "face down"
    lines = "\n".join(table.markdown_lines(t))
    assert "hand 2, 5 ×2, llama (4 cards; only its player sees it)" in lines
    assert "discard 5 on top (3 cards)." in lines or "discard 5 on top (3 cards);" in lines
