"""Generated decks: kinds from a product (`colour x letter`) or a range, with attributes and
copies computed by expressions.

Lambada's 35 letter cards and SLAMBO!'s number and sign cards are generated; a copy of
each spec with those kinds written out in full (below, written as the specs wrote them
before) must compile to the same game, at every player count and under every reading. The
rest are the constructs one by one and their errors, each positioned.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_language_procedures import lama_with, plain_code

import model
from model import SpecError, codegen
from model.source import read_yaml
from properties.checks.cache import fingerprint
from properties.faq.partings import play_form

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "spec"
LAMA_NUMBERS = "".join(f'    - {{name: "{n}", rank: {n}, points: {n}, copies: 8}}\n'
                       for n in range(1, 7))

COLOURS = ["blue", "green", "yellow", "orange", "red", "purple", "pink"]
LETTERS = ["L", "A", "M", "B", "D"]
WRITTEN_OUT = {
    "lambada": "".join(f"    - {{name: {c}_{x}, letter: {x}, colour: {c}, copies: "
                       f"{x.lower()}_copies}}\n" for c in COLOURS for x in LETTERS),
    "slambo": "".join(f'    - {{name: blue{n}, colour: blue, value: {n}, copies: "2 if '
                      f'dup_blue == {n} else 1"}}\n' for n in range(1, 9))
    + "".join(f'    - {{name: red{n}, colour: red, value: -{n}, copies: "2 if dup_red == '
              f'{n} else 1"}}\n' for n in range(1, 8))
    + "".join(f"""    - name: sign{n}
      colour: special
      effect: sign
      value: {n}
      copies: "0 if not specials else (1 if sign_count >= {n} else 0) if sign_numbers == \
'ascending' else (sign_count if sign_same == {n} else 0)"
""" for n in range(1, 5)),
}


def written_out(game: str, folder: Path) -> Path:
    """The spec with its generated entries replaced by the kinds written out."""
    lines = (SPEC / f"{game}.yaml").read_text(encoding="utf-8").splitlines(keepends=True)
    out, i, done = [], 0, False
    while i < len(lines):
        if lines[i].startswith("    - each:"):
            if not done:
                out.append(WRITTEN_OUT[game])
                done = True
            i += 1
            while i < len(lines) and lines[i].startswith("      "):
                i += 1
            continue
        if lines[i].strip().startswith("# the 35 letter cards"):
            i += 1
            continue
        out.append(lines[i])
        i += 1
    assert done, game
    path = folder / f"{game}.yaml"
    path.write_text("".join(out), encoding="utf-8")
    return path


def configurations(game: str) -> list[tuple[int, dict[str, str]]]:
    doc = read_yaml(SPEC / f"{game}.yaml").data
    counts = range(doc["players"]["min"], doc["players"]["max"] + 1)
    out = [(n, {}) for n in counts]
    for a in doc.get("ambiguities", []):
        out += [(n, {a["id"]: v}) for v in a["variants"] if v != a["default"]
                for n in counts]
    return out


@pytest.mark.parametrize("game", ["lambada", "slambo"])
def test_generated_kinds_compile_to_the_game_written_out(tmp_path: Path, game: str) -> None:
    plain = written_out(game, tmp_path)
    assert "each:" not in plain.read_text(encoding="utf-8")
    assert "each:" in (SPEC / f"{game}.yaml").read_text(encoding="utf-8")
    for players, variants in configurations(game):
        a = model.load_ir(game, players=players, variants=variants)
        b = model.load_ir(plain, players=players, variants=variants)
        assert a.kinds == b.kinds, (players, variants)
        assert [k.attrs for k in a.kinds] == [k.attrs for k in b.kinds]  # attrs: not in ==
        assert fingerprint(a).play == fingerprint(b).play, (players, variants)
        assert play_form(a) == play_form(b), (players, variants)  # the FAQ store's key
    for players in (2, 4):
        a = model.load_ir(game, players=players)
        b = model.load_ir(plain, players=players)
        assert (plain_code(codegen.Emitter(a).module())
                == plain_code(codegen.Emitter(b).module()))


def kinds_of(path: Path, players: int = 3) -> list[tuple[str, int, dict]]:
    return [(k.name, k.copies, dict(k.attrs)) for k in model.load_ir(path, players=players).kinds]


def test_a_range_with_a_name_like_an_attribute_sets_it(tmp_path: Path) -> None:
    path = lama_with(tmp_path, (LAMA_NUMBERS, '    - each: {rank: {from: 1, to: 6}}\n'
                                              '      name: "{rank}"\n'
                                              '      points: rank\n      copies: 8\n'))
    assert kinds_of(path) == kinds_of(SPEC / "lama.yaml")
    a, b = model.load_ir(path, players=3), model.load_ir("lama", players=3)
    assert plain_code(codegen.Emitter(a).module()) == plain_code(codegen.Emitter(b).module())


def test_attributes_and_copies_are_expressions_over_the_names(tmp_path: Path) -> None:
    """A 6 nimmt!-like rule for points, and copies by the player count."""
    path = lama_with(tmp_path, ("  total: 56\n", ""), (LAMA_NUMBERS, (
        "    - each: {n: {from: 1, to: 104}}\n      name: \"c{n}\"\n      rank: n\n"
        "      points: \"7 if n == 55 else 5 if n % 11 == 0 else 3 if n % 10 == 0 else "
        "2 if n % 5 == 0 else 1\"\n"
        "      copies: \"1 if n <= 10 * player_count + 4 else 0\"\n")))
    kinds = {name: (copies, attrs) for name, copies, attrs in kinds_of(path, players=4)}
    assert [kinds[f"c{n}"][1]["points"] for n in (55, 11, 10, 5, 1, 104)] == [7, 5, 3, 2, 1, 1]
    assert kinds["c44"][0] == 1 and kinds["c45"][0] == 0
    assert list(kinds)[:3] == ["c1", "c2", "c3"] and list(kinds)[103] == "c104"


def test_a_product_varies_the_last_name_fastest(tmp_path: Path) -> None:
    path = lama_with(tmp_path, ("  total: 56\n", ""), (
        "    rank: int      #", "    suit: [hearts, spades]\n    rank: int      #"), (
        LAMA_NUMBERS, "    - each: {suit: [spades, hearts], rank: [2, 3, 4]}\n"
                      "      name: \"{rank}_of_{suit}\"\n      points: \"rank + 10 if suit "
                      "== 'hearts' else rank\"\n      copies: 1\n"))
    kinds = kinds_of(path)
    assert [k[0] for k in kinds[:6]] == ["2_of_spades", "3_of_spades", "4_of_spades",
                                         "2_of_hearts", "3_of_hearts", "4_of_hearts"]
    assert [k[2]["suit"] for k in kinds[:6]] == ["spades"] * 3 + ["hearts"] * 3
    assert [k[2]["points"] for k in kinds[:6]] == [2, 3, 4, 12, 13, 14]


def test_a_range_may_end_at_an_expression(tmp_path: Path) -> None:
    path = lama_with(tmp_path, ("  total: 56\n", ""), (LAMA_NUMBERS, (
        "    - each: {rank: {from: 1, to: \"hand_size\"}}\n      name: \"{rank}\"\n"
        "      copies: 8\n")))
    assert [k[0] for k in kinds_of(path)][:7] == ["1", "2", "3", "4", "5", "6", "llama"]


# ---------------------------------------------------------------------- errors
def line_of(text: str, fragment: str) -> int:
    return text[: text.index(fragment)].count("\n") + 1


ENTRY = "    - each: {rank: {from: 1, to: 6}}\n      name: \"{rank}\"\n      points: rank\n" \
        "      copies: 8\n"


@pytest.mark.parametrize(("name", "old", "new", "fragment", "at"), [
    ("unknown_name", "points: rank", "points: rnak", "unknown name 'rnak'", "points: rnak"),
    ("name_field", 'name: "{rank}"', 'name: "{rnak}"', "is not one of the names of each (rank)",
     'name: "{rnak}"'),
    ("no_field", 'name: "{rank}"', 'name: "card"', "needs a {name} field", 'name: "card"'),
    ("bad_name", 'name: "{rank}"', 'name: "#{rank}"', "gives '#1' for rank = 1",
     'name: "#{rank}"'),
    ("twice", "{from: 1, to: 6}", "[1, 2, 3, 4, 5, 6, 6]", "kind '6' is declared twice",
     'name: "{rank}"'),
    ("too_many", "{from: 1, to: 6}", "{from: 1, to: 100000}", "max_kinds", "rank: {from"),
    ("wrong_type", "points: rank", "points: \"rank > 3\"", "expected a number",
     "points: \"rank"),
    ("copies_negative", "copies: 8\n", "copies: \"4 - rank\"\n",
     "copies of 5 cannot be -1", "copies: \"4 - rank"),
    ("unknown_attribute", "points: rank", "points: rank\n      colour: 1",
     "unknown attribute 'colour'", "colour: 1"),
    ("mixed_values", "{rank: {from: 1, to: 6}}", "{rank: [1, two]}", "names or numbers",
     "{rank: [1, two]}"),
])
def test_a_bad_generated_entry_is_one_positioned_error(tmp_path: Path, name: str, old: str,
                                                      new: str, fragment: str, at: str) -> None:
    entry = ENTRY.replace(old, new, 1)
    assert entry != ENTRY
    path = lama_with(tmp_path, ("  total: 56\n", ""), (LAMA_NUMBERS, entry))
    with pytest.raises(SpecError) as info:
        model.load(path, players=3)
    assert fragment in info.value.message, info.value.message
    text = path.read_text(encoding="utf-8")
    assert info.value.where.line == line_of(text, at), (info.value.where, at)


def test_an_enum_value_that_is_not_one_of_its_names(tmp_path: Path) -> None:
    path = lama_with(tmp_path, ("  total: 56\n", ""), (
        "    rank: int      #", "    suit: [hearts, spades]\n    rank: int      #"), (
        LAMA_NUMBERS, "    - each: {suit: [spades, clubs]}\n      name: \"x_{suit}\"\n"
                      "      copies: 1\n"))
    with pytest.raises(SpecError) as info:
        model.load(path, players=3)
    assert "'clubs' is not one of the attribute suit's names" in info.value.message
    text = path.read_text(encoding="utf-8")
    assert info.value.where.line == line_of(text, "each: {suit: [spades, clubs]}")


def test_too_many_names_is_refused_by_the_schema(tmp_path: Path) -> None:
    names = ", ".join(f"n{i}: [1]" for i in range(5))
    path = lama_with(tmp_path, ("  total: 56\n", ""), (
        LAMA_NUMBERS, f"    - each: {{{names}}}\n      name: \"x{{n0}}\"\n      copies: 1\n"))
    with pytest.raises(SpecError) as info:
        model.load(path, players=3)
    assert "each" in info.value.message
    assert info.value.where.line == line_of(path.read_text(encoding="utf-8"), "- each:")


def test_the_limits_are_stated_in_the_schema() -> None:
    from model import limits

    schema = model.schema._validator().schema
    entry = schema["$defs"]["itemClass"]["properties"]["kinds"]["items"]["oneOf"][1]
    assert entry["properties"]["each"]["maxProperties"] == limits.MAX_EACH_NAMES
    values = entry["properties"]["each"]["additionalProperties"]["oneOf"][0]
    assert values["maxItems"] == limits.MAX_KINDS


@pytest.mark.parametrize(("entry", "fragment"), [
    ('    - each: {rank: {from: 1, to: 6}}\n      name: "{rank}"\n', "'copies' is required"),
    ('    - each: {rank: 5}\n      name: "{rank}"\n      copies: 8\n', "expected array"),
    ('    - each: {rank: {from: 1}}\n      name: "{rank}"\n      copies: 8\n', "'to' is required"),
    ('    - each: {}\n      name: "x{rank}"\n      copies: 8\n', "should be non-empty"),
])
def test_the_schema_reads_a_generated_entry_as_one(tmp_path: Path, entry: str,
                                                   fragment: str) -> None:
    path = lama_with(tmp_path, ("  total: 56\n", ""), (LAMA_NUMBERS, entry))
    with pytest.raises(SpecError) as info:
        model.load(path, players=3)
    assert fragment in info.value.message and "cards/kinds/0" in info.value.message
    assert info.value.where.line == line_of(path.read_text(encoding="utf-8"), "- each:")
