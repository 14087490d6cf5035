"""From a YAML spec file to the typed IR (`model.ir.GameIR`).

The loader validates the file against the JSON Schema, resolves the chosen variant
of every ambiguity into parameter values, numbers the card and token kinds, and
parses every expression and effect against the declared names. Every mistake is a
`SpecError` with file, line and column.
"""

from __future__ import annotations

import functools
import itertools
import os
import re
import string
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import attrs

from . import ir, limits, schema, work
from .errors import SpecError, Where
from .expr import EFFECTS, FUNCTIONS, Def, ExprParser, Scope, binding_name
from .fold import fold, known
from .limits import (
    KIND_NAME,
    MAX_ACTION_PARAMS,
    MAX_ACTIONS,
    MAX_CALL_DEPTH,
    MAX_CALLS,
    MAX_EACH_NAMES,
    MAX_EFFECT_DEPTH,
    MAX_INT,
    MAX_ITEMS,
    MAX_KINDS,
    MAX_LOOP_NESTING,
    MAX_NAME_LENGTH,
    MAX_VAR_SLOTS,
    MAX_ZONE_SLOTS,
    identifier_problem,
    over,
    short,
)
from .source import Located, PathKey, read_text, read_yaml
from .types import BOOL, INT, KIND, PLAYER, STR, Type, fits, list_of

#: The rulebooks of the specs in spec/ (shipped with them); `RULESPEC_RULEBOOKS` overrides.
RULEBOOKS = schema.SPEC_DIR / "rulebooks"
_CITE = re.compile(r"^([a-z]+\.[a-z]{2})#L(\d+)(?:-L?(\d+))?$")
_RESERVED_ATTRS = {"name", "copies", "start", "each"}
BUILTIN_VARS = {"active": PLAYER, "round": INT, "last_actor": PLAYER}
#: The variable that remembers whether a round-end condition held when the last round
#: ended, for game_end (`round_end__<condition>`: no spec name holds `__`).
REMEMBERED = "round_end__"


def resolve_spec_path(spec: str | Path) -> Path:
    """A path to a spec file, or a game id looked up in `spec/`."""
    p = Path(spec)
    if p.suffix in (".yaml", ".yml") or p.exists():
        return p
    candidate = schema.SPEC_DIR / f"{spec}.yaml"
    if candidate.exists():
        return candidate
    known = ", ".join(sorted(x.stem for x in schema.SPEC_DIR.glob("*.yaml")))
    raise SpecError(Where(str(spec)), f"no spec file or game id {str(spec)!r}; known games: {known}")


def any_player_count(spec: str | Path) -> int:
    """A player count the spec allows (its minimum), read without compiling the spec: a
    start for loading its IR, whose checks report any problem with the number."""
    doc = read_yaml(resolve_spec_path(spec))
    try:
        return int(doc.data["players"]["min"])
    except (TypeError, KeyError, ValueError):
        return 2


def load_ir(spec: str | Path, *, players: int, variants: Mapping[str, str] | None = None
            ) -> ir.GameIR:
    path = resolve_spec_path(spec)
    return _Loader(_read_spec(path), players, dict(variants or {})).build()


_PARSED: dict[tuple[str, str], Located] = {}
#: Texts kept parsed (the oldest is dropped): a check needs one or two at a time.
_PARSED_KEPT = 16


def _read_spec(path: Path) -> Located:
    """The spec file, parsed and checked against the schema once per text.

    Checking a spec compiles it for every player count and variant; parsing the YAML
    is the slow part, and the same text always gives the same (read-only) result.
    """
    text = read_text(path)
    key = (str(path), text)
    doc = _PARSED.get(key)
    if doc is None:
        doc = read_yaml(path, text)
        schema.validate(doc)
        _check_numbers(doc)
        if len(_PARSED) >= _PARSED_KEPT:
            del _PARSED[next(iter(_PARSED))]
        _PARSED[key] = doc
    return doc


def _check_numbers(doc: Located) -> None:
    """Every whole number of a spec within +-MAX_INT (max_int)."""
    stack: list[tuple[PathKey, Any]] = [((), doc.data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, dict):
            stack.extend(((*path, k), v) for k, v in value.items())
        elif isinstance(value, list):
            stack.extend(((*path, i), v) for i, v in enumerate(value))
        elif isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
            raise doc.error(path, f"{value:,} is beyond the limit of +-{MAX_INT:,} (max_int)")


def rulebook_folders(spec_file: str) -> list[Path]:
    """Where the rulebooks a spec cites are looked for, in order.

    `$RULESPEC_RULEBOOKS` alone when it is set; else a `rulebooks/` folder beside the spec,
    then the rulebooks shipped with the specs of spec/.
    """
    override = os.environ.get("RULESPEC_RULEBOOKS")
    if override:
        return [Path(override)]
    beside = Path(spec_file).resolve().parent / "rulebooks"
    return [beside, RULEBOOKS] if beside != RULEBOOKS.resolve() else [RULEBOOKS]


def find_rulebook(spec_file: str, source: str) -> Path | None:
    """The rulebook file of a source as the spec at `spec_file` finds it, or None."""
    for folder in rulebook_folders(spec_file):
        book = folder / f"{source}.txt"
        if book.is_file():
            return book
    return None


def rulebook_length(book: Path) -> int:
    """Lines in a rulebook file (an edit to it is seen)."""
    return _rulebook_length(book, book.stat().st_mtime_ns)


@functools.cache
def _rulebook_length(book: Path, stamp: int) -> int:
    """Lines in a rulebook (`stamp`, its modification time, makes an edit seen)."""
    try:
        return len(read_text(book).splitlines())
    except SpecError as exc:
        raise SpecError(Where(str(book)), f"cannot read this rulebook: {exc.message}") from None


def parse_condition(spec: str | Path, text: str, *, players: int,
                    variants: Mapping[str, str] | None = None) -> ir.Expr:
    """A yes/no expression over a spec's names (zones, vars, params, defs), such as a rule
    designer writes for `rulespec query`; errors point into the condition's text."""
    loader = _Loader(_read_spec(resolve_spec_path(spec)), players, dict(variants or {}))
    loader.build()
    parser = ExprParser(loader.scope, lambda offset: Where("<condition>", 1, offset + 1))
    return parser.expression(text, None, BOOL)


def _cites(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    return (value,) if isinstance(value, str) else tuple(value)


class _Loader:
    def __init__(self, doc: Located, players: int, variants: dict[str, str]):
        self.doc = doc
        self.d: dict[str, Any] = doc.data
        self.players = players
        self.requested = variants
        self.depth = self.loops = 0  # statements, and loops, the effects being read are inside

    # ---------------------------------------------------------------- helpers
    def err(self, path: PathKey, message: str) -> SpecError:
        return self.doc.error(path, message)

    def key_err(self, path: PathKey, message: str) -> SpecError:
        """An error about the mapping key naming the value at `path` (an unknown key)."""
        return SpecError(self.doc.key_where(path), message)

    def parser(self, path: PathKey) -> ExprParser:
        return ExprParser(self.scope, lambda offset: self.doc.where(path, offset))

    def expr(self, path: PathKey, text: Any, expect: Type | None = None,
             env: Mapping[str, ir.Expr] | None = None) -> ir.Expr:
        if not isinstance(text, str):
            text = str(text).lower() if isinstance(text, bool) else str(text)
        return self.parser(path).expression(text, env, expect)

    def ident(self, path: PathKey, name: Any, what: str, in_expressions: bool = True) -> str:
        """`name` if it is a valid identifier (the schema checks the same), else a SpecError
        pointing at it (at the key, when the name is a mapping key)."""
        problem = identifier_problem(name, in_expressions)
        if problem is not None:
            raise SpecError(self.doc.key_where(path), f"{what}: {problem}")
        return name

    def bounded(self, path: PathKey, value: int, limit: str, what: str, low: int = 0) -> int:
        """`value` if it lies in low..the limit named `limit`, else a SpecError saying so."""
        if value < low:
            raise self.err(path, f"{what} cannot be {value}; it must be at least {low}")
        if value > limits.LIMITS[limit]:
            raise self.err(path, over(limit, what, value))
        return value

    def sources(self) -> dict[str, int]:
        """Lines in each source's rulebook; a source without one is an error."""
        folders = rulebook_folders(self.doc.file)
        lines = {}
        for i, source in enumerate(self.d["sources"]):
            book = find_rulebook(self.doc.file, source)
            if book is None:
                raise self.err(("sources", i), f"no rulebook {source}.txt for source {source} in "
                               + " or ".join(str(f) for f in folders)
                               + "; put it there, or set RULESPEC_RULEBOOKS to its folder")
            lines[source] = rulebook_length(book)
        return lines

    def check_cites(self, path: PathKey, value: Any) -> tuple[str, ...]:
        cites = _cites(value)
        for i, c in enumerate(cites):
            m = _CITE.match(c)
            at = (*path, i) if not isinstance(value, str) else path
            if not m:
                raise self.err(at, "a citation looks like <source>#L<line> (rules.en#L17), found "
                                   + short(c))
            if m.group(1) not in self.book_lines:
                raise self.err(at, f"{m.group(1)} is not one of this spec's sources: "
                                   + ", ".join(sorted(self.book_lines)))
            n = self.book_lines[m.group(1)]
            last = int(m.group(3) or m.group(2))
            if not 1 <= int(m.group(2)) <= last <= n:
                raise self.err(at, f"{c}: {m.group(1)} has lines 1 to {n}")
        return cites

    # ------------------------------------------------------------------ build
    def build(self) -> ir.GameIR:
        d = self.d
        pl = d["players"]
        self.bounded(("players", "max"), pl["max"], "max_players", "players.max", low=1)
        if not pl["min"] <= self.players <= pl["max"]:
            raise SpecError(Where(self.doc.file), f"{d['game']} is for {pl['min']} to {pl['max']} "
                                                  f"players, not {self.players}")
        self.book_lines = self.sources()
        self.check_cites(("players", "cite"), pl["cite"])
        ambiguities = self.ambiguities()
        self.params = self.resolve_params(ambiguities)
        self.scope = Scope(params={}, vars={}, zones={}, indices={}, index_attr_types={},
                           kind_attrs={}, kind_index={}, enums={},
                           builtins={"players": list_of(PLAYER), "player_count": INT},
                           players=self.players)
        for name, (value, t) in self.params.items():
            self.scope.params[name] = (value, t)
        self.scope.enums.update(self.enum_params)
        kinds = self.kinds()
        self.zones()
        indices = self.indices()
        for k in kinds:
            if k.start not in self.scope.zones or self.scope.zones[k.start].per is not None:
                raise self.err((k.item_class, "start"), f"{k.start!r} is not a shared zone")
            if self.scope.zones[k.start].holds != k.item_class:
                raise self.err((k.item_class, "start"), f"zone {k.start} holds "
                                                        f"{self.scope.zones[k.start].holds}")
        self.check_slots()
        vars_ = self.vars()
        self.defs()
        self.procedures()
        g = self.d
        rnd = g["round"]
        if len(g["actions"]) > MAX_ACTIONS:
            raise self.err(("actions",), over("max_actions", "the number of actions",
                                              len(g["actions"])))
        actions = tuple(self.action(name, a) for name, a in g["actions"].items())
        p_env = {"p": ir.Local("p", PLAYER)}
        measure = None
        if "measure" in rnd:
            measure = self.expr_item(("round", "measure"), rnd["measure"], INT)
        ambiguities = self.claims(ambiguities)
        setup = self.effects(("setup",), g.get("setup", []), {})
        round_start = self.effects(("round", "start"), rnd["start"], {})
        scoring = self.effects(("round", "scoring"), rnd.get("scoring", []), {})
        self.uncalled()
        round_end = self.conditions(("round", "end"), rnd["end"])
        ended = self.round_end_names(round_end)
        game_end = self.conditions(("game_end", "when"), g["game_end"]["when"], ended)
        winners = self.expr_item(("game_end", "winners"), g["game_end"]["winners"],
                                 list_of(PLAYER), ended)
        remembered = self.remembered(round_end, (*(c.expr for c in game_end), winners))
        vars_ = vars_ + tuple(decl for decl, _ in remembered)
        if remembered and self.var_slots + len(remembered) > MAX_VAR_SLOTS:
            raise self.err(("game_end",), over(
                "max_var_slots", f"the number of variables with {self.players} players, one "
                "for each round-end condition game_end names included",
                self.var_slots + len(remembered)))
        scoring = tuple(stmt for _, stmt in remembered) + scoring
        game = ir.GameIR(
            id=g["game"], title=g["title"], file=self.doc.file, players=self.players,
            min_players=pl["min"], max_players=pl["max"], sources=tuple(g["sources"]),
            params={k: v for k, (v, _) in self.params.items()},
            chosen={a.id: self.chosen[a.id] for a in ambiguities}, ambiguities=ambiguities,
            kinds=kinds, kind_attrs=dict(self.scope.kind_attrs),
            enums=dict(self.scope.enums), zones=tuple(
                self.scope.zones.values()), indices=indices, vars=vars_,
            setup=setup,
            round_start=round_start,
            actions=actions,
            round_end=round_end,
            scoring=scoring,
            measure=measure,
            game_end=game_end,
            winners=winners,
            game_measure=(self.expr_item(("game_end", "measure"), g["game_end"]["measure"], INT)
                          if "measure" in g["game_end"] else None),
            score=self.expr_item(("score",), g["score"], INT, p_env),
            invariants=self.conditions(("invariants",), g.get("invariants", [])),
            expectations=self.expectations(),
            score_better=g["score"].get("better") if isinstance(g["score"], dict) else None,
            clarifications=self.clarifications(ambiguities),
        )
        problem = work.too_much(game, self.work_defs(), self.work_places(game))
        if problem is not None:
            where, message = problem
            raise SpecError(where or Where(self.doc.file), message)
        return game

    def work_defs(self) -> dict[ir.Expr, work.Site]:
        """Each def's uses (their IR, folded as the work bound reads it) -> the def."""
        keys = {}
        for key in self.d.get("defs", {}):
            name = key.split("(")[0].strip()
            keys[name] = work.Site(f"def {name}", self.doc.key_where(("defs", key)))
        return {fold(e): keys[name] for e, name in self.scope.def_sites.items() if name in keys}

    def work_places(self, g: ir.GameIR) -> dict[str, Where]:
        """Where the expressions the work bound charges are written."""
        d, w = self.d, self.doc.where
        out = {f"round end {c.name}": w(("round", "end", i, "when"))
               for i, c in enumerate(g.round_end)}
        out |= {f"game end {c.name}": w(("game_end", "when", i, "when"))
                for i, c in enumerate(g.game_end)}
        out |= {f"invariant {c.name}": w(("invariants", i, "when"))
                for i, c in enumerate(g.invariants)}
        out["round measure"] = w(("round", "measure"))
        out["score"] = w(("score", "expr") if isinstance(d["score"], dict) else ("score",))
        out["winners"] = w(("game_end", "winners"))
        for a in g.actions:
            out[f"action {a.name} when"] = w(("actions", a.name, "when"))
            out[f"action {a.name} params"] = w(("actions", a.name, "params"))
        return out

    def expr_item(self, path: PathKey, item: Any, expect: Type,
                  env: Mapping[str, ir.Expr] | None = None) -> ir.Expr:
        if isinstance(item, dict):
            self.check_cites((*path, "cite"), item.get("cite"))
            return self.expr((*path, "expr"), item["expr"], expect, env)
        return self.expr(path, item, expect, env)

    # ------------------------------------------------------------ ambiguities
    def ambiguities(self) -> tuple[ir.Ambiguity, ...]:
        out = []
        seen: set[str] = set()
        self.chosen: dict[str, str] = {}
        for i, a in enumerate(self.d.get("ambiguities", [])):
            path = ("ambiguities", i)
            self.ident((*path, "id"), a["id"], "an ambiguity id", False)
            for v in a["variants"]:
                self.ident((*path, "variants", v), v, "a variant name", False)
            if a["id"] in seen:
                raise self.err((*path, "id"), f"ambiguity id {a['id']!r} is used twice")
            seen.add(a["id"])
            if a["default"] not in a["variants"]:
                raise self.err((*path, "default"), f"default {short(a['default'])} is not one of "
                                                   f"the variants: {', '.join(a['variants'])}")
            for n, v in a["variants"].items():
                claim = next((k for k in ("differs_in", "parts_only_when") if k in v), None)
                if n == a["default"] and claim:
                    raise self.err((*path, "variants", n, claim), "the default reading is the "
                                   "ruling; claims of how a reading differs from it go on the "
                                   "other variants")
            variants = tuple(ir.Variant(n, dict(v["set"]), v["reading"],
                                        tuple(v["differs_in"]) if "differs_in" in v else None)
                             for n, v in a["variants"].items())
            cite = self.check_cites((*path, "cite"), a.get("cite"))
            out.append(ir.Ambiguity(a["id"], a["kind"], a["question"], cite, variants,
                                    a["default"], a["rationale"], a.get("example")))
            self.chosen[a["id"]] = a["default"]
        for key, name in self.requested.items():
            amb = next((a for a in out if a.id == key), None)
            if amb is None:
                known = ", ".join(a.id for a in out) or "none"
                raise SpecError(Where(self.doc.file), f"no ambiguity {short(key)} in this spec; "
                                                      f"known: {known}")
            if name not in {v.name for v in amb.variants}:
                raise SpecError(Where(self.doc.file), f"ambiguity {key} has no variant "
                                f"{short(name)}; variants: "
                                f"{', '.join(v.name for v in amb.variants)}")
            self.chosen[key] = name
        return tuple(out)

    def claims(self, ambiguities: tuple[ir.Ambiguity, ...]) -> tuple[ir.Ambiguity, ...]:
        """Parse each variant's `parts_only_when` (a condition over the game's names)."""
        out = []
        for i, a in enumerate(ambiguities):
            raw = self.d["ambiguities"][i]["variants"]
            variants = []
            for v in a.variants:
                text = raw[v.name].get("parts_only_when")
                if text is not None:
                    path = ("ambiguities", i, "variants", v.name, "parts_only_when")
                    v = attrs.evolve(v, parts_only_when=self.expr(path, text, BOOL))
                variants.append(v)
            out.append(attrs.evolve(a, variants=tuple(variants)))
        return tuple(out)

    def clarifications(self, ambiguities: tuple[ir.Ambiguity, ...]
                       ) -> tuple[ir.Clarification, ...]:
        out = []
        ids = {a.id for a in ambiguities}
        readings = {a.id: {v.name for v in a.variants} for a in ambiguities}
        for i, c in enumerate(self.d.get("clarifications", [])):
            path = ("clarifications", i)
            if c["id"] in ids:
                raise self.err((*path, "id"), f"{c['id']!r} is already the id of an ambiguity "
                                              "or clarification")
            ids.add(c["id"])
            cite = self.check_cites((*path, "cite"), c["cite"])
            e = c["example"]
            for amb, name in e.get("variants", {}).items():
                if name not in readings.get(amb, ()):
                    raise self.err((*path, "example", "variants", amb),
                                   f"no variant {amb}={name} in this spec")
            example = ir.Example(
                e["situation"], dict(e.get("variants", {})),
                tuple(e["legal"]) if "legal" in e else None, tuple(e.get("illegal", ())),
                tuple(ir.ExampleStep(s["do"], dict(s.get("expect", {})))
                      for s in e.get("steps", ())))
            out.append(ir.Clarification(c["id"], c["question"], c["answer"], cite, example))
        return tuple(out)

    def resolve_params(self, ambiguities: tuple[ir.Ambiguity, ...]) -> dict[str, tuple[Any, Type]]:
        raw = dict(self.d.get("params", {}))
        values: dict[str, Any] = {}
        exprs: dict[str, str] = {}
        for name, p in raw.items():
            self.ident(("params", name), name, "a param's name")
            if isinstance(p, dict):
                self.check_cites(("params", name, "cite"), p.get("cite"))
                if "expr" in p:
                    exprs[name] = p["expr"]
                else:
                    values[name] = p["value"]
            else:
                values[name] = p
        enum_values: dict[str, set[str]] = {n: {v} for n, v in values.items() if isinstance(v, str)}
        for i, a in enumerate(ambiguities):
            for v in a.variants:
                for key, val in v.sets.items():
                    if key not in raw:
                        raise self.key_err(("ambiguities", i, "variants", v.name, "set", key),
                                           f"variant sets unknown param {short(key)}; declare it "
                                           "under params")
                    if isinstance(val, str):
                        enum_values.setdefault(key, set()).add(val)
                if v.name == self.chosen[a.id]:
                    for key, val in v.sets.items():
                        if key in exprs:
                            exprs[key] = str(val)
                        else:
                            values[key] = val
        out: dict[str, tuple[Any, Type]] = {}
        self.enum_params = {k: tuple(sorted(v)) for k, v in enum_values.items()}
        for name, v in values.items():
            t = BOOL if isinstance(v, bool) else INT if isinstance(v, int) else Type("str", ref=name)
            out[name] = (v, t)
        # Computed params may use player_count and the plain params above.
        scope = Scope(params=dict(out), vars={}, zones={}, indices={}, index_attr_types={},
                      kind_attrs={}, kind_index={}, enums=dict(self.enum_params),
                      builtins={"player_count": INT})
        for name, text in exprs.items():
            path = ("params", name, "expr") if isinstance(raw[name], dict) else ("params", name)
            parsed = ExprParser(scope, lambda o, p=path: self.doc.where(p, o)).expression(text)
            value = const_eval(parsed, self.players, lambda m, p=path: self.err(p, m))
            if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
                raise self.err(path, f"{name} comes to {value:,}, beyond the limit of "
                                     f"+-{MAX_INT:,} (max_int)")
            out[name] = (value, parsed.type)
            scope.params[name] = (value, parsed.type)
        return out

    # ------------------------------------------------------------ item kinds
    def kinds(self) -> tuple[ir.Kind, ...]:
        kinds: list[ir.Kind] = []
        for cls in ("cards", "tokens"):
            if cls not in self.d:
                continue
            c = self.d[cls]
            self.check_cites((cls, "cite"), c["cite"])
            for attr, t in c.get("attributes", {}).items():
                path = (cls, "attributes", attr)
                self.ident(path, attr, "an attribute's name")
                if attr in _RESERVED_ATTRS or attr.startswith("_"):
                    raise self.err(path, f"{attr!r} is reserved and cannot be an attribute")
                typ = self.attr_type(attr, t)
                old = self.scope.kind_attrs.get(attr)
                if old is not None and old != typ:
                    raise self.err(path, f"attribute {attr} has another type for cards")
                self.scope.kind_attrs[attr] = typ
        for cls in ("cards", "tokens"):
            if cls not in self.d:
                continue
            c = self.d[cls]
            declared = c.get("attributes", {})
            for i, entry in enumerate(c["kinds"]):
                path = (cls, "kinds", i)
                for at, k, values, copies in self.kind_entry(path, entry, cls, declared):
                    if len(kinds) >= MAX_KINDS:
                        raise self.err(path, f"more than {MAX_KINDS} kinds of cards and tokens "
                                             "together (max_kinds)")
                    if k["name"] in self.scope.kind_index:
                        raise self.err(at, f"kind {k['name']!r} is declared twice")
                    self.bounded((*path, "copies"), copies, "max_copies",
                                 f"copies of {k['name']}")
                    self.scope.kind_index[k["name"]] = len(kinds)
                    kinds.append(ir.Kind(k["name"], cls, copies, values,
                                         k.get("start", c["start"])))
            if "total" in c:
                total = c["total"]
                if isinstance(total, str):
                    parsed = self.parser((cls, "total")).expression(total, None, INT)
                    total = const_eval(parsed, self.players,
                                       lambda m, c=cls: self.err((c, "total"), m))
                have = sum(k.copies for k in kinds if k.item_class == cls)
                if have != total:
                    raise self.err((cls, "total"), f"the {cls} add up to {have} with "
                                                   f"{self.players} players, but total says {total}")
        items = sum(k.copies for k in kinds)
        if items > MAX_ITEMS:
            raise self.err(("cards",), over("max_items", f"the number of cards and tokens with "
                                            f"{self.players} players", items))
        self.scope.builtins["cards"] = list_of(KIND)
        self.scope.builtins["tokens"] = list_of(KIND)
        return tuple(kinds)

    def kind_entry(self, path: PathKey, k: dict, cls: str, declared: dict
                   ) -> Iterator[tuple[PathKey, dict, dict[str, Any], int]]:
        """The kinds one entry of `kinds` declares: itself, or those it generates (`each`).
        Each as (where its name is written, the entry, its attribute values, its copies)."""
        if "each" in k:
            yield from self.generated_kinds(path, k, cls, declared)
            return
        values = {}
        for attr, typ in self.scope.kind_attrs.items():
            if attr in k:
                if attr not in declared:
                    raise self.key_err((*path, attr), f"{attr} is not an attribute of {cls}")
                values[attr] = self.attr_value((*path, attr), typ, k[attr])
            else:
                values[attr] = _default(typ, self.scope.enums)
        self.unknown_keys(path, k, values, cls, declared)
        copies = k["copies"]
        if isinstance(copies, str):
            parsed = self.parser((*path, "copies")).expression(copies, None, INT)
            copies = const_eval(parsed, self.players,
                                lambda m, p=path: self.err((*p, "copies"), m))
        yield (*path, "name"), k, values, copies

    def unknown_keys(self, path: PathKey, k: dict, values: dict, cls: str,
                     declared: dict) -> None:
        for key in k:
            if key not in values and key not in _RESERVED_ATTRS:
                raise self.key_err((*path, key), f"unknown attribute {short(key)}; declared "
                                   f"attributes of {cls}: {', '.join(declared) or 'none'}")

    def generated_kinds(self, path: PathKey, k: dict, cls: str, declared: dict
                        ) -> Iterator[tuple[PathKey, dict, dict[str, Any], int]]:
        """The kinds of an entry with `each`: one per combination of its names' values (the
        first name varies slowest), named by the `name` template, with attributes and copies
        computed by expressions over the names, params and player_count."""
        each = k["each"]
        if len(each) > MAX_EACH_NAMES:
            raise self.err((*path, "each"), over("max_each_names", "the names one entry "
                                                 "generates kinds over", len(each)))
        domains: dict[str, tuple[list[Any], Type]] = {}
        size = 1
        for var, dom in each.items():
            at = (*path, "each", var)
            self.ident(at, var, "a generated kind's name")
            values, t = self.each_domain(at, var, dom)
            domains[var] = (values, t)
            size *= len(values)
            if size > MAX_KINDS:
                raise self.err((*path, "each"), f"this entry generates {size:,} kinds or more, "
                                                f"over the limit of {MAX_KINDS} (max_kinds)")
        env = {var: ir.Local(var, t) for var, (_, t) in domains.items()}
        fields = self.name_template((*path, "name"), k["name"], env)
        values_of: dict[str, Any] = {}  # attr -> a constant, or the parsed expression
        for attr, typ in self.scope.kind_attrs.items():
            if attr in k:
                if attr not in declared:
                    raise self.key_err((*path, attr), f"{attr} is not an attribute of {cls}")
                values_of[attr] = self.generated_value((*path, attr), attr, typ, k[attr], env)
            elif attr in env and attr in declared:
                if not fits(env[attr].type, typ) or (typ.name == "str") != (
                        env[attr].type.name == "str"):
                    raise self.key_err((*path, "each", attr), f"{attr} is an attribute of "
                                       f"{typ}, so its values must be too; found {env[attr].type}")
                values_of[attr] = env[attr]
            else:
                values_of[attr] = _default(typ, self.scope.enums)
        self.unknown_keys(path, {x: y for x, y in k.items() if x != "each"}, values_of, cls,
                          declared)
        copies = k["copies"]
        if isinstance(copies, str):
            copies = self.parser((*path, "copies")).expression(copies, env, INT)
        names = list(domains)
        for combo in itertools.product(*(domains[v][0] for v in names)):
            bound = dict(zip(names, combo, strict=True))
            name = "".join(text + ("" if var is None else str(bound[var]))
                           for text, var in fields)
            problem = _kind_name_problem(name)
            if problem is not None:
                raise self.err((*path, "name"), f"the name template gives {short(name)} for "
                               f"{_shown(bound)}: {problem}")
            values = {}
            for attr, v in values_of.items():
                if isinstance(v, ir.Expr):
                    at = (*path, attr) if attr in k else (*path, "each", attr)
                    v = const_eval(v, self.players, lambda m, p=at: self.err(p, m), bound)
                    v = self.attr_value(at, self.scope.kind_attrs[attr],
                                        list(v) if isinstance(v, tuple) else v,
                                        f" for {_shown(bound)}")
                values[attr] = v
            n = copies
            if isinstance(n, ir.Expr):
                n = const_eval(n, self.players, lambda m, p=path: self.err((*p, "copies"), m),
                               bound)
            yield (*path, "name"), {**k, "name": name}, values, n

    def each_domain(self, at: PathKey, var: str, dom: Any) -> tuple[list[Any], Type]:
        """The values of one name of `each`: a list of names or numbers, or a range written
        `{from: a, to: b}` (both ends included; each a number or an expression over params
        and player_count). A name named like an enum attribute takes that enum's names."""
        if isinstance(dom, dict):
            ends = []
            for end in ("from", "to"):
                v = dom[end]
                if isinstance(v, str):
                    v = const_eval(self.expr((*at, end), v, INT), self.players,
                                   lambda m, e=end: self.err((*at, e), m))
                ends.append(v)
            lo, hi = ends
            if hi - lo + 1 > MAX_KINDS:
                raise self.err(at, f"from {lo} to {hi} is {hi - lo + 1:,} values, over the "
                                   f"limit of {MAX_KINDS} kinds (max_kinds)")
            return list(range(lo, hi + 1)), INT
        if all(isinstance(v, int) and not isinstance(v, bool) for v in dom):
            return list(dom), INT
        for j, v in enumerate(dom):
            if not isinstance(v, str):
                raise self.err((*at, j), f"the values of {var} are names or numbers, not both; "
                                         f"found {short(v)}")
        t = self.scope.kind_attrs.get(var)
        if t is not None and t.name == "str":
            for j, v in enumerate(dom):
                if v not in self.scope.enums[var]:
                    raise self.err((*at, j), f"{short(v)} is not one of the attribute {var}'s "
                                             f"names: {', '.join(self.scope.enums[var])}")
            return list(dom), t
        for j, v in enumerate(dom):
            if dom.index(v) != j:
                raise self.err((*at, j), f"{short(v)} is listed twice")
        return list(dom), STR

    def name_template(self, path: PathKey, template: str, env: dict[str, ir.Expr]
                      ) -> list[tuple[str, str | None]]:
        """A generated kind's `name`: text with `{name}` fields for names of `each`."""
        try:
            parts = list(string.Formatter().parse(template))
        except ValueError as exc:
            raise self.err(path, f"the name cannot be read ({exc}); write {{name}} for a value "
                                 "of each and no other braces") from None
        out = []
        for text, field, spec, conv in parts:
            if field is not None and (field not in env or spec or conv):
                shown = field + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "")
                raise self.err(path, f"{{{short(shown)}}} is not one of the names of each "
                                     f"({', '.join(env)}); write {{name}} and no other braces")
            out.append((text, field))
        if not any(f is not None for _, f in out):
            raise self.err(path, "the name of generated kinds needs a {name} field, or every "
                                 "kind would have the same name")
        return out

    def generated_value(self, path: PathKey, attr: str, typ: Type, value: Any,
                        env: dict[str, ir.Expr]) -> Any:
        """An attribute of generated kinds: a number, yes/no or list as in a plain kind, one
        of an enum's names, or else an expression over the names of each."""
        if not isinstance(value, str):
            return self.attr_value(path, typ, value)
        if typ.name == "str" and value in self.scope.enums[typ.ref]:
            if value in env or value in self.scope.params:
                raise self.err(path, f"{value!r} is both one of {attr}'s names and a name in "
                                     f"scope; write '{value}' (quoted) for the name")
            return value
        return self.expr(path, value, typ, env)

    def attr_type(self, attr: str, t: Any) -> Type:
        if t == "int":
            return INT
        if t == "bool":
            return BOOL
        if t == "list":
            return list_of(INT)
        self.scope.enums[attr] = tuple(t)
        return Type("str", ref=attr)

    def attr_value(self, path: PathKey, typ: Type, value: Any, where: str = "") -> Any:
        ok = {"int": lambda v: isinstance(v, int) and not isinstance(v, bool),
              "bool": lambda v: isinstance(v, bool),
              "list": lambda v: isinstance(v, list) and all(
                  isinstance(x, int) and not isinstance(x, bool) for x in v),
              "str": lambda v: isinstance(v, str) and v in self.scope.enums[typ.ref]}
        if not ok[typ.name](value):
            raise self.err(path, f"expected {typ}, found {short(value)}{where}")
        return tuple(value) if typ.name == "list" else value

    # ---------------------------------------------------------- zones, vars
    def zones(self) -> None:
        for name, z in self.d["zones"].items():
            self.ident(("zones", name), name, "a zone's name")
            self.check_cites(("zones", name, "cite"), z.get("cite"))
            sees, top = self.visibility(name, z)
            self.scope.zones[name] = ir.ZoneDecl(name, z["order"], z.get("per"), z["holds"],
                                                 sees, top)

    def visibility(self, name: str, z: dict) -> tuple[str, str | None]:
        """A zone's `sees:` and `top:` (docs/spec-language.md#visibility), checked."""
        sees, top = z.get("sees", "everyone"), z.get("top")
        for key, value in (("sees", sees), ("top", top)):
            if value is not None and value not in ir.VISIBILITY:
                raise self.err(("zones", name, key), f"{key} is one of "
                               f"{', '.join(ir.VISIBILITY)}, found {short(value)}")
            if value == "owner" and z.get("per") != "player":
                raise self.err(("zones", name, key), f"{key}: owner needs a zone with "
                               "per: player (a shared or per-index zone has no owner)")
        if top is None:
            return sees, None
        if z["order"] != "pile":
            raise self.err(("zones", name, "top"), "top: is for a pile; a bag has no top")
        rank = {"nobody": 0, "owner": 1, "everyone": 2}
        if rank[top] <= rank[sees]:
            raise self.err(("zones", name, "top"), f"top: {top} shows the top to no more "
                           f"players than sees: {sees} shows the whole pile to; leave it out")
        return sees, top

    def indices(self) -> tuple[ir.IndexSet, ...]:
        out = []
        for name, spec in self.d.get("indices", {}).items():
            self.ident(("indices", name), name, "an index set's name")
            self.bounded(("indices", name, "size"), spec["size"], "max_index_size",
                         f"the size of {name}", low=1)
            attrs_ = {}
            for attr, values in spec.get("attributes", {}).items():
                path = ("indices", name, "attributes", attr)
                self.ident(path, attr, "an attribute's name")
                for j, v in enumerate(values):
                    if not isinstance(v, int | str):
                        raise self.err((*path, j), f"an index attribute is a number, a name or "
                                                   f"yes/no, found {short(v)}")
                if len(values) != spec["size"]:
                    raise self.err(path, f"{name} has {spec['size']} members but {attr} lists "
                                         f"{len(values)} values")
                if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
                    t = INT
                else:
                    kind_t = self.scope.kind_attrs.get(attr)
                    if kind_t is not None and kind_t.name == "str":
                        bad = [v for v in values if v not in self.scope.enums[attr]]
                        if bad:
                            raise self.err(path, f"{bad[0]!r} is not one of "
                                                 f"{', '.join(self.scope.enums[attr])}")
                        t = kind_t
                    else:
                        ref = f"{name}.{attr}"
                        values = [str(v) for v in values]
                        self.scope.enums[ref] = tuple(dict.fromkeys(values))
                        t = Type("str", ref=ref)
                self.scope.index_attr_types[(name, attr)] = t
                attrs_[attr] = tuple(values)
            idx = ir.IndexSet(name, spec["size"], attrs_, self.index_names(name, spec))
            self.scope.indices[name] = idx
            out.append(idx)
        for zname, z in self.scope.zones.items():
            if z.per not in (None, "player") and z.per not in self.scope.indices:
                raise self.err(("zones", zname, "per"), f"per must be player or an index set, "
                                                        f"found {z.per!r}")
        return tuple(out)

    def index_names(self, name: str, spec: dict) -> tuple[str, ...]:
        """An index set's `names:`, one per member, how actions and output call them."""
        names = spec.get("names")
        if names is None:
            return ()
        path = ("indices", name, "names")
        if len(names) != spec["size"]:
            raise self.err(path, f"{name} has {spec['size']} members but names lists {len(names)}")
        for i, n in enumerate(names):
            if names.index(n) != i:
                raise self.err((*path, i), f"the name {n!r} is given twice; members need "
                                           "distinct names")
        return tuple(names)

    def vars(self) -> tuple[ir.VarDecl, ...]:
        for name, t in BUILTIN_VARS.items():
            self.scope.vars[name] = (t, None)
        decls = []
        for name, v in self.d.get("vars", {}).items():
            path = ("vars", name)
            self.ident(path, name, "a variable's name")
            self.check_cites((*path, "cite"), v.get("cite"))
            if name in self.scope.vars or name in self.scope.zones or name in self.scope.params:
                raise self.err(path, f"{name!r} is already a name (builtin, zone or param)")
            t = v["type"]
            if isinstance(t, list):
                self.scope.enums[name] = tuple(t)
                typ = Type("str", ref=name)
            else:
                typ = {"int": INT, "bool": BOOL, "player": PLAYER}[t]
            per = v.get("per")
            if per not in (None, "player") and per not in self.scope.indices:
                raise self.err((*path, "per"), f"per must be player or an index set, found {per!r}")
            self.scope.vars[name] = (typ, per)
            decls.append((name, typ, per, v["init"]))
        out = []
        for name, typ, per, init in decls:
            path = ("vars", name, "init")
            if typ.name == "str":
                if init not in self.scope.enums[name]:
                    raise self.err(path, f"init must be one of {', '.join(self.scope.enums[name])}")
                e: ir.Expr = ir.Const(init, typ)
            elif isinstance(init, bool) or (isinstance(init, int) and typ.name != "bool"):
                if isinstance(init, bool) != (typ.name == "bool"):
                    raise self.err(path, f"expected {typ}, found {init!r}")
                if typ.name == "player" and not 0 <= init < self.players:
                    raise self.err(path, f"init must be a seat from 0 to {self.players - 1} with "
                                         f"{self.players} players, found {init}")
                e = ir.Const(init, typ)
            else:
                e = self.expr(path, init, typ)
            out.append(ir.VarDecl(name, typ, per, e))
        return tuple(out)

    def defs(self) -> None:
        for key, value in self.d.get("defs", {}).items():
            m = re.fullmatch(r"\s*([A-Za-z][A-Za-z0-9_]*)\s*(?:\(([^)]*)\))?\s*", key)
            path = ("defs", key)
            if not m:
                raise self.err(path, "a def is named like name or name(a, b)")
            name = self.ident(path, m.group(1), "a def's name")
            params = tuple(self.ident(path, p.strip(), "a def's parameter")
                           for p in (m.group(2) or "").split(",") if p.strip())
            text = value["expr"] if isinstance(value, dict) else value
            tpath = (*path, "expr") if isinstance(value, dict) else path
            if isinstance(value, dict):
                self.check_cites((*path, "cite"), value.get("cite"))
            if name in self.scope.defs or name in self.scope.vars or name in self.scope.zones:
                raise self.err(path, f"{name!r} is already a name")
            self.scope.defs[name] = Def(name, params, text,
                                        lambda o, p=tpath: self.doc.where(p, o))
        # Parse every def once (with its parameters untyped) so a broken def is reported even
        # if nothing uses it.
        for d in self.scope.defs.values():
            env = {p: ir.Local(p, Type("any")) for p in d.params}
            ExprParser(self.scope, d.where).expression(d.text, env)

    def procedures(self) -> None:
        """`procedures`: named effect blocks with parameters, expanded where they are called
        (`procedure_call`). Only their names and parameters are read here; a body is
        checked where it is called, with the arguments in place of the parameters."""
        self.procs: dict[str, _Procedure] = {}
        taken = {**self.scope.params, **self.scope.vars, **self.scope.zones,
                 **self.scope.indices, **self.scope.builtins, **self.scope.defs}
        for key, value in self.d.get("procedures", {}).items():
            m = re.fullmatch(r"\s*([A-Za-z][A-Za-z0-9_]*)\s*(?:\(([^)]*)\))?\s*", key)
            path = ("procedures", key)
            if not m:
                raise self.err(path, "a procedure is named like name or name(a, b)")
            name = self.ident(path, m.group(1), "a procedure's name")
            params = tuple(self.ident(path, q.strip(), "a procedure's parameter")
                           for q in (m.group(2) or "").split(",") if q.strip())
            for i, q in enumerate(params):
                if q in params[:i]:
                    raise self.key_err(path, f"the parameter {q!r} of {name} is named twice")
            if name in EFFECTS or name in FUNCTIONS or name in taken or name in self.procs:
                what = ("an effect" if name in EFFECTS else "a function" if name in FUNCTIONS
                        else "a procedure" if name in self.procs else "a name")
                raise self.key_err(path, f"{name!r} is already {what} of the language or "
                                         "this spec; a procedure needs a name of its own")
            body, bpath = ((value["do"], (*path, "do")) if isinstance(value, dict)
                           else (value, path))
            cite = ()
            if isinstance(value, dict):
                cite = self.check_cites((*path, "cite"), value.get("cite"))
            self.procs[name] = _Procedure(name, params, body, bpath, cite,
                                          self.doc.key_where(path))
            self.scope.procedures[name] = params
        self.calling: list[str] = []
        self.expanded = 0  # calls expanded so far (MAX_CALLS)

    def call(self, path: PathKey, name: str, args: list[ir.Expr], at: Where,
             cite: tuple[str, ...]) -> tuple[ir.Stmt, ...]:
        """The statements of procedure `name` with `args` in place of its parameters.

        Each statement is the body's, where the body writes it; one without a citation of
        its own takes the call's (else the procedure's). The body sees its parameters and
        the spec's names only, not the caller's locals; its loop variables capture none of
        the caller's locals that an argument reads (`expr.binding_name`).
        """
        proc = self.procs[name]
        if name in self.calling:
            chain = " -> ".join((*self.calling[self.calling.index(name):], name))
            raise SpecError(at, f"a procedure cannot call itself: {chain}")
        if len(self.calling) >= MAX_CALL_DEPTH:
            raise SpecError(at, over("max_call_depth", "the depth of procedure calls "
                                     f"({' -> '.join((*self.calling, name))})",
                                     len(self.calling) + 1))
        self.expanded += 1
        if self.expanded > MAX_CALLS:
            raise SpecError(at, over("max_calls", "the number of procedure calls expanded, each "
                                     "call inside a procedure counted again", self.expanded))
        proc.calls += 1
        self.calling.append(name)
        try:
            body = self.effects(proc.path, proc.body, dict(zip(proc.params, args, strict=True)),
                                inline=True)
        except SpecError as exc:  # said where the body is written; add where it is called
            raise SpecError(exc.where, f"{exc.message} (in procedure {name}, called at "
                                       f"line {at.line}, column {at.column})") from None
        finally:
            self.calling.pop()
        return tuple(s if s.cite else attrs.evolve(s, cite=cite or proc.cite) for s in body)

    def uncalled(self) -> None:
        """A procedure no effect calls is an error: its body would never be checked."""
        for proc in self.procs.values():
            if not proc.calls:
                raise SpecError(proc.where, f"procedure {proc.name} is never called; call it "
                                            "from an effect, or remove it (a body is checked "
                                            "where it is called)")

    # ----------------------------------------------------------------- rules
    def conditions(self, path: PathKey, items: list,
                   env: Mapping[str, ir.Expr] | None = None) -> tuple[ir.Condition, ...]:
        out = []
        for i, c in enumerate(items):
            cite = self.check_cites((*path, i, "cite"), c.get("cite"))
            self.ident((*path, i, "name"), c["name"], "a condition's name", False)
            out.append(ir.Condition(c["name"], self.expr((*path, i, "when"), c["when"], BOOL,
                                                         env), cite))
        return tuple(out)

    def round_end_names(self, round_end: tuple[ir.Condition, ...]) -> dict[str, ir.Expr]:
        """What `game_end` may name besides the spec's names: each round-end condition, as
        whether it held when the round ended (a variable the scoring sets first). A
        condition named like another name of the spec (or a reserved word) is not one."""
        s = self.scope
        taken = {*s.params, *s.vars, *s.zones, *s.indices, *s.builtins, *s.defs}
        return {c.name: ir.Var(REMEMBERED + c.name, None, BOOL) for c in round_end
                if c.name not in taken and identifier_problem(c.name) is None}

    def remembered(self, round_end: tuple[ir.Condition, ...], used: tuple[ir.Expr, ...]
                   ) -> list[tuple[ir.VarDecl, ir.Stmt]]:
        """For each round-end condition that `used` (game_end's expressions) names: its
        variable, and the statement that sets it when the round ends, before the scoring
        (written where the condition is)."""
        names = {n.name for e in used for n in ir.walk(e)
                 if isinstance(n, ir.Var) and n.name.startswith(REMEMBERED)}
        out = []
        for i, c in enumerate(round_end):
            var = REMEMBERED + c.name
            if var not in names:
                continue
            target = ir.Var(var, None, BOOL)
            out.append((ir.VarDecl(var, BOOL, None, ir.Const(False, BOOL)),
                        ir.Assign(self.doc.where(("round", "end", i, "when")), c.cite, target,
                                  "=", c.expr)))
        return out

    def action(self, name: str, a: dict) -> ir.ActionDecl:
        path = ("actions", name)
        self.ident(path, name, "an action's name", False)
        cite = self.check_cites((*path, "cite"), a["cite"])
        env: dict[str, ir.Expr] = {}
        params = []
        if len(a.get("params", {})) > MAX_ACTION_PARAMS:
            raise self.err((*path, "params"), over("max_action_params", f"the number of "
                                                   f"parameters of {name}", len(a["params"])))
        for pname, domain in a.get("params", {}).items():
            ppath = (*path, "params", pname)
            self.ident(ppath, pname, "a parameter's name")
            dom = self.expr(ppath, domain, None, env)
            if dom.type.name == "zone":
                dom = ir.Call("kinds", (dom,), list_of(KIND))
            if dom.type.name != "list":
                raise self.err(ppath, f"a parameter's domain is a list or a zone, found {dom.type}")
            params.append((pname, dom))
            env[pname] = ir.Local(pname, dom.type.of or Type("any"))
        self.check_say((*path, "say"), a["say"], name, env)
        when = self.expr((*path, "when"), a["when"], BOOL, env)
        effects = self.effects((*path, "effects"), a["effects"], env)
        return ir.ActionDecl(name, a["say"], tuple(params), when, effects, cite,
                             self.doc.where(path))

    def check_say(self, path: PathKey, say: str, name: str, env: dict[str, ir.Expr]) -> None:
        """`say` shows every parameter, as plain `{name}` fields and nothing else."""
        try:
            parts = list(string.Formatter().parse(say))
        except ValueError as exc:
            raise self.err(path, f"say cannot be read ({exc}); write {{name}} for a parameter "
                                 "and no other braces") from None
        fields = [(f, spec, conv) for _, f, spec, conv in parts if f is not None]
        for field, spec, conv in fields:
            if field not in env or spec or conv:
                shown = field + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "")
                raise self.err(path, f"{{{short(shown)}}} is not a parameter of {name}; write "
                                     "{name} for a parameter and no other braces")
        shown = [f for f, _, _ in fields]
        for pname in env:
            if shown.count(pname) != 1:
                raise self.err(path, f"say must show every parameter once; {{{pname}}} is there "
                                     f"{shown.count(pname)} times")

    def effects(self, path: PathKey, items: list, env: dict[str, ir.Expr], loop: bool = False,
                inline: bool = False) -> tuple[ir.Stmt, ...]:
        """A list of effects, nested `depth` statements (and `loops` loops) deep, procedures
        expanded: both are limited (`max_effect_depth`, `max_loop_nesting`), since a spec's
        statements become nested Python statements (the generated module must compile).
        `inline`: a procedure's body, in place of its call (no deeper than the call)."""
        if not items:
            return ()
        if inline:
            return self._effects(path, items, env)
        self.depth, self.loops = self.depth + 1, self.loops + loop
        try:
            if self.depth > MAX_EFFECT_DEPTH:
                raise self.err((*path, 0), over("max_effect_depth", "the nesting of effects "
                                                "here, procedures expanded", self.depth))
            if self.loops > MAX_LOOP_NESTING:
                raise self.err((*path, 0), over("max_loop_nesting", "the nesting of loops "
                                                "here, procedures expanded", self.loops))
            return self._effects(path, items, env)
        finally:
            self.depth, self.loops = self.depth - 1, self.loops - loop

    def _effects(self, path: PathKey, items: list, env: dict[str, ir.Expr]
                 ) -> tuple[ir.Stmt, ...]:
        out: list[ir.Stmt] = []
        for i, item in enumerate(items):
            p = (*path, i)
            where = self.doc.where(p)
            if isinstance(item, str) or isinstance(item.get("do"), str):
                cite = () if isinstance(item, str) else self.check_cites(
                    (*p, "cite"), item.get("cite"))
                at = p if isinstance(item, str) else (*p, "do")
                text = item if isinstance(item, str) else item["do"]
                called = self.parser(at).procedure_call(text, env)
                if called is not None:
                    out.extend(self.call(at, *called, cite))
                else:
                    out.append(self.checked(at, self.parser(at).statement(text, env, cite)))
                continue
            cite = self.check_cites((*p, "cite"), item.get("cite"))
            if "if" in item:
                test = self.expr((*p, "if"), item["if"], BOOL, env)
                out.append(ir.If(where, cite, test, self.effects((*p, "then"), item["then"], env),
                                 self.effects((*p, "else"), item.get("else", []), env)))
            elif "for" in item:
                m = re.fullmatch(r"\s*(\S+)\s+in\s+(.+)", item["for"], re.S)
                if not m:
                    raise self.err((*p, "for"), "expected 'name in list', e.g. 'p in players'")
                self.ident((*p, "for"), m.group(1), "a loop's variable")
                it = self.expr((*p, "for"), m.group(2), None, env)
                if it.type.name == "zone":
                    it = ir.Call("kinds", (it,), list_of(KIND))
                if it.type.name != "list":
                    raise self.err((*p, "for"), f"can only loop over a list, found {it.type}")
                var = binding_name(m.group(1), env, rename_shadowing=True)
                inner = {**env, m.group(1): ir.Local(var, it.type.of or Type("any"))}
                out.append(ir.For(where, cite, var, it,
                                  self.effects((*p, "do"), item["do"], inner, loop=True)))
            elif "repeat" in item:
                n = self.expr((*p, "repeat"), item["repeat"], INT, env)
                times = known(n, self.players)
                if isinstance(times, ir.Const):
                    self.bounded((*p, "repeat"), times.value, "max_repeat", "a repeat count")
                out.append(ir.Repeat(where, cite, n, self.effects((*p, "do"), item["do"], env,
                                                                 loop=True)))
            elif "while" in item:
                test = self.expr((*p, "while"), item["while"], BOOL, env)
                self.bounded((*p, "max"), item["max"], "max_while", "a while loop's max", low=1)
                out.append(ir.While(where, cite, test, item["max"],
                                    self.effects((*p, "do"), item["do"], env, loop=True)))
        return tuple(out)

    def checked(self, path: PathKey, stmt: ir.Stmt) -> ir.Stmt:
        """An effect whose counts are known now: none may be negative (nor, for a count of
        items, more than there are). Counts known only in play are checked then."""
        if isinstance(stmt, ir.Do):
            for what, arg in _counts(stmt):
                value = known(arg, self.players)
                if isinstance(value, ir.Const):
                    limit = "max_int" if stmt.fn == "pay" else "max_items"
                    self.bounded(path, value.value, limit, f"the {what} of {stmt.fn}")
        return stmt

    def check_slots(self) -> None:
        """The zones and (after vars) variables, counted per player or member, within limits."""
        sizes = {ix: idx.size for ix, idx in self.scope.indices.items()}
        sizes["player"] = self.players
        slots = sum(sizes.get(z.per, 1) if z.per else 1 for z in self.scope.zones.values())
        if slots > MAX_ZONE_SLOTS:
            raise self.err(("zones",), over("max_zone_slots", f"the number of zones with "
                                            f"{self.players} players", slots))
        slots = sum(sizes.get(v.get("per"), 1) if v.get("per") else 1
                    for v in self.d.get("vars", {}).values())
        self.var_slots = slots
        if slots > MAX_VAR_SLOTS:
            raise self.err(("vars",), over("max_var_slots", f"the number of variables with "
                                           f"{self.players} players", slots))

    def expectations(self) -> tuple[ir.Expectation, ...]:
        out = []
        for e in self.d.get("expect", []):
            out.append(ir.Expectation(e["property"], e["result"], e["reason"],
                                      tuple(e.get("players", ())), dict(e.get("variants", {})),
                                      str(e.get("clause", "")), e.get("witness")))
        return tuple(out)


@attrs.define
class _Procedure:
    """A procedure as declared: its body is read where it is called."""

    name: str
    params: tuple[str, ...]
    body: list
    path: PathKey
    cite: tuple[str, ...]
    where: Where
    calls: int = 0


def _default(t: Type, enums: dict[str, tuple[str, ...]]) -> Any:
    if t.name == "str":
        return enums[t.ref][0]
    return {"int": 0, "bool": False, "list": ()}[t.name]


def _counts(stmt: ir.Do) -> list[tuple[str, ir.Expr]]:
    """The arguments of an effect that count items (or money): none may be negative."""
    a, kw = stmt.args, dict(stmt.kwargs)
    picks = {"move": [("count", a[3:4])], "move_top": [("count", a[2:3])],
             "move_all": [("keep", [kw["keep"]] if "keep" in kw else [])],
             "deal": [("count", a[2:3])], "pay": [("amount", a[0:1])]}.get(stmt.fn, [])
    return [(what, x) for what, xs in picks for x in xs]


def const_eval(e: ir.Expr, players: int, fail, bound: Mapping[str, Any] | None = None) -> Any:
    """Evaluate an expression that may only use constants and player_count (params, copies),
    and the values `bound` gives names (a generated kind's names)."""
    env = bound or {}

    def ev(x: ir.Expr) -> Any:
        return const_eval(x, players, fail, env)

    match e:
        case ir.Const(value=v):
            return v
        case ir.Local(name=n) if n in env:
            return env[n]
        case ir.Builtin(name="player_count"):
            return players
        case ir.Unary(op="not", operand=x):
            return not ev(x)
        case ir.Unary(op="-", operand=x):
            return -ev(x)
        case ir.Bin(op=op, left=a, right=b) if e.type.name == "list":
            return (*ev(a), *ev(b))
        case ir.Bin(op=op, left=a, right=b):
            x, y = ev(a), ev(b)
            if op in ("//", "%") and y == 0:
                raise fail("division by zero")
            value = {"+": x + y, "-": x - y, "*": x * y}.get(op) if op in "+-*" else (
                x // y if op == "//" else x % y)
            if abs(value) > MAX_INT:
                raise fail(f"this comes to {value:,}, beyond the limit of +-{MAX_INT:,} "
                           "(max_int)")
            return value
        case ir.Cmp(op="in" | "notin" as op, left=a, right=b) if b.type.name == "list":
            found = ev(a) in ev(b)
            return found if op == "in" else not found
        case ir.Cmp(op=op, left=a, right=b) if op not in ("in", "notin"):
            x, y = ev(a), ev(b)
            return {"==": x == y, "!=": x != y, "<": x < y, "<=": x <= y, ">": x > y,
                    ">=": x >= y}[op]
        case ir.BoolOp(op="and", values=vs):
            return all(ev(v) for v in vs)
        case ir.BoolOp(op="or", values=vs):
            return any(ev(v) for v in vs)
        case ir.Cond(test=t, body=a, orelse=b):
            return ev(a if ev(t) else b)
        case ir.ListLit(items=items):
            return tuple(ev(x) for x in items)
        case ir.Call(fn="abs", args=(x,)):
            return abs(ev(x))
        case ir.Call(fn="len", args=(x,)):
            return len(ev(x))
    raise fail("this value must be computable before the game starts (constants, params, "
               "player_count and, in a generated kind, the names of each only)")


def _kind_name_problem(name: str) -> str | None:
    """Why `name` cannot be a kind's name, or None."""
    if len(name) > MAX_NAME_LENGTH:
        return f"a kind's name has at most {MAX_NAME_LENGTH} characters"
    if not KIND_NAME.fullmatch(name):
        return ("a kind's name holds letters, digits and _ / + -, starting with a letter or "
                "digit")
    return None


def _shown(bound: Mapping[str, Any]) -> str:
    return ", ".join(f"{k} = {short(v, 20)}" for k, v in bound.items())
