"""Two versions part where a player can see it, not where a variable first differs.

The coin game (tests/specs/coin.yaml) with a bookkeeping variable `gos`: in the new
version `go` counts into it and `stop` needs fewer than two; in the old one nothing
changes it. After one `go` the states differ only in `gos`, the rules' own record (nothing
on the table); after two the player to act may not stop in the new version. So the
versions part, as a player sees it, after exactly 2 actions (the legal actions differ), and
the context says that `gos` differed from action 1.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import model
from properties.compare import lockstep as L
from properties.compare.parting import find_parting

SPECS = Path(__file__).parent / "specs"
COIN = (SPECS / "coin.yaml").read_text(encoding="utf-8")
WITH_COUNT = COIN.replace("  stopped: {type: bool, init: false}\n",
                          "  stopped: {type: bool, init: false}\n"
                          "  gos: {type: int, init: 0}\n")
COUNTING = WITH_COUNT.replace(
    'effects: ["active = (active + 1) % player_count"]',
    'effects: ["active = (active + 1) % player_count", "gos = min([gos + 1, 9])"]').replace(
    "  stop:\n    say: stop\n    when: not stopped\n",
    "  stop:\n    say: stop\n    when: not stopped and gos < 2\n")


def _versions(tmp_path: Path) -> tuple[model.Game, model.Game]:
    shutil.copytree(SPECS / "rulebooks", tmp_path / "rulebooks")
    assert COUNTING.count("gos") == 4, "the edits of coin.yaml did not apply"
    (tmp_path / "old.yaml").write_text(WITH_COUNT, encoding="utf-8")
    (tmp_path / "new.yaml").write_text(COUNTING, encoding="utf-8")
    return (model.load(tmp_path / "old.yaml", players=2),
            model.load(tmp_path / "new.yaml", players=2))


@pytest.mark.parametrize("use_z3", [False, True])
def test_the_versions_part_where_the_legal_actions_differ_not_where_a_variable_does(
        tmp_path: Path, use_z3: bool) -> None:
    old, new = _versions(tmp_path)
    p = find_parting(old, new, use_z3=use_z3, games=20, examples=0, z3_limit=20_000_000)
    assert p.parted, p.detail
    assert (p.mode, list(p.actions)) == ("legal", ["go", "go"])
    assert "stop" in " ".join(p.old_legal) and "stop" not in " ".join(p.new_legal)
    assert any("gos differ(s) after action 1, only in the rules' own record" in n
               for n in p.notes)


def test_a_variable_is_not_seen_and_a_face_down_pile_shows_only_its_size(
        tmp_path: Path) -> None:
    old, new = _versions(tmp_path)
    a, b = old.initial_state(0), new.initial_state(0)
    go = next(x for x in b.legal_actions() if x.name == "go")
    after_o, after_n = a.apply(next(x for x in a.legal_actions() if x.name == "go")), b.apply(go)
    assert [p.name for p in L.state_differences(after_o, after_n, None)] == ["gos"]
    assert L.visible_differences(after_o, after_n, None) == ()
    # LAMA's stock is seen by nobody: two deals with the same hands and the stock in
    # another order look alike to every player, though the states differ
    lama = model.load("lama", players=2)
    s = lama.initial_state(0)
    d = s.to_dict()
    stock = d["zones"]["stock"]
    assert len(set(stock)) > 1
    d["zones"]["stock"] = list(reversed(stock))
    t = lama.state_from_dict(d, "<test>")
    assert L.observe(s) != L.observe(t)
    assert L.seen(s) == L.seen(t)
    assert L.seen(s)["stock"] == ("hidden", len(stock), None)
    # and the discard pile, face up, is seen whole
    assert L.seen(s)["discard"] == L.observe(s)["discard"]
