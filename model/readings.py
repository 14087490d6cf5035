"""The readings of a spec: its ambiguities (each variant a reading of the rules, one
chosen per load), the params they set, and its clarifications. The chosen variants
give the params their values; `parts_only_when` claims are parsed once every name of
the spec is known."""

from __future__ import annotations

import functools
from typing import Any

import attrs

from . import ir
from .constant import const_eval
from .errors import SpecError, Where
from .expr import ExprParser, Scope
from .limits import MAX_INT, short
from .reader import SpecReader
from .types import BOOL, INT, Type


class ReadingsReader(SpecReader):
    """Reads `ambiguities`, `params` and `clarifications`."""

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
            parsed = ExprParser(scope, functools.partial(self.doc.where, path)).expression(text)
            value = const_eval(parsed, self.players, functools.partial(self.err, path))
            if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_INT:
                raise self.err(path, f"{name} comes to {value:,}, beyond the limit of "
                                     f"+-{MAX_INT:,} (max_int)")
            out[name] = (value, parsed.type)
            scope.params[name] = (value, parsed.type)
        return out
