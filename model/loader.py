"""From a YAML spec file to the typed IR (`model.ir.GameIR`).

The loader validates the file against the JSON Schema, resolves the chosen variant
of every ambiguity into parameter values, numbers the card and token kinds, and
parses every expression and effect against the declared names. Every mistake is a
`SpecError` with file, line and column.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from . import ir, schema
from .errors import SpecError, Where
from .expr import Def, ExprParser, Scope
from .source import Located, PathKey, read_yaml
from .types import BOOL, INT, KIND, PLAYER, Type, list_of

RULEBOOKS = Path(os.environ.get("RULESPEC_RULEBOOKS") or
                 Path(__file__).resolve().parent.parent.parent / "shared" / "rulebooks")
_CITE = re.compile(r"^([a-z]+\.[a-z]{2})#L(\d+)(?:-L?(\d+))?$")
_RESERVED_ATTRS = {"name", "copies", "start"}
BUILTIN_VARS = {"active": PLAYER, "round": INT, "last_actor": PLAYER}


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


def _read_spec(path: Path) -> Located:
    """The spec file, parsed and checked against the schema once per text.

    Checking a spec compiles it for every player count and variant; parsing the YAML
    is the slow part, and the same text always gives the same (read-only) result.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        text = None
    if text is None:
        doc = read_yaml(path)  # reports why the file cannot be read
        schema.validate(doc)
        return doc
    key = (str(path), text)
    doc = _PARSED.get(key)
    if doc is None:
        doc = read_yaml(path, text)
        schema.validate(doc)
        _PARSED[key] = doc
    return doc


@functools.cache
def _rulebook_length(source: str) -> int:
    """Lines in a rulebook, or 0 when the rulebooks are not at hand (citations unchecked)."""
    book = RULEBOOKS / f"{source}.txt"
    return len(book.read_text(encoding="utf-8").splitlines()) if book.exists() else 0


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

    # ---------------------------------------------------------------- helpers
    def err(self, path: PathKey, message: str) -> SpecError:
        return self.doc.error(path, message)

    def parser(self, path: PathKey) -> ExprParser:
        return ExprParser(self.scope, lambda offset: self.doc.where(path, offset))

    def expr(self, path: PathKey, text: Any, expect: Type | None = None,
             env: Mapping[str, ir.Expr] | None = None) -> ir.Expr:
        if not isinstance(text, str):
            text = str(text).lower() if isinstance(text, bool) else str(text)
        return self.parser(path).expression(text, env, expect)

    def check_cites(self, path: PathKey, value: Any) -> tuple[str, ...]:
        cites = _cites(value)
        sources = set(self.d["sources"])
        for i, c in enumerate(cites):
            m = _CITE.match(c)
            at = (*path, i) if not isinstance(value, str) else path
            if not m:
                raise self.err(at, f"a citation looks like <source>#L<line> (rules.en#L17), found {c!r}")
            if m.group(1) not in sources:
                raise self.err(at, f"{m.group(1)} is not one of this spec's sources: "
                                   + ", ".join(sorted(sources)))
            n = _rulebook_length(m.group(1))
            if n:
                last = int(m.group(3) or m.group(2))
                if not 1 <= int(m.group(2)) <= last <= n:
                    raise self.err(at, f"{c}: {m.group(1)} has lines 1 to {n}")
        return cites

    # ------------------------------------------------------------------ build
    def build(self) -> ir.GameIR:
        d = self.d
        pl = d["players"]
        if not pl["min"] <= self.players <= pl["max"]:
            raise SpecError(Where(self.doc.file), f"{d['game']} is for {pl['min']} to {pl['max']} "
                                                  f"players, not {self.players}")
        self.check_cites(("players", "cite"), pl["cite"])
        ambiguities = self.ambiguities()
        self.params = self.resolve_params(ambiguities)
        self.scope = Scope(params={}, vars={}, zones={}, indices={}, index_attr_types={},
                           kind_attrs={}, kind_index={}, enums={},
                           builtins={"players": list_of(PLAYER), "player_count": INT})
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
        vars_ = self.vars()
        self.defs()
        g = self.d
        rnd = g["round"]
        actions = tuple(self.action(name, a) for name, a in g["actions"].items())
        p_env = {"p": ir.Local("p", PLAYER)}
        measure = None
        if "measure" in rnd:
            measure = self.expr_item(("round", "measure"), rnd["measure"], INT)
        return ir.GameIR(
            id=g["game"], title=g["title"], file=self.doc.file, players=self.players,
            min_players=pl["min"], max_players=pl["max"], sources=tuple(g["sources"]),
            params={k: v for k, (v, _) in self.params.items()},
            chosen={a.id: self.chosen[a.id] for a in ambiguities}, ambiguities=ambiguities,
            kinds=kinds, kind_attrs=dict(self.scope.kind_attrs),
            enums=dict(self.scope.enums), zones=tuple(
                self.scope.zones.values()), indices=indices, vars=vars_,
            setup=self.effects(("setup",), g.get("setup", []), {}),
            round_start=self.effects(("round", "start"), rnd["start"], {}),
            actions=actions,
            round_end=self.conditions(("round", "end"), rnd["end"]),
            scoring=self.effects(("round", "scoring"), rnd.get("scoring", []), {}),
            measure=measure,
            game_end=self.conditions(("game_end", "when"), g["game_end"]["when"]),
            winners=self.expr_item(("game_end", "winners"), g["game_end"]["winners"],
                                   list_of(PLAYER)),
            game_measure=(self.expr_item(("game_end", "measure"), g["game_end"]["measure"], INT)
                          if "measure" in g["game_end"] else None),
            score=self.expr_item(("score",), g["score"], INT, p_env),
            invariants=self.conditions(("invariants",), g.get("invariants", [])),
            expectations=self.expectations(),
        )

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
            if a["id"] in seen:
                raise self.err((*path, "id"), f"ambiguity id {a['id']!r} is used twice")
            seen.add(a["id"])
            if a["default"] not in a["variants"]:
                raise self.err((*path, "default"), f"default {a['default']!r} is not one of the "
                                                   f"variants: {', '.join(a['variants'])}")
            variants = tuple(ir.Variant(n, dict(v["set"]), v["reading"])
                             for n, v in a["variants"].items())
            cite = self.check_cites((*path, "cite"), a.get("cite"))
            out.append(ir.Ambiguity(a["id"], a["kind"], a["question"], cite, variants,
                                    a["default"], a["rationale"], a.get("example")))
            self.chosen[a["id"]] = a["default"]
        for key, name in self.requested.items():
            amb = next((a for a in out if a.id == key), None)
            if amb is None:
                known = ", ".join(a.id for a in out) or "none"
                raise SpecError(Where(self.doc.file), f"no ambiguity {key!r} in this spec; "
                                                      f"known: {known}")
            if name not in {v.name for v in amb.variants}:
                raise SpecError(Where(self.doc.file), f"ambiguity {key} has no variant {name!r}; "
                                f"variants: {', '.join(v.name for v in amb.variants)}")
            self.chosen[key] = name
        return tuple(out)

    def resolve_params(self, ambiguities: tuple[ir.Ambiguity, ...]) -> dict[str, tuple[Any, Type]]:
        raw = dict(self.d.get("params", {}))
        values: dict[str, Any] = {}
        exprs: dict[str, str] = {}
        for name, p in raw.items():
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
                        raise self.err(("ambiguities", i, "variants", v.name, "set"),
                                       f"variant sets unknown param {key!r}; declare it under "
                                       "params")
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
            for i, k in enumerate(c["kinds"]):
                path = (cls, "kinds", i)
                if k["name"] in self.scope.kind_index:
                    raise self.err((*path, "name"), f"kind {k['name']!r} is declared twice")
                values = {}
                for attr, typ in self.scope.kind_attrs.items():
                    if attr in k:
                        if attr not in declared:
                            raise self.err((*path, attr), f"{attr} is not an attribute of {cls}")
                        values[attr] = self.attr_value((*path, attr), typ, k[attr])
                    else:
                        values[attr] = _default(typ, self.scope.enums)
                for key in k:
                    if key not in values and key not in _RESERVED_ATTRS:
                        raise self.err((*path, key), f"unknown attribute {key!r}; declared "
                                       f"attributes of {cls}: {', '.join(declared) or 'none'}")
                copies = k["copies"]
                if isinstance(copies, str):
                    parsed = self.parser((*path, "copies")).expression(copies, None, INT)
                    copies = const_eval(parsed, self.players,
                                        lambda m, p=path: self.err((*p, "copies"), m))
                if copies < 0:
                    raise self.err((*path, "copies"), "copies cannot be negative")
                self.scope.kind_index[k["name"]] = len(kinds)
                kinds.append(ir.Kind(k["name"], cls, copies, values, k.get("start", c["start"])))
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
        self.scope.builtins["cards"] = list_of(KIND)
        self.scope.builtins["tokens"] = list_of(KIND)
        return tuple(kinds)

    def attr_type(self, attr: str, t: Any) -> Type:
        if t == "int":
            return INT
        if t == "bool":
            return BOOL
        if t == "list":
            return list_of(INT)
        self.scope.enums[attr] = tuple(t)
        return Type("str", ref=attr)

    def attr_value(self, path: PathKey, typ: Type, value: Any) -> Any:
        ok = {"int": lambda v: isinstance(v, int) and not isinstance(v, bool),
              "bool": lambda v: isinstance(v, bool),
              "list": lambda v: isinstance(v, list) and all(
                  isinstance(x, int) and not isinstance(x, bool) for x in v),
              "str": lambda v: isinstance(v, str) and v in self.scope.enums[typ.ref]}
        if not ok[typ.name](value):
            raise self.err(path, f"expected {typ}, found {value!r}")
        return tuple(value) if typ.name == "list" else value

    # ---------------------------------------------------------- zones, vars
    def zones(self) -> None:
        for name, z in self.d["zones"].items():
            self.check_cites(("zones", name, "cite"), z.get("cite"))
            self.scope.zones[name] = ir.ZoneDecl(name, z["order"], z.get("per"), z["holds"])

    def indices(self) -> tuple[ir.IndexSet, ...]:
        out = []
        for name, spec in self.d.get("indices", {}).items():
            attrs_ = {}
            for attr, values in spec.get("attributes", {}).items():
                path = ("indices", name, "attributes", attr)
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
                        self.scope.enums[ref] = tuple(dict.fromkeys(map(str, values)))
                        t = Type("str", ref=ref)
                self.scope.index_attr_types[(name, attr)] = t
                attrs_[attr] = tuple(values)
            idx = ir.IndexSet(name, spec["size"], attrs_)
            self.scope.indices[name] = idx
            out.append(idx)
        for zname, z in self.scope.zones.items():
            if z.per not in (None, "player") and z.per not in self.scope.indices:
                raise self.err(("zones", zname, "per"), f"per must be player or an index set, "
                                                        f"found {z.per!r}")
        return tuple(out)

    def vars(self) -> tuple[ir.VarDecl, ...]:
        for name, t in BUILTIN_VARS.items():
            self.scope.vars[name] = (t, None)
        decls = []
        for name, v in self.d.get("vars", {}).items():
            path = ("vars", name)
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
            name = m.group(1)
            params = tuple(p.strip() for p in (m.group(2) or "").split(",") if p.strip())
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

    # ----------------------------------------------------------------- rules
    def conditions(self, path: PathKey, items: list) -> tuple[ir.Condition, ...]:
        out = []
        for i, c in enumerate(items):
            cite = self.check_cites((*path, i, "cite"), c.get("cite"))
            out.append(ir.Condition(c["name"], self.expr((*path, i, "when"), c["when"], BOOL),
                                    cite))
        return tuple(out)

    def action(self, name: str, a: dict) -> ir.ActionDecl:
        path = ("actions", name)
        cite = self.check_cites((*path, "cite"), a["cite"])
        env: dict[str, ir.Expr] = {}
        params = []
        for pname, domain in a.get("params", {}).items():
            ppath = (*path, "params", pname)
            if not re.fullmatch(r"[a-z][a-z0-9_]*", pname):
                raise self.err(ppath, f"a parameter is a lower-case name, found {pname!r}")
            dom = self.expr(ppath, domain, None, env)
            if dom.type.name == "zone":
                dom = ir.Call("kinds", (dom,), list_of(KIND))
            if dom.type.name != "list":
                raise self.err(ppath, f"a parameter's domain is a list or a zone, found {dom.type}")
            params.append((pname, dom))
            env[pname] = ir.Local(pname, dom.type.of or Type("any"))
        for field in re.findall(r"\{([^}]*)\}", a["say"]):
            if field not in env:
                raise self.err((*path, "say"), f"{{{field}}} is not a parameter of {name}")
        for pname in env:
            if f"{{{pname}}}" not in a["say"]:
                raise self.err((*path, "say"), f"say must show every parameter; add {{{pname}}}")
        when = self.expr((*path, "when"), a["when"], BOOL, env)
        effects = self.effects((*path, "effects"), a["effects"], env)
        return ir.ActionDecl(name, a["say"], tuple(params), when, effects, cite,
                             self.doc.where(path))

    def effects(self, path: PathKey, items: list, env: dict[str, ir.Expr]
                ) -> tuple[ir.Stmt, ...]:
        out: list[ir.Stmt] = []
        for i, item in enumerate(items):
            p = (*path, i)
            where = self.doc.where(p)
            if isinstance(item, str):
                out.append(self.parser(p).statement(item, env, ()))
                continue
            cite = self.check_cites((*p, "cite"), item.get("cite"))
            if "if" in item:
                test = self.expr((*p, "if"), item["if"], BOOL, env)
                out.append(ir.If(where, cite, test, self.effects((*p, "then"), item["then"], env),
                                 self.effects((*p, "else"), item.get("else", []), env)))
            elif "for" in item:
                m = re.fullmatch(r"\s*([a-z][a-z0-9_]*)\s+in\s+(.+)", item["for"], re.S)
                if not m:
                    raise self.err((*p, "for"), "expected 'name in list', e.g. 'p in players'")
                it = self.expr((*p, "for"), m.group(2), None, env)
                if it.type.name == "zone":
                    it = ir.Call("kinds", (it,), list_of(KIND))
                if it.type.name != "list":
                    raise self.err((*p, "for"), f"can only loop over a list, found {it.type}")
                inner = {**env, m.group(1): ir.Local(m.group(1), it.type.of or Type("any"))}
                out.append(ir.For(where, cite, m.group(1), it,
                                  self.effects((*p, "do"), item["do"], inner)))
            elif "repeat" in item:
                n = self.expr((*p, "repeat"), item["repeat"], INT, env)
                out.append(ir.Repeat(where, cite, n, self.effects((*p, "do"), item["do"], env)))
            elif "while" in item:
                test = self.expr((*p, "while"), item["while"], BOOL, env)
                out.append(ir.While(where, cite, test, item["max"],
                                    self.effects((*p, "do"), item["do"], env)))
            else:
                out.append(self.parser((*p, "do")).statement(item["do"], env, cite))
        return tuple(out)

    def expectations(self) -> tuple[ir.Expectation, ...]:
        out = []
        for e in self.d.get("expect", []):
            out.append(ir.Expectation(e["property"], e["result"], e["reason"],
                                      tuple(e.get("players", ())), dict(e.get("variants", {})),
                                      str(e.get("clause", "")), e.get("witness")))
        return tuple(out)


def _default(t: Type, enums: dict[str, tuple[str, ...]]) -> Any:
    if t.name == "str":
        return enums[t.ref][0]
    return {"int": 0, "bool": False, "list": ()}[t.name]


def const_eval(e: ir.Expr, players: int, fail) -> Any:
    """Evaluate an expression that may only use constants and player_count (params, copies)."""
    match e:
        case ir.Const(value=v):
            return v
        case ir.Builtin(name="player_count"):
            return players
        case ir.Unary(op="not", operand=x):
            return not const_eval(x, players, fail)
        case ir.Unary(op="-", operand=x):
            return -const_eval(x, players, fail)
        case ir.Bin(op=op, left=a, right=b):
            x, y = const_eval(a, players, fail), const_eval(b, players, fail)
            if op in ("//", "%") and y == 0:
                raise fail("division by zero")
            return {"+": x + y, "-": x - y, "*": x * y}.get(op) if op in "+-*" else (
                x // y if op == "//" else x % y)
        case ir.Cmp(op=op, left=a, right=b):
            x, y = const_eval(a, players, fail), const_eval(b, players, fail)
            return {"==": x == y, "!=": x != y, "<": x < y, "<=": x <= y, ">": x > y,
                    ">=": x >= y}[op]
        case ir.BoolOp(op="and", values=vs):
            return all(const_eval(v, players, fail) for v in vs)
        case ir.BoolOp(op="or", values=vs):
            return any(const_eval(v, players, fail) for v in vs)
        case ir.Cond(test=t, body=a, orelse=b):
            return const_eval(a if const_eval(t, players, fail) else b, players, fail)
    raise fail("this value must be computable before the game starts (constants, params and "
               "player_count only)")
