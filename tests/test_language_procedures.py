"""Procedures: named effect blocks with parameters, expanded where an effect calls them.

The shipped specs call procedures where they wrote a block out twice (Lambada's penalty
draw, Kadabra's end of a turn and magic-token return, SLAMBO!'s count of a play and shame
stake). A copy of each spec with every call written out by hand (`written_out`, a text
substitution independent of the loader) must compile to the same game: the same
generated code, positions aside, the same IR as it plays, and the same rules key of the
FAQ store. The rest are the errors, each one positioned.
"""

from __future__ import annotations

import ast
import copy
import re
import time
from pathlib import Path

import pytest
import yaml

import model
from model import SpecError, ir, loader
from model.source import read_yaml
from properties.checks.cache import fingerprint
from properties.concrete.coverage import clauses
from properties.faq.partings import play_form

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "spec"
LAMA = (SPEC / "lama.yaml").read_text(encoding="utf-8")
DRAW = """      - move_top(stock, hand[active])
      - {do: "active = next_in_round(active)", cite: [lama.en#L17, lama.nl#L14]}
"""
CALLING = ["lambada", "kadabra", "slambo"]


# ----------------------------------------------------------- written out by hand
def _inline(data: dict) -> dict:
    """`data` (a spec as read from YAML) with every procedure call replaced by the
    procedure's effects, each parameter (as a word) replaced by the argument's text."""
    procs = {}
    for key, value in data.get("procedures", {}).items():
        m = re.fullmatch(r"\s*(\w+)\s*(?:\(([^)]*)\))?\s*", key)
        params = [q.strip() for q in (m.group(2) or "").split(",") if q.strip()]
        body = value["do"] if isinstance(value, dict) else value
        cite = value.get("cite") if isinstance(value, dict) else None
        procs[m.group(1)] = (params, body, cite)

    def sub(node, mapping: dict[str, str]):
        if isinstance(node, str):
            for k, v in mapping.items():
                node = re.sub(rf"(?<![\w.']){k}\b", v, node)
            return node
        if isinstance(node, list):
            return [sub(x, mapping) for x in node]
        if isinstance(node, dict):
            return {k: v if k in ("cite", "note") else sub(v, mapping) for k, v in node.items()}
        return node

    def effects(items: list) -> list:
        out = []
        for item in items:
            text = item if isinstance(item, str) else item.get("do")
            if isinstance(text, str):
                stmt = ast.parse(text.strip()).body[0]
                call = stmt.value if isinstance(stmt, ast.Expr) else None
                if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                        and call.func.id in procs):
                    params, body, pcite = procs[call.func.id]
                    args = [ast.get_source_segment(text.strip(), a) for a in call.args]
                    ccite = item.get("cite") if isinstance(item, dict) else None
                    for s in effects(sub(copy.deepcopy(body), {
                            p: f"({a})" for p, a in zip(params, args, strict=True)})):
                        if (ccite or pcite) and not (isinstance(s, dict) and s.get("cite")):
                            s = {"do": s} if isinstance(s, str) else dict(s)
                            s["cite"] = ccite or pcite
                        out.append(s)
                    continue
            if isinstance(item, dict):
                item = {k: effects(v) if k in ("then", "else", "do") and isinstance(v, list)
                        else v for k, v in item.items()}
            out.append(item)
        return out

    data = copy.deepcopy(data)
    data.pop("procedures", None)
    data["setup"] = effects(data.get("setup", []))
    for k in ("start", "scoring"):
        data["round"][k] = effects(data["round"].get(k, []))
    for a in data["actions"].values():
        a["effects"] = effects(a["effects"])
    return data


def written_out(game: str, folder: Path) -> Path:
    data = read_yaml(SPEC / f"{game}.yaml").data
    assert "procedures" in data, game
    path = folder / f"{game}.yaml"
    path.write_text(yaml.safe_dump(_inline(data), sort_keys=False, width=1000),
                    encoding="utf-8")
    assert "procedures" not in path.read_text(encoding="utf-8")
    return path


def plain_code(source: str) -> str:
    """Generated code without the spec positions it carries."""
    source = re.sub(r"  # \d+:\d+$", "", source, flags=re.M)
    source = re.sub(r"r\.overrun\(\d+,", "r.overrun(N,", source)
    return re.sub(r"spec line \d+", "spec line N", source)


def configurations(game: str) -> list[tuple[int, dict[str, str]]]:
    """Every player count with the default readings, and every other reading at one."""
    doc = read_yaml(SPEC / f"{game}.yaml").data
    counts = range(doc["players"]["min"], doc["players"]["max"] + 1)
    out = [(n, {}) for n in counts]
    for a in doc.get("ambiguities", []):
        out += [(3, {a["id"]: v}) for v in a["variants"] if v != a["default"]]
    return out


@pytest.mark.parametrize("game", CALLING)
def test_a_spec_calling_procedures_compiles_to_the_game_written_out(tmp_path: Path,
                                                                    game: str) -> None:
    copy_ = written_out(game, tmp_path)
    for players, variants in configurations(game):
        called = model.load_ir(game, players=players, variants=variants)
        plain = model.load_ir(copy_, players=players, variants=variants)
        assert fingerprint(called).play == fingerprint(plain).play, (players, variants)
        assert play_form(called) == play_form(plain), (players, variants)  # the FAQ's key
        assert (plain_code(model.codegen.Emitter(called).module())
                == plain_code(model.codegen.Emitter(plain).module())), (players, variants)


def test_the_penalty_draw_plays_as_written_out(tmp_path: Path) -> None:
    import random

    a = model.load("lambada", players=4)
    b = model.load(written_out("lambada", tmp_path), players=4)
    for seed in range(6):
        rnd = random.Random(seed)
        x, y = a.initial_state(seed), b.initial_state(seed)
        for _ in range(300):
            assert x.to_dict() == y.to_dict()
            acts = [str(t) for t in x.legal_actions()]
            assert acts == [str(t) for t in y.legal_actions()]
            if not acts:
                break
            pick = rnd.choice(acts)
            x, y = x.apply(a.parse_action(pick)), y.apply(b.parse_action(pick))


def test_the_specs_call_their_procedures() -> None:
    for game in CALLING:
        assert read_yaml(SPEC / f"{game}.yaml").data["procedures"], game
    doc = read_yaml(SPEC / "lambada.yaml").data
    calls = [e for a in doc["actions"].values() for e in a["effects"]
             if isinstance(e, dict) and e.get("do") == "draw_owed(active)"]
    assert len(calls) == 2  # a play and a pass: the loop is written once


def test_a_statement_without_a_citation_takes_the_calls() -> None:
    g = model.load_ir("lambada", players=3)
    pass_ = next(a for a in g.actions if a.name == "pass")
    loop = next(s for s in pass_.effects if isinstance(s, ir.While))
    assert loop.cite == ("lambada.en#L40", "lambada.en#L43")  # the call's
    play = next(a for a in g.actions if a.name == "play")
    assert next(s for s in play.effects if isinstance(s, ir.While)).cite[0] == "lambada.en#L24"
    refill = [s for s in ir_statements(loop.body) if isinstance(s, ir.For)]
    assert refill and refill[0].cite == ("lambada.en#L43",)  # inside: the procedure's


def ir_statements(body):
    for s in body:
        yield s
        for inner in (getattr(s, "then", ()), getattr(s, "orelse", ()), getattr(s, "body", ())):
            yield from ir_statements(inner)


def test_coverage_counts_a_procedures_statement_once() -> None:
    g = model.load_ir("lambada", players=3)
    table = clauses(g)
    shared = [c for c in table.values() if c.section == "action play; action pass"]
    assert shared, sorted({c.section for c in table.values()})
    # the loop is reached from either call, so nothing encloses it; inside, its own parts
    loop = next(s for s in g.actions[0].effects if isinstance(s, ir.While))
    assert table[f"{loop.where.line}:{loop.where.column}"].parent is None
    assert all(c.parent is None or table[c.parent].section == c.section for c in shared)


# ------------------------------------------------------------------- semantics
def lama_with(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    text = LAMA
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / "lama.yaml"
    path.write_text(text, encoding="utf-8")
    return path


PROCS = "\nround:\n"


def with_procedures(tmp_path: Path, procedures: str, *edits: tuple[str, str]) -> Path:
    return lama_with(tmp_path, (PROCS, "\nprocedures:\n" + procedures + PROCS), *edits)


def test_an_argument_may_be_a_variable_the_procedure_assigns(tmp_path: Path) -> None:
    path = with_procedures(
        tmp_path, "  take_from(pile, who):\n    - move_top(pile, hand[who])\n"
                  "  fine(x):\n    cite: lama.en#L27\n    do: [x += 1]\n",
        (DRAW, "      - take_from(stock, active)\n      - fine(unpaid[active])\n"
               "      - active = next_in_round(active)\n"))
    game = model.load(path, players=3)
    before = game.initial_state(1)
    after = before.apply(game.parse_action("draw"))
    assert after.to_dict()["vars"]["unpaid"] == [1, 0, 0]
    assert len(after.to_dict()["zones"]["stock"]) == len(before.to_dict()["zones"]["stock"]) - 1
    assert after.to_dict()["zones"]["hand"][0] != before.to_dict()["zones"]["hand"][0]
    step = next(s for s in game.ir.actions[1].effects if isinstance(s, ir.Assign)
                and s.target.name == "unpaid")
    assert step.cite == ("lama.en#L27",)  # the procedure's


def test_an_argument_is_read_where_the_parameter_is_used(tmp_path: Path) -> None:
    """By name, as a def: `active` passed in is whoever is active at each use."""
    path = with_procedures(
        tmp_path, "  pass_on(who):\n    - active = next_in_round(who)\n"
                  "    - move_top(stock, hand[who])\n",
        (DRAW, "      - pass_on(active)\n"))
    game = model.load(path, players=3)
    s = game.initial_state(2).apply(game.parse_action("draw"))
    hands = s.to_dict()["zones"]["hand"]
    assert [sum(h.values()) for h in hands] == [6, 7, 6]  # seat 1 drew: active was 1 by then
    assert s.active_player == 1


def test_a_procedures_loop_does_not_capture_the_callers_local(tmp_path: Path) -> None:
    scoring = "  scoring:\n    - for: p in players\n"
    path = with_procedures(
        tmp_path, "  mark(seat):\n    - for: p in players\n      do: [\"unpaid[p] += "
                  "(1 if p == seat else 0)\"]\n",
        (scoring, "  scoring:\n    - for: p in players\n      do: [mark(p)]\n"
                  "    - for: p in players\n"))
    g = model.load_ir(path, players=3)
    loop = g.scoring[0]
    inner = loop.body[0]
    assert isinstance(inner, ir.For) and inner.var != loop.var  # renamed: p__1


# ---------------------------------------------------------------------- errors
def spec_error(path: Path, players: int = 3) -> SpecError:
    with pytest.raises(SpecError) as info:
        model.load(path, players=players)
    return info.value


def line_of(path: Path, fragment: str) -> int:
    text = path.read_text(encoding="utf-8")
    return text[: text.index(fragment)].count("\n") + 1


@pytest.mark.parametrize(("name", "procedures", "call", "fragment", "at"), [
    ("arity", "  give(who):\n    - move_top(stock, hand[who])\n", "give(active, 2)",
     "give takes 1 argument(s): give(who)", "give(active, 2)"),
    ("unknown_name", "  give(who):\n    - move_top(stok, hand[who])\n", "give(active)",
     "unknown name 'stok'", "stok"),
    ("in_an_expression", "  give(who):\n    - move_top(stock, hand[who])\n",
     "active = give(active)", "is a procedure", "give(active)"),
    ("recursion", "  give(who):\n    - give(who)\n", "give(active)",
     "cannot call itself: give -> give", "- give(who)\n"),
    ("effect_name", "  move(who):\n    - move_top(stock, hand[who])\n", "move(active)",
     "'move' is already an effect", "move(who):"),
    ("def_name", "  in_round:\n    - shuffle(stock)\n", "in_round()",
     "'in_round' is already a name", "in_round:\n    - shuffle"),
    ("parameter_twice", "  give(who, who):\n    - move_top(stock, hand[who])\n",
     "give(active, active)", "named twice", "give(who, who):"),
    ("bad_parameter", "  give(who_):\n    - move_top(stock, hand[who_])\n",
     "give(active)", "does not have the expected form", "give(who_):"),
    ("uncalled", "  give(who):\n    - move_top(stock, hand[who])\n", "move_top(stock, "
     "hand[active])", "procedure give is never called", "give(who):"),
    ("empty", "  give(who): []\n", "give(active)", "should be non-empty", "give(who): []"),
], ids=lambda x: x if isinstance(x, str) and "\n" not in x and len(x) < 20 else "")
def test_a_bad_procedure_is_one_positioned_error(tmp_path: Path, name: str, procedures: str,
                                                 call: str, fragment: str, at: str) -> None:
    path = with_procedures(tmp_path, procedures, (DRAW, f"      - {call}\n"))
    error = spec_error(path)
    assert fragment in error.message, error.message
    text = path.read_text(encoding="utf-8")
    line = line_of(path, at)
    assert error.where.line == line, (error.where, line)
    if name in ("arity", "unknown_name", "in_an_expression", "recursion"):
        written = at.lstrip("- ").split("\n")[0]
        assert error.where.column == text.splitlines()[line - 1].index(written) + 1
    if name in ("unknown_name", "recursion"):  # the body's error names the call
        assert f"called at line {line_of(path, '      - ' + call)}" in error.message


def test_calls_nested_too_deep_stop_at_the_limit(tmp_path: Path) -> None:
    from model.limits import MAX_CALL_DEPTH

    chain = "".join(f"  p{i}:\n    - p{i + 1}()\n" for i in range(MAX_CALL_DEPTH + 1))
    path = with_procedures(tmp_path, chain + f"  p{MAX_CALL_DEPTH + 1}:\n    - shuffle(stock)\n",
                           (DRAW, "      - p0()\n" + DRAW))
    error = spec_error(path)
    assert "max_call_depth" in error.message


def test_calls_nested_to_the_limit_load(tmp_path: Path) -> None:
    from model.limits import MAX_CALL_DEPTH

    chain = "".join(f"  p{i}:\n    - p{i + 1}()\n" for i in range(MAX_CALL_DEPTH - 1))
    path = with_procedures(tmp_path, chain + f"  p{MAX_CALL_DEPTH - 1}:\n    - shuffle(stock)\n",
                           (DRAW, "      - p0()\n" + DRAW))
    assert model.load(path, players=3).source


def test_calls_that_triple_at_each_level_stop_at_the_size_limit(tmp_path: Path) -> None:
    levels = 12  # 3 ** 12 calls of the last
    chain = "".join(f"  p{i}:\n" + f"    - p{i + 1}()\n" * 3 for i in range(levels))
    path = with_procedures(tmp_path, chain + f"  p{levels}:\n    - ended = False\n",
                           (DRAW, "      - p0()\n" + DRAW))
    start = time.perf_counter()
    error = spec_error(path)
    assert "max_calls" in error.message
    assert time.perf_counter() - start < 10


def test_the_schema_describes_procedures() -> None:
    schema = model.schema._validator().schema
    proc = schema["properties"]["procedures"]
    assert proc["propertyNames"] == {"$ref": "#/$defs/defKey"}
    assert schema["$defs"]["procedureBody"]["minItems"] == 1
    assert loader is not None


def nested(kind: str, levels: int, per_procedure: int) -> str:
    """Procedures p0..p(levels-1), each nesting `per_procedure` statements (loops over one
    element, or ifs) around a call of the next."""
    chain = ""
    for i in range(levels):
        body = f"p{i + 1}()"
        for j in range(per_procedure):
            body = (f'{{for: "q{i}x{j} in [0]", do: [{body}]}}' if kind == "for"
                    else f'{{if: "starter == {j}", then: [{body}]}}')
        chain += f"  p{i}:\n    - {body}\n"
    return chain + f"  p{levels}:\n    - ended = False\n"


@pytest.mark.parametrize(("kind", "levels", "per", "limit"), [
    ("for", 6, 3, "max_loop_nesting"),   # 18 loops: Python compiles at most 20 nested
    ("if", 14, 3, "max_effect_depth"),   # 42 statements deep: Python indents at most 100
])
def test_statements_nested_through_procedures_stop_at_a_limit(tmp_path: Path, kind: str,
                                                              levels: int, per: int,
                                                              limit: str) -> None:
    path = with_procedures(tmp_path, nested(kind, levels, per), (DRAW, "      - p0()\n" + DRAW))
    error = spec_error(path)
    assert limit in error.message and "in procedure p" in error.message


@pytest.mark.parametrize(("kind", "levels", "per"), [("for", 4, 4), ("if", 13, 3)])
def test_statements_nested_to_the_limits_compile(tmp_path: Path, kind: str, levels: int,
                                                 per: int) -> None:
    path = with_procedures(tmp_path, nested(kind, levels, per), (DRAW, "      - p0()\n" + DRAW))
    game = model.load(path, players=2)  # 16 loops, or 39 statements deep
    state = game.initial_state(0)
    assert state.apply(game.parse_action("draw")).to_dict()["vars"]["ended"] is False


# ------------------------------------------- arguments passed on, counted in full
DRAW_WHEN = "when: \"phase == 'play' and can_draw and in_round > 1\""


def test_an_argument_passed_on_through_defs_counts_its_nesting(tmp_path: Path) -> None:
    """Twelve defs each wrapping their argument 25 deep: 300 levels of IR, which Python would
    not compile (exit 4, a bug report, before). Now one positioned error."""
    defs = "".join(f'  f{i}(x): "f{i + 1}(' + "-(" * 25 + "x" + ")" * 25 + ')"\n'
                   for i in range(12)) + "  f12(x): x\n"
    path = lama_with(tmp_path, ("defs:\n", "defs:\n" + defs),
                     (DRAW_WHEN, "when: \"phase == 'play' and can_draw and f0(in_round) > 1\""))
    error = spec_error(path)
    assert "max_expr_depth" in error.message and "its argument x" in error.message
    assert error.where.line == line_of(path, "  f1(x)")


def test_an_argument_used_twice_counts_twice(tmp_path: Path) -> None:
    """Thirty defs each doubling their argument: 2**30 parts. Loading took 100 s at sixteen
    before; now the parts are counted as they are written out."""
    defs = "".join(f'  f{i}(x): "f{i + 1}(x + x)"\n' for i in range(30)) + "  f30(x): x\n"
    path = lama_with(tmp_path, ("defs:\n", "defs:\n" + defs),
                     (DRAW_WHEN, "when: \"phase == 'play' and can_draw and f0(in_round) > 1\""))
    start = time.perf_counter()
    error = spec_error(path)
    assert "max_expr_nodes" in error.message
    assert time.perf_counter() - start < 5


def test_an_argument_passed_on_through_procedures_counts_its_nesting(tmp_path: Path) -> None:
    chain = "".join(f"  p{i}(x):\n    - \"p{i + 1}(" + "-(" * 20 + "x" + ")" * 20 + ")\"\n"
                    for i in range(10)) + "  p10(x):\n    - starter = x % player_count\n"
    path = with_procedures(tmp_path, chain, (DRAW, "      - p0(starter)\n" + DRAW))
    error = spec_error(path)
    assert "max_expr_depth" in error.message and "in procedure p" in error.message
