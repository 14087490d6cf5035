"""A spec file is untrusted input (issue 12, the spec side): regression tests.

Each test is one finding of the issue, or one stated limit (docs/spec-language.md,
"Limits"), written as a broken copy of spec/lama.yaml. Nothing in a spec may run as
code; every mistake or excess ends as one `file:line:column: what was expected` error
(exit 2, no traceback) that names the limit where one was passed; a rule that goes
wrong in play (a seat or index out of range, a negative count) is a `ModelError`,
reported by the property suite as `rules_defined` with its replay. Runs that used to
hang or fill memory run in a child process with a time and memory limit.
"""

from __future__ import annotations

import json
import re
import resource
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

import model
from model import ModelError, SpecError, limits
from model.source import read_yaml
from properties.cli import main

ROOT = Path(__file__).resolve().parent.parent
LAMA = (ROOT / "spec" / "lama.yaml").read_text(encoding="utf-8")
SCHEMA = json.loads((ROOT / "spec" / "spec.schema.json").read_text(encoding="utf-8"))


def lama_with(tmp_path: Path, *edits: tuple[str, str], name: str = "broken.yaml") -> Path:
    """A copy of spec/lama.yaml with each (old, new) replaced once."""
    text = LAMA
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def spec_error(path: Path, players: int = 3) -> SpecError:
    with pytest.raises(SpecError) as info:
        model.load(path, players=players)
    return info.value


def _limited() -> None:  # in the child: at most 2 GB of memory
    resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))


def cli_refuses(path: Path, *args: str, fragment: str, timeout: float = 60) -> str:
    """`rulespec check path` in a child process exits 2 with one positioned error line
    holding `fragment`, and no traceback, within `timeout` seconds."""
    cmd = [sys.executable, "-m", "properties.cli", "check", str(path), "--no-z3", "--games",
           "1", "--profile", "none", *args]
    result = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=timeout,
                            preexec_fn=_limited)
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.returncode == 2, result.stderr[-2000:]
    errors = [ln for ln in result.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1, result.stderr[-2000:]
    assert fragment in errors[0], errors[0]
    assert re.match(rf"error: {re.escape(str(path))}(:\d+:\d+)?: ", errors[0]), errors[0]
    return errors[0]


# ------------------------------------------------------- 1. no code from a spec runs
def test_an_attribute_name_holding_code_does_not_run(tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    attr = f'"zz = 0\\nimport os; os.system(\'touch {marker}\')\\nKA_zz2": int'
    path = lama_with(tmp_path, ("    points: int    # penalty points at the end of a round\n",
                                f"    points: int\n    {attr}\n"))
    error = spec_error(path)
    assert not marker.exists()
    assert error.where.line == LAMA[:LAMA.index("    points: int")].count("\n") + 2
    assert "cards/attributes" in error.message and "expected form" in error.message


NAMES = [
    ("zone", "  stock: {order: pile", '  "stock\\nimport os": {order: pile'),
    ("variable", "  starter: {type: player", '  "x = 1\\nimport os": {type: player'),
    ("action", "  play:\n    say: play {card}", '  "play\\nimport os":\n    say: play {card}'),
    ("action parameter", "params: {card: \"hand[active]\"}",
     "params: {\"c\\nimport os\": \"hand[active]\"}"),
    ("ambiguity id", "  - id: next_round_starter", '  - id: "n\\nimport os"'),
    ("variant name", "      ender:\n", '      "ender\\nimport os":\n'),
    ("def", "  in_round:\n", '  "in_round\\nimport os":\n'),
    ("param", "  hand_size: {value: 6", '  "hand_size\\nimport os": {value: 6'),
    ("condition", "{name: hand_emptied,", '{name: "h\\nimport os",'),
]


@pytest.mark.parametrize(("what", "old", "new"), NAMES, ids=[n[0] for n in NAMES])
def test_every_name_is_an_identifier(tmp_path: Path, what: str, old: str, new: str) -> None:
    error = spec_error(lama_with(tmp_path, (old, new)))
    assert error.where.line == LAMA[:LAMA.index(old)].count("\n") + 1, error
    assert "not have the expected form" in error.message or "is not a name" in error.message
    assert "\n" not in str(error)


def test_the_spec_files_path_is_not_pasted_into_the_generated_code(tmp_path: Path,
                                                                  monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / 'x"""\n__import__("os").system("touch PWNED")\n"""'
    folder.mkdir()
    game = model.load(lama_with(folder, name="lama.yaml"), players=3)
    assert not (tmp_path / "PWNED").exists()
    assert "touch" not in game.source and str(tmp_path) not in game.source


def test_an_action_name_does_not_end_a_comment_in_the_generated_code(tmp_path: Path) -> None:
    # the generated check of an action began with a comment `# <name>: <file>:<line>`
    marker = tmp_path / "PWNED"
    name = (f'"quit\\n    pass\\nimport os; os.system(\'touch {marker}\')\\n'
            'def _f(Z, V):\\n  #"')
    spec_error(lama_with(tmp_path, ("  quit:\n", f"  {name}:\n")))
    assert not marker.exists()


def test_generated_names_cannot_collide() -> None:
    """Two (set, attribute) pairs that join to the same text get distinct table names."""
    from model.codegen import global_name

    assert global_name("IA_", "board_a", "b") != global_name("IA_", "board", "a_b")
    with pytest.raises(model.InternalError, match="reached the code generator"):
        global_name("KA_", "x\nimport os")


def test_the_schema_and_the_loader_use_one_identifier_pattern() -> None:
    assert SCHEMA["$defs"]["identifier"]["pattern"] == f"^{limits.IDENTIFIER.pattern}$"
    assert SCHEMA["$defs"]["identifier"]["maxLength"] == limits.MAX_NAME_LENGTH


# ----------------------------------------------------------------- 2. limits
def test_an_alias_bomb_stops_at_the_node_limit(tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 10)]
    path = tmp_path / "bomb.yaml"
    path.write_text(LAMA + "\n".join(lines) + "\n", encoding="utf-8")
    cli_refuses(path, "-p", "3", fragment="max_yaml_nodes")


def test_deep_nesting_stops_at_the_depth_limit(tmp_path: Path) -> None:
    # a little deeper than our limit, far below any limit of the YAML parser's own
    depth = limits.MAX_YAML_DEPTH + 8
    path = tmp_path / "deep.yaml"
    path.write_text(LAMA + "x: " + "[" * depth + "]" * depth + "\n", encoding="utf-8")
    cli_refuses(path, "-p", "3", fragment="max_yaml_depth")


def test_extreme_nesting_is_one_clear_error(tmp_path: Path) -> None:
    # the YAML parser may refuse this before our limit is reached (newer PyYAML versions
    # have a nesting limit of their own): the contract is one positioned line, exit 2
    path = tmp_path / "deep.yaml"
    path.write_text(LAMA + "x: " + "[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    line = cli_refuses(path, "-p", "3", fragment="")
    assert re.match(rf"error: {re.escape(str(path))}:\d+:\d+: ", line), line


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "big.yaml"
    path.write_text(LAMA + "# " + "x" * limits.MAX_FILE_BYTES + "\n", encoding="utf-8")
    cli_refuses(path, "-p", "3", fragment="max_file_bytes")


def test_an_endless_stream_is_refused_at_the_size_limit() -> None:
    code = ("from model.source import read_yaml\nfrom model import SpecError\n"
            "try:\n    read_yaml('/dev/zero')\nexcept SpecError as e:\n    print(e)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=ROOT, timeout=60, preexec_fn=_limited)
    assert "max_file_bytes" in result.stdout, result.stderr[-2000:]


DRAW_WHEN = "when: \"phase == 'play' and can_draw and in_round > 1\""


@pytest.mark.parametrize(("name", "condition", "fragment"), [
    ("long", "in_round > 1 and " * 200 + "True", "max_expr_chars"),
    ("deep_not", "not " * 400 + "True", "max_expr_depth"),
    ("deep_minus", "in_round > " + "-" * 1500 + "1", "max_expr_depth"),
    ("long_sum", "in_round > " + "1 + " * 450 + "1", "max_expr_chain"),
    ("huge_literal", "in_round > 10000000000", "max_int"),
    ("huge_digits", "in_round > " + "9" * 1900, "max_int"),
], ids=lambda x: x if isinstance(x, str) and len(x) < 20 else "")
def test_expressions_are_bounded(tmp_path: Path, name: str, condition: str,
                                 fragment: str) -> None:
    path = lama_with(tmp_path, (DRAW_WHEN, f'when: "{condition}"'))
    cli_refuses(path, "-p", "3", fragment=fragment)


def test_defs_that_double_at_each_level_stop_at_the_size_limit(tmp_path: Path) -> None:
    defs = "".join(f"  d{i}: d{i - 1} + d{i - 1}\n" for i in range(1, 30))
    path = lama_with(tmp_path, ("defs:\n", "defs:\n  d0: in_round\n" + defs),
                     (DRAW_WHEN, 'when: "d29 > 1"'))
    cli_refuses(path, "-p", "3", fragment="max_expr_nodes")


@pytest.mark.parametrize(("name", "edits", "args", "fragment"), [
    ("players_max", [("players: {min: 2, max: 6,", "players: {min: 2, max: 1000000,")],
     (), "max_players"),
    ("players_asked", [], ("-p", "40"), "not 40"),
    ("copies", [("  total: 56\n", ""), ('copies: 8}', "copies: 100000000}")], ("-p", "3"),
     "max_copies"),
    ("copies_computed", [("  total: 56\n", ""),
                         ('copies: 8}', 'copies: "100000000 * player_count"}')], ("-p", "3"),
     "max_copies"),
    ("items", [("  total: 56\n", ""), ('copies: 8}', "copies: 1000}"),
               ('rank: 2, points: 2, copies: 8}', "rank: 2, points: 2, copies: 1000}"),
               ('rank: 3, points: 3, copies: 8}', "rank: 3, points: 3, copies: 1000}"),
               ('rank: 4, points: 4, copies: 8}', "rank: 4, points: 4, copies: 1000}"),
               ('rank: 5, points: 5, copies: 8}', "rank: 5, points: 5, copies: 1000}"),
               ('rank: 6, points: 6, copies: 8}', "rank: 6, points: 6, copies: 1000}"),
               ('rank: 7, points: 10, copies: 8}', "rank: 7, points: 10, copies: 1000}"),
               ('value: 1, copies: 50}', "value: 1, copies: 1000}"),
               ('value: 10, copies: 20}', "value: 10, copies: 1000}"),
               ("  total: 70\n", ""), ("{name: llama,", "{name: llama2, rank: 7, copies: 1000}\n"
                                       "    - {name: llama3, rank: 7, copies: 1000}\n"
                                       "    - {name: llama,")], ("-p", "3"), "max_items"),
    ("repeat", [("    - {do: \"gather(cards, stock)\"",
                 "    - {repeat: 1000000000, do: [\"active = 0\"]}\n    - {do: \"gather(cards, stock)\""
                 )], ("-p", "3"), "max_repeat"),
    ("while", [("    - {do: \"gather(cards, stock)\"",
                "    - {while: \"True\", max: 1000000000, do: [\"active = 0\"]}\n"
                "    - {do: \"gather(cards, stock)\"")], ("-p", "3"), "max_while"),
    ("range", [("params: {card: \"hand[active]\"}", "params: {card: \"hand[active]\", "
                "n: \"range(0, 1000000000)\"}"), ("say: play {card}", "say: play {card} {n}")],
     ("-p", "3"), "max_range"),
    ("work", [("    - {do: \"gather(cards, stock)\"",
               "    - {repeat: 1000, do: [{repeat: 1000, do: [\"active = 0\"]}]}\n"
               "    - {do: \"gather(cards, stock)\"")], ("-p", "3"), "max_work"),
])
def test_sizes_and_loops_are_bounded(tmp_path: Path, name: str, edits: list, args: tuple,
                                     fragment: str) -> None:
    cli_refuses(lama_with(tmp_path, *edits), *args, fragment=fragment)


def test_thousands_of_kinds_stop_at_the_kind_limit(tmp_path: Path) -> None:
    kinds = "".join(f"    - {{name: k{i}, rank: 1, points: 1, copies: 1}}\n" for i in range(5000))
    path = lama_with(tmp_path, ("  total: 56\n", ""),
                     ('    - {name: "1", rank: 1, points: 1, copies: 8}\n', kinds))
    cli_refuses(path, "-p", "3", fragment="max_kinds")


def test_the_schema_states_the_same_limits_as_the_loader() -> None:
    players = SCHEMA["properties"]["players"]["properties"]["max"]
    assert players["maximum"] == limits.MAX_PLAYERS
    index = SCHEMA["$defs"]["indexSet"]["properties"]["size"]
    assert index["maximum"] == limits.MAX_INDEX_SIZE
    effect = {k: alt["properties"][k] for alt in SCHEMA["$defs"]["effect"]["oneOf"]
              for k in ("repeat", "max") if k in alt.get("properties", {})}
    assert effect["repeat"]["oneOf"][0]["maximum"] == limits.MAX_REPEAT
    assert effect["max"]["maximum"] == limits.MAX_WHILE


def test_every_limit_is_documented_with_its_default() -> None:
    doc = (ROOT / "docs" / "spec-language.md").read_text(encoding="utf-8")
    section = doc[doc.index("## Limits"):]
    for name, value in limits.LIMITS.items():
        assert f"`{name}`" in section, name
        assert f"{value:,}" in section or f"{value}" in section, (name, value)


# ------------------------------------------------------------ 3. one error path
@pytest.mark.parametrize(("name", "data", "fragment"), [
    ("not_utf8", LAMA.encode().replace(b"L.L.A.M.A.", b"L.\xff.A", 1), "not UTF-8"),
    ("nul", LAMA.replace("title: L.L.A.M.A.", "title: L.L.A.M.A.\x00", 1).encode(),
     "U+0000"),
    ("tag", LAMA.replace("title: L.L.A.M.A. (LAMA)", "title: !!python/object/apply:os.system "
                         "[echo]", 1).encode(), "YAML tags"),
    ("tag_on_key", LAMA.replace("title: L.L.A.M.A. (LAMA)", "!!python/name:os.system title: x",
                                1).encode(), "YAML tags"),
    ("huge_int", LAMA.replace("copies: 8}", "copies: " + "9" * 5000 + "}", 1).encode(),
     "at most 18 digits"),
    ("big_int", LAMA.replace("hand_size: {value: 6", "hand_size: {value: 100000000000", 1).encode(),
     "max_int"),
    ("float_count", LAMA.replace("copies: 8}", "copies: 8.0}", 1).encode(), "expected integer"),
    ("init", LAMA.replace("starter: {type: player, init: 0", "starter: {type: player, init: 9",
                          1).encode(), "init must be a seat from 0 to"),
    ("negative_count", LAMA.replace("      - move_top(stock, hand[active])",
                                    "      - move_top(stock, hand[active], -1)", 1).encode(),
     "cannot be -1"),
    ("negative_deal", LAMA.replace("deal(stock, hand, hand_size)", "deal(stock, hand, -6)",
                                   1).encode(), "cannot be -6"),
    ("two_documents", (LAMA + "---\na: 1\n").encode(), "one YAML document"),
], ids=lambda x: x if isinstance(x, str) and len(x) < 20 else "")
def test_bad_input_is_one_positioned_error(tmp_path: Path, name: str, data: bytes,
                                           fragment: str) -> None:
    path = tmp_path / f"{name}.yaml"
    path.write_bytes(data)
    result = CliRunner().invoke(main, ["check", str(path), "-p", "3", "--no-z3", "--games",
                                       "1", "--profile", "none"])
    assert result.exit_code == 2, (result.output, result.exception)
    lines = [ln for ln in result.output.splitlines() if ln.startswith("error:")]
    assert len(lines) == 1 and fragment in lines[0], result.output
    assert re.match(rf"error: {re.escape(str(path))}:\d+:\d+: ", lines[0]), lines[0]


@pytest.mark.parametrize(("name", "old", "new", "fragment"), [
    ("constant_index", "not quit[active]", "not quit[5]", "quit[5] is out of range"),
    ("constant_seat", "else: [starter = 0]", "else: [starter = player_count]",
     "starter = 3 is out of range"),
    ("enum_value", "[phase = 'return']", "[phase = 'retrun']", "'retrun' is not one of"),
    ("pay_into_enum", "unpaid[p] += pay(", "phase = pay(", "pay(...) gives a number"),
    ("exchange_pile", "exchange(chips[p], pool)", "exchange(discard, pool)", "needs a bag"),
    ("divide_by_zero", "then: [\"starter = (round_ender + direction) % player_count\"]",
     "then: [\"starter = (round_ender + direction) % (player_count - player_count)\"]",
     "division by zero"),
    ("say_twice", "say: play {card}", "say: play {card} {card}", "once"),
    ("say_brace", "say: play {card}", "say: \"play {card} }\"", "say cannot be read"),
], ids=lambda x: x if isinstance(x, str) and len(x) < 20 else "")
def test_rules_that_cannot_work_are_refused_when_loaded(tmp_path: Path, name: str, old: str,
                                                        new: str, fragment: str) -> None:
    error = spec_error(lama_with(tmp_path, (old, new)))
    assert fragment in error.message and error.where.line, error


# ----------------------------------------------------- 4. seats and indices in play
NEIGHBOUR = (DRAW_WHEN, "when: \"phase == 'play' and can_draw and in_round > 1 and "
                        "not quit[active + 1]\"")


def test_an_index_past_the_last_seat_is_a_model_error_not_the_next_variable(tmp_path) -> None:
    game = model.load(lama_with(tmp_path, NEIGHBOUR), players=3)
    state = game.initial_state(0)
    with pytest.raises(ModelError, match=r"quit\[3\]"):
        while True:  # everyone plays or quits until seat 2 is to act
            actions = state.legal_actions()
            state = state.apply(actions[-1] if state.active_player < 2 else actions[0])


def test_rulespec_check_reports_the_index_as_rules_defined(tmp_path: Path) -> None:
    path = lama_with(tmp_path, NEIGHBOUR)
    result = CliRunner().invoke(main, ["check", str(path), "-p", "3", "--no-z3", "--games", "5",
                                       "--profile", "none", "--replays", str(tmp_path / "r")])
    assert result.exit_code == 1, result.output
    rows = [ln for ln in result.output.splitlines() if " rules_defined " in ln]
    assert rows and all("FAILS" in ln for ln in rows), result.output
    assert any("quit[3] does not exist" in ln for ln in rows), result.output
    assert list((tmp_path / "r").glob("*rules_defined*.yaml"))


@pytest.mark.parametrize("assignment", ["active = round + 2", "active = last_actor - 3",
                                        "active += 5"])
def test_a_seat_outside_the_table_is_a_model_error(tmp_path: Path, assignment: str) -> None:
    game = model.load(lama_with(tmp_path, ("      - {do: \"active = next_in_round(active)\", "
                                           "cite: [lama.en#L17, lama.nl#L14]}",
                                           f"      - {assignment}")), players=3)
    state = game.initial_state(0)
    draw = next(a for a in state.legal_actions() if a.name == "draw")
    with pytest.raises(ModelError, match="not a seat"):
        state.apply(draw)


def test_a_negative_count_in_play_is_a_model_error(tmp_path: Path) -> None:
    game = model.load(lama_with(tmp_path, ("      - move_top(stock, hand[active])",
                                           "      - move_top(stock, hand[active], 1 - round)")),
                      players=3)
    state = game.initial_state(0)
    draw = next(a for a in state.legal_actions() if a.name == "draw")
    state.apply(draw)  # round 1: a count of 0
    with pytest.raises(ModelError, match="cannot be negative"):
        game.state_from_dict({**state.to_dict(), "round": 2}).apply(draw)


def test_a_division_by_zero_in_play_is_a_model_error(tmp_path: Path) -> None:
    game = model.load(lama_with(tmp_path, ("      - move_top(stock, hand[active])",
                                           "      - move_top(stock, hand[active], 1 // (round - 1))"
                                           )), players=3)
    state = game.initial_state(0)
    with pytest.raises(ModelError, match="division by zero"):
        state.apply(next(a for a in state.legal_actions() if a.name == "draw"))


def test_indices_provably_in_range_cost_nothing() -> None:
    """The checks sit only where an index is not known to be in range: none in LAMA."""
    source = model.load("lama", players=4).source
    assert "r.at(" not in source and "r.seat(" not in source
    variant = model.load("lama", players=4, variants={"next_round_starter": "left_of_ender"})
    assert "r.seat(" in variant.source  # starter = (round_ender + direction) % player_count


# ------------------------------------------------------------- 5. stands alone
def test_citations_are_checked_against_the_rulebooks_in_the_repository(tmp_path: Path) -> None:
    error = spec_error(lama_with(tmp_path, ("cite: [lama.en#L17, lama.en#L23,",
                                            "cite: [lama.en#L170, lama.en#L23,")))
    assert "lama.en has lines 1 to" in error.message


def test_a_source_without_its_rulebook_is_an_error(tmp_path: Path) -> None:
    error = spec_error(lama_with(tmp_path, ("sources: [lama.en, lama.nl]",
                                            "sources: [lama.en, lama.nl, lama.de]")))
    assert "no rulebook lama.de.txt" in error.message
    assert error.where.line == LAMA[:LAMA.index("\nsources:")].count("\n") + 2


def test_rulespec_rulebooks_overrides_the_folder(tmp_path: Path, monkeypatch) -> None:
    books = tmp_path / "books"
    books.mkdir()
    for name in ("lama.en", "lama.nl"):
        (books / f"{name}.txt").write_text("one line\n", encoding="utf-8")
    monkeypatch.setenv("RULESPEC_RULEBOOKS", str(books))
    error = spec_error(lama_with(tmp_path, ("game: lama", "game: lama")))
    assert "has lines 1 to 1" in error.message


def test_a_spec_finds_the_rulebooks_beside_it(tmp_path: Path) -> None:
    (tmp_path / "rulebooks").mkdir()
    (tmp_path / "rulebooks" / "lama.de.txt").write_text("eins\nzwei\n", encoding="utf-8")
    path = lama_with(tmp_path, ("sources: [lama.en, lama.nl]", "sources: [lama.en, lama.nl, "
                                "lama.de]"), ("players: {min: 2, max: 6, cite: [lama.en#L2, ",
                                              "players: {min: 2, max: 6, cite: [lama.de#L2, "))
    assert model.load(path, players=3).ir.sources == ("lama.en", "lama.nl", "lama.de")


def test_specs_load_by_name_from_any_folder(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RULESPEC_RULEBOOKS", raising=False)
    assert model.load("kadabra", players=3).id == "kadabra"


def test_the_specs_schema_and_rulebooks_are_package_data() -> None:
    """pyproject installs spec/ as model/spec/ with every spec, the schema and the
    rulebooks (a plain `pip install .` then finds them; model.schema.SPEC_DIR)."""
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    setup = tool["setuptools"]
    assert setup["package-dir"]["model.spec"] == "spec"
    assert {"model.spec", "model.spec.rulebooks"} <= set(setup["packages"])
    data = setup["package-data"]
    shipped = {p for pattern in data["model.spec"] for p in (ROOT / "spec").glob(pattern)}
    shipped |= {p for pattern in data["model.spec.rulebooks"]
                for p in (ROOT / "spec" / "rulebooks").glob(pattern)}
    wanted = {*(ROOT / "spec").glob("*.yaml"), ROOT / "spec" / "spec.schema.json",
              *(ROOT / "spec" / "rulebooks").iterdir(),
              *(ROOT / "spec" / "witnesses").glob("*.yaml")}  # they travel with the specs
    assert wanted == shipped
    assert {p.stem for p in (ROOT / "spec" / "rulebooks").glob("*.txt")} >= {
        s for spec in (ROOT / "spec").glob("*.yaml") for s in read_yaml(spec).data["sources"]}
