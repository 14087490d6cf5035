"""The z3 back end and the new constructs: procedures and generated decks are expanded before
the IR, and a round-end condition that game_end names is a variable set at the start of
the scoring, so the encoding needs nothing new. Checked on the 104-card z3 test game
(tests/specs/row104.yaml, its 104 kinds written out and its turn change written twice)
rewritten with a generated deck, a procedure and a game end that names the round end.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import model
from properties.checks.cache import fingerprint
from properties.symbolic import queries as Q

ROOT = Path(__file__).resolve().parent.parent
ROW104 = (ROOT / "tests" / "specs" / "row104.yaml").read_text(encoding="utf-8")
KINDS = "".join(f"    - {{name: c{n}, rank: {n}, copies: 1}}\n" for n in range(1, 105))
TURN = "      - active = first((q for q in after(active) if not empty(hand[q])), active)\n"
GAME_END = '    - {name: enough_rounds, when: "round >= rounds"}\n'


def rewritten(tmp_path: Path, game_end: bool = False) -> Path:
    assert KINDS in ROW104 and ROW104.count(TURN) == 2
    text = ROW104.replace(KINDS, "    - each: {rank: {from: 1, to: 104}}\n"
                                 "      name: \"c{rank}\"\n      copies: 1\n")
    text = text.replace(TURN, "      - next_turn()\n")
    text = text.replace("\nround:\n", "\nprocedures:\n  next_turn:\n    - active = first((q for q "
                                      "in after(active) if not empty(hand[q])), active)\n"
                                      "\nround:\n")
    if game_end:
        assert GAME_END in text
        text = text.replace(GAME_END, '    - {name: enough_rounds, when: "round >= rounds and '
                                      'hands_empty"}\n')
    path = tmp_path / "row104.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_rewritten_game_is_the_same_game_to_z3(tmp_path: Path) -> None:
    path = rewritten(tmp_path)
    for players in (2, 3, 4):
        a = model.load_ir(path, players=players)
        b = model.load_ir(ROOT / "tests" / "specs" / "row104.yaml", players=players)
        assert fingerprint(a).play == fingerprint(b).play  # the IR the encoding reads


@pytest.mark.parametrize("game_end", [False, True], ids=["deck_and_procedure", "round_end"])
def test_z3_proves_the_rewritten_game(tmp_path: Path, game_end: bool) -> None:
    game = model.load(rewritten(tmp_path, game_end), players=2)
    if game_end:
        assert any(v.name == "round_end__hands_empty" for v in game.ir.vars)
    for name in ("conservation", "supply"):
        res = Q.QUERIES[name](game)
        assert res.status == "proved", f"{name}: {res.detail}"
    res = Q.game_cycle(game)
    assert res.status == "proved", res.detail
    assert res.bound == 2
