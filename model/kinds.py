"""The cards and tokens of a spec: their attributes, and their kinds, numbered in
declaration order, each written out or generated (`each`: one kind per combination of
values, named by a template, with attributes and copies computed from the values)."""

from __future__ import annotations

import functools
import itertools
import string
from collections.abc import Iterator, Mapping
from typing import Any

from . import ir
from .constant import const_eval
from .limits import KIND_NAME, MAX_EACH_NAMES, MAX_ITEMS, MAX_KINDS, MAX_NAME_LENGTH, over, short
from .reader import SpecReader
from .source import PathKey
from .types import BOOL, INT, KIND, STR, Type, fits, list_of, ref_of

_RESERVED_ATTRS = {"name", "copies", "start", "each"}


class KindsReader(SpecReader):
    """Reads `cards` and `tokens`: attribute types, then the kinds."""

    def kinds(self) -> tuple[ir.Kind, ...]:
        kinds: list[ir.Kind] = []
        for cls in ("cards", "tokens"):
            if cls not in self.d:
                continue
            c = self.d[cls]
            self.check_cites((cls, "cite"), c["cite"])
            for attr, t in c.get("attributes", {}).items():
                path: PathKey = (cls, "attributes", attr)
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
                                       functools.partial(self.err, (cls, "total")))
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

    def kind_entry(self, path: PathKey, k: dict[str, Any], cls: str, declared: dict[str, Any]
                   ) -> Iterator[tuple[PathKey, dict[str, Any], dict[str, Any], int]]:
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
                                functools.partial(self.err, (*path, "copies")))
        yield (*path, "name"), k, values, copies

    def unknown_keys(self, path: PathKey, k: dict[str, Any], values: dict[str, Any], cls: str,
                     declared: dict[str, Any]) -> None:
        for key in k:
            if key not in values and key not in _RESERVED_ATTRS:
                raise self.key_err((*path, key), f"unknown attribute {short(key)}; declared "
                                   f"attributes of {cls}: {', '.join(declared) or 'none'}")

    def generated_kinds(self, path: PathKey, k: dict[str, Any], cls: str, declared: dict[str, Any]
                        ) -> Iterator[tuple[PathKey, dict[str, Any], dict[str, Any], int]]:
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
        env: dict[str, ir.Expr] = {var: ir.Local(var, t) for var, (_, t) in domains.items()}
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
            kind_values = {}
            for attr, v in values_of.items():
                if isinstance(v, ir.Expr):
                    at = (*path, attr) if attr in k else (*path, "each", attr)
                    v = const_eval(v, self.players, functools.partial(self.err, at), bound)
                    v = self.attr_value(at, self.scope.kind_attrs[attr],
                                        list(v) if isinstance(v, tuple) else v,
                                        f" for {_shown(bound)}")
                kind_values[attr] = v
            n = copies
            if isinstance(n, ir.Expr):
                n = const_eval(n, self.players, functools.partial(self.err, (*path, "copies")),
                               bound)
            yield (*path, "name"), {**k, "name": name}, kind_values, n

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
                                   functools.partial(self.err, (*at, end)))
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
        if typ.name == "str" and value in self.scope.enums[ref_of(typ)]:
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
              "str": lambda v: isinstance(v, str) and v in self.scope.enums[ref_of(typ)]}
        if not ok[typ.name](value):
            raise self.err(path, f"expected {typ}, found {short(value)}{where}")
        return tuple(value) if typ.name == "list" else value


def _default(t: Type, enums: dict[str, tuple[str, ...]]) -> Any:
    if t.name == "str":
        return enums[ref_of(t)][0]
    return {"int": 0, "bool": False, "list": ()}[t.name]


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
