"""From a YAML spec file to the typed IR (`model.ir.GameIR`).

The loader validates the file against the JSON Schema, resolves the chosen variant
of every ambiguity into parameter values, numbers the card and token kinds, and
parses every expression and effect against the declared names. Every mistake is a
`SpecError` with file, line and column.

`_Loader` puts together the readers of a spec's sections: `model.readings`
(ambiguities, params, clarifications), `model.kinds` (cards and tokens, generated kinds
included), `model.procedures` (effects, procedures expanded), `model.tricks` (a trick
zone and the names it brings, desugared), on `model.reader`'s shared
helpers; it reads the zones, index sets, variables, defs, actions and rules itself.
"""

from __future__ import annotations

import functools
import string
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import attrs

from . import ir, schema, work
from .constant import const_eval
from .errors import SpecError, Where
from .expr import Def, ExprParser, Scope
from .fold import fold
from .joint import JointReader
from .kinds import KindsReader
from .limits import (
    MAX_ACTION_PARAMS,
    MAX_ACTIONS,
    MAX_INT,
    MAX_VAR_SLOTS,
    MAX_ZONE_SLOTS,
    identifier_problem,
    over,
    short,
)
from .procedures import EffectsReader
from .readings import ReadingsReader
from .rulebooks import RULEBOOKS, find_rulebook, rulebook_folders, rulebook_length
from .source import Located, PathKey, read_text, read_yaml
from .types import BOOL, INT, KIND, PLAYER, Type, list_of

__all__ = ["BUILTIN_VARS", "REMEMBERED", "RULEBOOKS", "any_player_count", "const_eval",
           "find_rulebook", "load_ir", "parse_condition", "resolve_spec_path",
           "rulebook_folders", "rulebook_length"]

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


def parse_condition(spec: str | Path, text: str, *, players: int,
                    variants: Mapping[str, str] | None = None) -> ir.Expr:
    """A yes/no expression over a spec's names (zones, vars, params, defs), such as a rule
    designer writes for `rulespec query`; errors point into the condition's text."""
    loader = _Loader(_read_spec(resolve_spec_path(spec)), players, dict(variants or {}))
    loader.build()
    parser = ExprParser(loader.scope, lambda offset: Where("<condition>", 1, offset + 1))
    return parser.expression(text, None, BOOL)


class _Loader(ReadingsReader, KindsReader, EffectsReader, JointReader):
    """Reads a whole spec, for one player count and choice of variants, into its IR."""

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
        self.kind_list = kinds
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
        vars_ = vars_ + self.trick_vars(self.var_slots)
        self.defs()
        self.procedures()
        g = self.d
        rnd = g["round"]
        if len(g["actions"]) > MAX_ACTIONS:
            raise self.err(("actions",), over("max_actions", "the number of actions",
                                              len(g["actions"])))
        actions = tuple(self.action(name, a) for name, a in g["actions"].items())
        automatic = self.automatic()
        if automatic is not None:  # engine work after every action, within its step
            actions = tuple(attrs.evolve(a, effects=(*a.effects, automatic)) for a in actions)
        p_env = {"p": ir.Local("p", PLAYER)}
        measure = None
        if "measure" in rnd:
            measure = self.expr_item(("round", "measure"), rnd["measure"], INT)
        ambiguities = self.claims(ambiguities)
        setup = self.effects(("setup",), g.get("setup", []), {})
        round_start = self.effects(("round", "start"), rnd["start"], {})
        if automatic is not None:  # and after the deal
            round_start = (*round_start, automatic)
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
            score_provisional=(g["score"].get("provisional", "score")
                               if isinstance(g["score"], dict) else "score"),
            clarifications=self.clarifications(ambiguities),
        )
        self.check_joint(game)
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

    # ---------------------------------------------------------- zones, vars
    def zones(self) -> None:
        for name, z in self.d["zones"].items():
            self.ident(("zones", name), name, "a zone's name")
            self.check_cites(("zones", name, "cite"), z.get("cite"))
            if "trick" in z:  # one pile per player (model.tricks)
                z = self.trick_zone(name, z)
            elif "order" not in z:
                raise self.err(("zones", name), "a zone needs order: pile or order: bag "
                                                "(or trick:, docs/spec-language.md#tricks)")
            sees, top = self.visibility(name, z)
            self.scope.zones[name] = ir.ZoneDecl(name, z["order"], z.get("per"), z["holds"],
                                                 sees, top)

    def visibility(self, name: str, z: dict[str, Any]) -> tuple[str, str | None]:
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

    def index_names(self, name: str, spec: dict[str, Any]) -> tuple[str, ...]:
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
            path: PathKey = ("vars", name)
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
            path = ("defs", key)
            name, params = self.signature(path, key, "a def")
            text = value["expr"] if isinstance(value, dict) else value
            tpath = (*path, "expr") if isinstance(value, dict) else path
            if isinstance(value, dict):
                self.check_cites((*path, "cite"), value.get("cite"))
            if name in self.scope.defs or name in self.scope.vars or name in self.scope.zones:
                raise self.err(path, f"{name!r} is already a name")
            self.scope.defs[name] = Def(name, params, text,
                                        functools.partial(self.doc.where, tpath))
        given = self.trick_defs()  # read where used: can_follow's zone has no type before
        # Parse every def once (with its parameters untyped) so a broken def is reported even
        # if nothing uses it.
        for d in self.scope.defs.values():
            if d.name in given:
                continue
            env = {p: ir.Local(p, Type("any")) for p in d.params}
            ExprParser(self.scope, d.where).expression(d.text, env)

    # ----------------------------------------------------------------- rules
    def conditions(self, path: PathKey, items: list[Any],
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
        out: list[tuple[ir.VarDecl, ir.Stmt]] = []
        for i, c in enumerate(round_end):
            var = REMEMBERED + c.name
            if var not in names:
                continue
            target = ir.Var(var, None, BOOL)
            out.append((ir.VarDecl(var, BOOL, None, ir.Const(False, BOOL)),
                        ir.Assign(self.doc.where(("round", "end", i, "when")), c.cite, target,
                                  "=", c.expr)))
        return out

    def automatic(self) -> ir.While | None:
        """The automatic steps (docs/spec-language.md#automatic-steps) as one bounded loop:
        while one's condition holds, the first that holds runs; at most their max together."""
        items = self.d.get("automatic", [])
        if not items:
            return None
        steps = []
        for i, a in enumerate(items):
            path = ("automatic", i)
            self.ident((*path, "name"), a["name"], "an automatic step's name", False)
            if a["name"] in self.d["actions"] or any(b["name"] == a["name"] for b in items[:i]):
                raise self.err((*path, "name"), f"{a['name']!r} is already the name of an "
                                                "action or automatic step")
            cite = self.check_cites((*path, "cite"), a["cite"])
            self.bounded((*path, "max"), a["max"], "max_while", "an automatic step's max",
                         low=1)
            when = self.expr((*path, "when"), a["when"], BOOL, {})
            effects = self.effects((*path, "effects"), a["effects"], {}, loop=True)
            steps.append((when, effects, cite, self.doc.where(path)))
        total = self.bounded(("automatic",), sum(a["max"] for a in items), "max_while",
                             "the automatic steps' max together", low=1)
        body: tuple[ir.Stmt, ...] = ()
        for when, effects, cite, where in reversed(steps):  # the first that holds
            body = (ir.If(where, cite, when, effects, body),)
        whens = tuple(when for when, _, _, _ in steps)
        test = whens[0] if len(whens) == 1 else ir.BoolOp("or", whens, BOOL)
        return ir.While(self.doc.where(("automatic",)), (), test, total, body)

    def action(self, name: str, a: dict[str, Any]) -> ir.ActionDecl:
        path = ("actions", name)
        self.ident(path, name, "an action's name", False)
        cite = self.check_cites((*path, "cite"), a["cite"])
        if len(a.get("params", {})) > MAX_ACTION_PARAMS:
            raise self.err((*path, "params"), over("max_action_params", f"the number of "
                                                   f"parameters of {name}", len(a["params"])))
        if a.get("simultaneous"):  # every seat chooses at once (model.joint)
            return self.joint_action(name, a, cite)
        env: dict[str, ir.Expr] = {}
        params = self.action_params(path, a, env)
        self.check_say((*path, "say"), a["say"], name, env)
        when = self.expr((*path, "when"), a["when"], BOOL, env)
        effects = self.effects((*path, "effects"), a["effects"], env)
        return ir.ActionDecl(name, a["say"], tuple(params), when, effects, cite,
                             self.doc.where(path))

    def action_params(self, path: PathKey, a: dict[str, Any], env: dict[str, ir.Expr],
                      rename: Callable[[str], str] | None = None) -> list[tuple[str, ir.Expr]]:
        """An action's parameters with their domains, each bound in `env` as it is read (a
        later domain may read an earlier parameter); `rename`: the IR's name for one."""
        params = []
        for pname, domain in a.get("params", {}).items():
            ppath = (*path, "params", pname)
            self.ident(ppath, pname, "a parameter's name")
            dom = self.expr(ppath, domain, None, env)
            if dom.type.name == "zone":
                dom = ir.Call("kinds", (dom,), list_of(KIND))
            if dom.type.name != "list":
                raise self.err(ppath, f"a parameter's domain is a list or a zone, found {dom.type}")
            local = rename(pname) if rename is not None else pname
            params.append((local, dom))
            env[pname] = ir.Local(local, dom.type.of or Type("any"))
        return params

    def check_say(self, path: PathKey, say: str, name: str, env: Mapping[str, Any]) -> None:
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
        names = [f for f, _, _ in fields]
        for pname in env:
            if names.count(pname) != 1:
                raise self.err(path, f"say must show every parameter once; {{{pname}}} is there "
                                     f"{names.count(pname)} times")

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

