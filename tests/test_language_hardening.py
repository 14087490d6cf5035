"""Issue 22, the language side: regression tests, one block per finding.

Each test writes a broken (or surprising) copy of spec/lama.yaml, or a situation file,
and checks that the mistake ends as one `file:line:column: what was expected` error
(a `SpecError`, exit 2) instead of being accepted and misread.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import model
from model import SpecError
from model.source import read_yaml

ROOT = Path(__file__).resolve().parent.parent
LAMA = (ROOT / "spec" / "lama.yaml").read_text(encoding="utf-8")


def lama_with(tmp_path: Path, old: str, new: str, name: str = "broken.yaml") -> Path:
    """A copy of spec/lama.yaml with `old` replaced once by `new`."""
    assert old in LAMA, old
    path = tmp_path / name
    path.write_text(LAMA.replace(old, new, 1), encoding="utf-8")
    return path


def line_of(text: str, fragment: str) -> int:
    """The 1-based line of the first `fragment` in `text`."""
    return text[: text.index(fragment)].count("\n") + 1


def spec_error(path: Path, players: int = 3) -> SpecError:
    with pytest.raises(SpecError) as info:
        model.load(path, players=players)
    return info.value


# ------------------------------------------------- 1. move_all(bag, ..., keep=n)
QUIT = "      - move_all(hand[active], out[active])"


def test_keep_on_a_bag_is_refused_where_it_is_written(tmp_path: Path) -> None:
    """A bag has no top, so `keep=` cannot say what stays; both back ends ignored it."""
    new = "      - move_all(hand[active], out[active], keep=2)"
    error = spec_error(lama_with(tmp_path, QUIT, new))
    assert error.where.line == line_of(LAMA, QUIT)
    assert error.where.column == new.index("keep=") + 1
    assert "keep" in error.message and "hand" in error.message and "bag" in error.message


def test_keep_on_a_pile_is_still_allowed() -> None:
    assert "keep=1" in LAMA and model.load("lama", players=3) is not None


# ------------------------------------ 2. YAML 1.1 numbers: 010 is 8, 1:30 is 90
SURPRISES = ["010", "-07", "0x10", "0o10", "0b10", "1_000", "1:30", "1_0.5", "1:30.5"]
HAND_SIZE = "hand_size: {value: 6"


@pytest.mark.parametrize("written", SURPRISES)
def test_a_yaml_11_number_form_is_refused_in_a_spec(tmp_path: Path, written: str) -> None:
    error = spec_error(lama_with(tmp_path, HAND_SIZE, f"hand_size: {{value: {written}"))
    assert error.where.line == line_of(LAMA, HAND_SIZE)
    assert error.where.column == LAMA.splitlines()[error.where.line - 1].index("6") + 1
    assert repr(written) in error.message and "YAML 1.1" in error.message


@pytest.mark.parametrize("written", ["010", "0x1f", "1:30"])
def test_a_yaml_11_number_form_is_refused_in_a_situation_and_a_replay(tmp_path: Path,
                                                                      written: str) -> None:
    from model.situation import read_document
    from properties.concrete.trace import read_replay

    situation = tmp_path / "situation.yaml"
    situation.write_text(f"game: lama\nplayers: 3\nactive: {written}\n", encoding="utf-8")
    with pytest.raises(SpecError) as info:
        read_document(situation)
    assert (info.value.where.line, info.value.where.column) == (3, 9)
    replay = tmp_path / "replay.yaml"
    replay.write_text(f"spec: lama\nplayers: 3\nseed: {written}\nactions: []\n",
                      encoding="utf-8")
    with pytest.raises(SpecError) as info:
        read_replay(replay)
    assert (info.value.where.line, info.value.where.column) == (3, 7)


@pytest.mark.parametrize("written", ["010", "1:30"])
def test_a_yaml_11_number_form_is_refused_as_a_key(tmp_path: Path, written: str) -> None:
    from model.source import read_yaml

    path = tmp_path / "keys.yaml"
    path.write_text(f"a:\n  {written}: 1\n", encoding="utf-8")
    with pytest.raises(SpecError) as info:
        read_yaml(path)
    assert (info.value.where.line, info.value.where.column) == (2, 3)


@pytest.mark.parametrize("written", ["0", "-0", "10", "+3", "-12", "0.5", "'010'", '"1:30"'])
def test_plain_numbers_and_quoted_text_are_still_read(tmp_path: Path, written: str) -> None:
    from model.source import read_yaml

    path = tmp_path / "ok.yaml"
    path.write_text(f"a: {written}\n", encoding="utf-8")
    value = read_yaml(path).data["a"]
    assert value == (written.strip("'\"") if written[0] in "'\"" else
                     (float(written) if "." in written else int(written)))


# ------------------------------------- 3. a long sum is not deep; ** is an operator
DRAW_WHEN = "when: \"phase == 'play' and can_draw and in_round > 1\""


def draw_when(tmp_path: Path, condition: str) -> Path:
    return lama_with(tmp_path, DRAW_WHEN, f'when: "{condition}"')


@pytest.mark.parametrize("op", ["+", "-", "*"])
def test_a_flat_chain_of_51_terms_is_not_nesting(tmp_path: Path, op: str) -> None:
    terms = f" {op} ".join(["in_round"] * 51)
    game = model.load(draw_when(tmp_path, f"{terms} > 1"), players=3)
    assert game.initial_state(0).legal_actions()


def test_a_chain_inside_deep_nesting_still_loads(tmp_path: Path) -> None:
    from model.limits import MAX_EXPR_CHAIN, MAX_EXPR_DEPTH

    chain = "+".join(["round"] * (MAX_EXPR_CHAIN + 1))  # the most operations allowed
    nested = "-(" * (MAX_EXPR_DEPTH - 6) + chain + ")" * (MAX_EXPR_DEPTH - 6)
    assert model.load(draw_when(tmp_path, f"{nested} > 1"), players=3).source


def test_a_chain_over_its_own_limit_names_it(tmp_path: Path) -> None:
    from model.limits import MAX_EXPR_CHAIN

    terms = "+".join(["round"] * (MAX_EXPR_CHAIN + 2))
    error = spec_error(draw_when(tmp_path, f"{terms} > 1"))
    assert "max_expr_chain" in error.message and error.where.line == line_of(LAMA, DRAW_WHEN)


def test_real_nesting_is_still_bounded(tmp_path: Path) -> None:
    nested = "1 + (" * 60 + "in_round" + ")" * 60
    error = spec_error(draw_when(tmp_path, f"{nested} > 1"))
    assert "max_expr_depth" in error.message


@pytest.mark.parametrize(("written", "condition"), [
    ("**", "in_round ** 2 > 1"), ("/", "in_round / 2 > 1"), ("<<", "in_round << 1 > 1"),
    ("&", "in_round & 1 > 0"), ("~", "~in_round > 1"), ("+", "+in_round > 1"),
])
def test_an_operator_outside_the_language_is_named_as_written(tmp_path: Path, written: str,
                                                               condition: str) -> None:
    error = spec_error(draw_when(tmp_path, condition))
    assert f"operator {written} " in error.message, error.message
    assert "BinOp" not in error.message and "UnaryOp" not in error.message
    assert "+, -, *, //, %" in error.message
    line = LAMA.splitlines()[line_of(LAMA, DRAW_WHEN) - 1]
    assert error.where.column == line.index('"') + 2  # the operation, from its first operand


# --------------------------------------- 4. an unknown key is blamed, not its parent
UNKNOWN = "zz_unknown"
#: Mappings whose keys name zones and variables compared when a clarification's example is
#: played (properties/concrete/clarify.py reports a name there that the game lacks).
PLAYED_LATER = ("expect",)


def _mappings(data: object) -> list[tuple]:
    """The path of every mapping in `data`, in document order."""
    out, stack = [], [((), data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            out.append(path)
            stack += [((*path, k), v) for k, v in reversed(value.items())]
        elif isinstance(value, list):
            stack += [((*path, i), v) for i, v in reversed(list(enumerate(value)))]
    return [p for p in out if not any(
        k in PLAYED_LATER and "example" in p[:i] for i, k in enumerate(p))]


def _with_unknown_key(data: dict, path: tuple) -> tuple[str, int, int]:
    """The spec's YAML with `zz_unknown: 1` added to the mapping at `path`; the line and
    column of that key."""
    import copy

    import yaml

    data = copy.deepcopy(data)
    mapping = data
    for k in path:
        mapping = mapping[k]
    mapping[UNKNOWN] = 1
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    text = yaml.dump(data, Dumper=dumper, sort_keys=False, width=10**6, allow_unicode=True)
    at = text.index(f"{UNKNOWN}:")
    return text, text.count("\n", 0, at) + 1, at - text.rfind("\n", 0, at)


LAMA_DATA = read_yaml(ROOT / "spec" / "lama.yaml").data
SECTIONS = ["", *sorted({p[0] for p in _mappings(LAMA_DATA) if p})]


@pytest.mark.parametrize("section", SECTIONS)
def test_an_unknown_key_anywhere_is_blamed_at_its_own_line_and_column(tmp_path: Path,
                                                                      section: str) -> None:
    """Every mapping of spec/lama.yaml (of one top-level section, or the top level itself)
    gets one unknown key in turn. Where keys are names (params, zones, ...) the key is a
    new name, and the error may be about its value, on the key's line; anywhere else the
    error names the key and points at it."""
    paths = [p for p in _mappings(LAMA_DATA) if (p[:1] == (section,) if section else not p)]
    assert paths
    wrong = []
    for path in paths:
        text, line, column = _with_unknown_key(LAMA_DATA, path)
        spec = tmp_path / "unknown.yaml"
        spec.write_text(text, encoding="utf-8")
        try:  # a new name where names are keys (a param, say) is no mistake
            model.load_ir(spec, players=3)
        except SpecError as exc:
            value_column = column + len(UNKNOWN) + 2
            at = (exc.where.line, exc.where.column)
            blames_the_key = re.search(r"\bunknown\b", exc.message) is not None
            if UNKNOWN not in exc.message or at not in ((line, column), (line, value_column)) or (
                    blames_the_key and at != (line, column)):
                wrong.append(f"{'/'.join(map(str, path))}: {exc} (the key is at {line}:{column})")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize(("text", "line", "column"), [
    ("game: lama\nplayers: 3\nzz_unknown: 1\n", 3, 1),
    ("game: lama\nplayers: 3\nzones:\n  stock: rest\n  zz_unknown: []\n", 5, 3),
    ("game: lama\nplayers: 3\nvars:\n  phase: play\n  zz_unknown: 1\n", 5, 3),
])
def test_an_unknown_key_of_a_situation_is_blamed_at_its_own_place(tmp_path: Path, text: str,
                                                                 line: int, column: int) -> None:
    from model.situation import read_document

    path = tmp_path / "situation.yaml"
    path.write_text(text, encoding="utf-8")
    game = model.load("lama", players=3)
    with pytest.raises(SpecError) as info:
        game.state_from_document(read_document(path))
    assert (info.value.where.line, info.value.where.column) == (line, column), info.value
    assert UNKNOWN in info.value.message


# ------------------------------------------- 5. a bug in rulespec is not a bad spec
def _broken_emitter(monkeypatch, how: str = "syntax") -> None:
    """Make the code generator emit Python that does not compile (a bug in the emitter),
    or fail with an exception nobody expected."""
    from model import codegen

    def raises(self) -> str:
        return {}["no such key"]

    monkeypatch.setattr(codegen.Emitter, "module",
                        raises if how == "raises" else lambda self: "def broken(:\n")


def test_a_code_generator_bug_is_an_internal_error_not_a_spec_error(tmp_path: Path,
                                                                    monkeypatch) -> None:
    from model.errors import InternalError

    _broken_emitter(monkeypatch)
    with pytest.raises(InternalError) as info:
        model.load(lama_with(tmp_path, "title: L.L.A.M.A. (LAMA)", "title: bug"), players=3)
    assert not isinstance(info.value, SpecError)


@pytest.mark.parametrize(("how", "debug"), [("syntax", False), ("raises", False),
                                          ("raises", True)])
def test_an_unexpected_exception_in_a_command_exits_4_as_a_bug(tmp_path: Path, monkeypatch,
                                                               how: str, debug: bool) -> None:
    from click.testing import CliRunner

    from properties.cli import main

    _broken_emitter(monkeypatch, how)
    if debug:
        monkeypatch.setenv("RULESPEC_DEBUG", "1")
    else:
        monkeypatch.delenv("RULESPEC_DEBUG", raising=False)
    spec = lama_with(tmp_path, "title: L.L.A.M.A. (LAMA)", f"title: bug {how}")
    args = ["play", str(spec), "-p", "3", "--seed", "1"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 4, (result.output, result.exception)
    errors = [ln for ln in result.output.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1, result.output
    assert errors[0].startswith("error: this is a bug in rulespec: ")
    assert ("KeyError: 'no such key'" if how == "raises" else "SyntaxError") in errors[0]
    assert errors[0].endswith("please report it with the spec and the command: rulespec "
                              + " ".join(args))
    assert ("Traceback" in result.output) is debug


def test_a_spec_mistake_still_exits_2(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from properties.cli import main

    spec = lama_with(tmp_path, "hand_size: {value: 6", "hand_size: {value: 010")
    result = CliRunner().invoke(main, ["play", str(spec), "-p", "3"])
    assert result.exit_code == 2 and "bug in rulespec" not in result.output, result.output


def test_an_index_that_runs_past_the_last_seat_is_the_specs_mistake(tmp_path: Path) -> None:
    """chips[p + 1] is a constant only once the players are counted: for the last seat it
    runs past the end. That is the spec's mistake (exit 2, the file and the index named),
    not a bug in rulespec (exit 4), as a rule designer's index slip once was."""
    from click.testing import CliRunner

    from properties.cli import main

    spec = lama_with(tmp_path, "worth(chips[p], value)", "worth(chips[p + 1], value)")
    err = spec_error(spec, players=3)
    assert "chips[3] with 3 players, out of range (the index must be 0 to 2)" in str(err)
    result = CliRunner().invoke(main, ["play", str(spec), "-p", "3"])
    assert result.exit_code == 2 and "bug in rulespec" not in result.output, result.output
    assert str(spec) in result.output


# ----------------------------- 6. spec text is text: in Markdown and on a terminal
HOSTILE = ("<img src=x onerror=alert(1)> [click](javascript:alert(1)) ![i](x) *bold* "
           "a | b ``` `` ` &amp;\n# a heading\n    code\n1. item\n> quote\n[ref]: javascript:x")


def _unescaped(text: str, char: str) -> int:
    """How many `char` in Markdown `text` are not escaped with a backslash."""
    return len(re.findall(rf"(?<!\\)(?:\\\\)*{re.escape(char)}", text))


def _prose(line: str) -> str:
    """A Markdown line without its code spans (a run of n backticks to the next run of
    exactly n), which show their text as it is; an escaped backtick is text."""
    out, i = [], 0
    while i < len(line):
        if line[i] == "\\":
            out.append(line[i:i + 2])
            i += 2
            continue
        if line[i] == "`":
            n = len(re.match("`+", line[i:]).group())
            close = re.search(rf"(?<!`)`{{{n}}}(?!`)", line[i + n:])
            assert close is not None, f"a code span is not closed: {line}"
            i += n + close.end()
            out.append("CODE")
            continue
        out.append(line[i])
        i += 1
    return "".join(out)


def _shows_no_markup(md: str) -> None:
    """No HTML, link or image outside code, and no hostile line starts a block."""
    for line in md.splitlines():
        prose = _prose(line)
        assert _unescaped(prose, "<") == 0, line
        assert not re.search(r"(?<!\\)\]\(", prose), line
        # the lines of HOSTILE after its first start no block: heading, code, list, quote,
        # link reference definition
        assert not re.match(r" *(# a heading|1\. item|> quote|\[ref\]:)", line), line
        assert not line.startswith("    code"), line


def test_markdown_text_shows_exactly_the_text() -> None:
    from properties.concrete.text_safety import markdown_text

    md = markdown_text(HOSTILE, starts_line=True)
    _shows_no_markup(md)
    assert "&amp;amp;" in md and "\\*bold\\*" in md and "\\|" in md
    assert md.count("\n") == HOSTILE.count("\n")  # its lines are kept


def test_code_span_fences_are_longer_than_any_backtick_run() -> None:
    from properties.concrete.text_safety import code_span

    assert code_span("owe") == "`owe`"
    assert code_span("a ``` b") == "````a ``` b````"
    assert code_span("`x`") == "`` `x` ``"
    assert code_span("a\n# b") == "`a # b`"  # one line: no block can start inside
    assert code_span("a|b", cell=True) == "`a\\|b`"


def test_a_markdown_cell_stays_one_cell() -> None:
    from properties.concrete.text_safety import markdown_cell

    cell = markdown_cell(HOSTILE)
    assert "\n" not in cell and _unescaped(cell, "|") == 0
    _shows_no_markup(cell)


def _hostile_lama(tmp_path: Path) -> Path:
    """spec/lama.yaml with hostile text in its title, a question and a reading (in a
    spec/ folder beside tests/, for the situations its clarifications name)."""
    text = LAMA.replace("question: Who starts the second and later rounds?",
                        f"question: {json_quoted(HOSTILE)}", 1)
    text = text.replace("reading: The player who ended the round (took its last action) "
                        "starts the next, as lama.nl says.", "reading: \"a ``` b ` c\"", 1)
    text = text.replace("title: L.L.A.M.A. (LAMA)", "title: \"# <b>T</b> [x](javascript:y)\"", 1)
    (tmp_path / "spec").mkdir()
    (tmp_path / "tests").symlink_to(ROOT / "tests")
    path = tmp_path / "spec" / "lama.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def json_quoted(text: str) -> str:
    import json

    return json.dumps(text)


def test_the_faq_shows_spec_text_as_text(tmp_path: Path) -> None:
    from properties.faq.entries import build
    from properties.faq.markdown import render

    md = render(build(_hostile_lama(tmp_path), store=ROOT / "docs" / "faq" / "partings",
                      stored_only=True))
    _shows_no_markup(md)
    assert md.startswith("# # &lt;b&gt;T&lt;/b&gt; [x\\](javascript:y): clarified rules\n")
    assert "- `ender` **(ruling)**: a \\`\\`\\` b \\` c" in md  # unpaired: escaped


def test_diff_markdown_shows_spec_text_as_text() -> None:
    from properties.compare.diff_report import Report, Side, markdown
    from properties.compare.rules import Change, Renames, RulesDiff

    change = Change("actions", "play: condition", "changed", old=HOSTILE, new="x `` y | z",
                    note=HOSTILE, cite=("lama.en#L1",))
    report = Report(old=Side("a`b", "a.yaml"), new=Side("<b>new</b>", "b.yaml"), players=(3,),
                    rules=RulesDiff((change,), (HOSTILE,), Renames()), partings=(),
                    statistics_note=HOSTILE)
    md = markdown(report)
    _shows_no_markup(md)
    rows = [ln for ln in md.splitlines() if ln.startswith("| actions")]
    assert len(rows) == 1 and _unescaped(rows[0], "|") == 7, rows  # six cells


def test_stats_markdown_shows_spec_text_as_text() -> None:
    from properties.compare.report import statistics_markdown
    from properties.compare.stats import Statistics

    s = Statistics(label="x`` | y", title=HOSTILE, seed=0, precision=None, budget=None,
                   stopped_by="games", seconds=1.0, jobs=1, max_actions=10, cells=())
    md = statistics_markdown(s)
    _shows_no_markup(md)
    assert md.splitlines()[0].startswith("### Play statistics of &lt;img")


@pytest.mark.parametrize(("old", "new"), [
    ("title: L.L.A.M.A. (LAMA)", 'title: "LAMA\\e]0;owned\\a"'),
    ("say: play {card}", 'say: "play {card}\\r"'),
    ("say: play {card}", 'say: "play {card}\\x9b2J"'),
])
def test_a_control_character_in_spec_text_is_refused_where_written(tmp_path: Path, old: str,
                                                                   new: str) -> None:
    error = spec_error(lama_with(tmp_path, old, new))
    assert error.where.line == line_of(LAMA, old) and "control character" in error.message
    assert error.where.column == LAMA.splitlines()[error.where.line - 1].index(old[:3]) + len(
        new.split(":")[0]) + 3


def test_a_control_character_in_a_situation_or_replay_is_refused(tmp_path: Path) -> None:
    from model.situation import read_document
    from properties.concrete.trace import read_replay

    situation = tmp_path / "s.yaml"
    situation.write_text('game: lama\nnote: "\\e]2;x\\a"\n', encoding="utf-8")
    with pytest.raises(SpecError, match="control character U\\+001B") as info:
        read_document(situation)
    assert (info.value.where.line, info.value.where.column) == (2, 7)
    replay = tmp_path / "r.json"
    replay.write_text('{"spec": "lama", "players": 3, "seed": 1, "actions": [],\n'
                      ' "note": "a\\u000dB"}\n', encoding="utf-8")
    with pytest.raises(SpecError, match="U\\+000D") as info:
        read_replay(replay)
    assert info.value.where.line == 2


def test_control_characters_never_reach_the_terminal(monkeypatch) -> None:
    """The second line: whatever a command prints shows C0 and C1 controls as \\xNN."""
    from click.testing import CliRunner

    from properties.cli import main
    from properties.concrete import trace

    monkeypatch.setattr(trace, "describe", lambda *_args, **_kw: "title\x1b]0;owned\x07 here\rX\x9b")
    result = CliRunner().invoke(main, ["play", "lama", "-p", "3", "--max-actions", "1"])
    assert result.exit_code == 0, result.output
    assert "title\\x1b]0;owned\\x07 here\\x0dX\\x9b" in result.output
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f]", result.output)
