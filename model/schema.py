"""Validation of a spec file against `spec/spec.schema.json`, with positioned errors.

The specs of `spec/`, their schema and the rulebooks they cite ship with the package
(installed as `model/spec/`); in a source checkout they are read from `spec/` beside
`model/`. `SPEC_DIR` is whichever of the two this copy of the package has.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any, cast

import jsonschema
from jsonschema.exceptions import ValidationError

from .errors import SpecError
from .limits import IDENTIFIER, short
from .source import Located


def _spec_dir() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here / "spec", here.parent / "spec"):
        if (candidate / "spec.schema.json").is_file():
            return candidate
    return here.parent / "spec"  # a broken install: reading the schema says what is missing


SPEC_DIR = _spec_dir()
SCHEMA_PATH = SPEC_DIR / "spec.schema.json"


def _is_integer(checker: jsonschema.TypeChecker, instance: object) -> bool:
    # JSON Schema counts 1.0 as an integer and Python counts True as one; a spec may not.
    return isinstance(instance, int) and not isinstance(instance, bool)


@cache
def _validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    base = jsonschema.validators.validator_for(schema)
    strict = jsonschema.validators.extend(  # type: ignore[no-untyped-call]  # untyped in its stubs
        base, type_checker=base.TYPE_CHECKER.redefine("integer", _is_integer))
    return cast(jsonschema.protocols.Validator, strict(schema))


def validate(doc: Located) -> None:
    """Raise a SpecError naming the first (most relevant) schema violation."""
    if not isinstance(doc.data, dict):
        raise doc.error((), "a spec file must be a mapping of sections (game, cards, zones, ...)")
    errors = list(_validator().iter_errors(doc.data))
    if not errors:
        return
    error = _settle(max(errors, key=_relevance))
    path = tuple(error.absolute_path)
    if error.validator == "additionalProperties":
        raise SpecError(doc.key_where((*path, _extra_keys(error)[0])), _explain(error, path))
    bad_key = _bad_key(error)
    if bad_key is not None:
        raise SpecError(doc.key_where((*path, bad_key)), _explain(error, path, what="key"))
    raise doc.error(path, _explain(error, path))


def _settle(error: ValidationError) -> ValidationError:
    """The error a oneOf or anyOf comes down to: the one of the alternative the value was
    meant for (the mapping form whose required keys it has, not the plain-text form it is
    not), repeated through nested alternatives."""
    while error.validator in ("oneOf", "anyOf") and error.context:
        sub = [e for e in error.context if e.validator != "not"]
        chosen = _chosen_branch(error)
        if chosen is not None:
            sub = [e for e in sub if e.relative_schema_path[0] == chosen] or sub
        sub = [e for e in sub if not _other_type(e, error)] or sub
        if not sub:
            break
        error = max(sub, key=_relevance)
    return error


def _other_type(branch: ValidationError, parent: ValidationError) -> bool:
    """Whether an alternative failed only because the value is of another type (text
    where a mapping is written): it says least about what is wrong."""
    return branch.validator == "type" and list(branch.absolute_path) == list(
        parent.absolute_path)


def _schema(error: ValidationError) -> Mapping[str, Any]:
    """The part of the schema an error is about (every part the spec's schema has that
    an error can name is a mapping; `true`/`false` schemas have no keywords)."""
    return error.schema if isinstance(error.schema, Mapping) else {}


def _value(error: ValidationError) -> Any:
    """The value of the keyword that failed (`maximum`'s limit, `enum`'s list, ...)."""
    return error.validator_value


def _extra_keys(error: ValidationError) -> list[str]:
    """The keys an `additionalProperties: false` mapping has but may not, as written."""
    allowed = _schema(error).get("properties", {})
    keys: Any = error.instance  # the mapping that has them
    return [k for k in keys if k not in allowed]


def _bad_key(error: ValidationError) -> str | None:
    """The mapping key a `propertyNames` violation is about (else None)."""
    if "propertyNames" not in error.absolute_schema_path:
        return None
    return error.instance if isinstance(error.instance, str) else None


def _relevance(error: ValidationError) -> tuple[bool, int, bool]:
    # Prefer unknown keys and missing keys (clear to fix) and deep errors over vague oneOf.
    vague = error.validator in ("oneOf", "anyOf")
    return (not vague, len(error.absolute_path), error.validator in ("additionalProperties",
                                                                      "required"))


def _explain(error: ValidationError, path: tuple[Any, ...], what: str = "") -> str:
    where = _path_text(path)
    if what:
        where = f"a {what} in {where}"
    if error.validator == "additionalProperties":
        allowed = sorted(_schema(error).get("properties", {}))
        return (f"unknown key {short(_extra_keys(error)[0])} in {where}; expected one of: "
                + ", ".join(allowed))
    if error.validator == "required":
        return f"{where}: {error.message.replace('is a required property', 'is required')}"
    if error.validator == "type":
        want = _value(error)
        want = " or ".join(want) if isinstance(want, list) else want
        return f"{where}: expected {want}, found {short(error.instance)}"
    if error.validator == "pattern":
        form = _schema(error).get("description") or _value(error)
        return f"{where}: {short(error.instance)} does not have the expected form: {form}"
    if error.validator == "enum":
        return (f"{where}: expected one of {', '.join(map(str, _value(error)))}, found "
                f"{short(error.instance)}")
    if error.validator in ("maximum", "minimum"):
        word = "over the limit" if error.validator == "maximum" else "under the minimum"
        limit = _schema(error).get("description", "")
        return (f"{where}: {short(error.instance)} is {word} of {error.validator_value:,}"
                + (f" ({limit})" if limit else ""))
    if error.validator == "maxItems":
        items = error.instance if isinstance(error.instance, list) else []
        return f"{where}: {len(items)} items, over the limit of {error.validator_value}"
    if error.validator == "maxLength":
        return (f"{where}: {short(error.instance)} is longer than the limit of "
                f"{error.validator_value} characters")
    return f"{where}: {error.message[:200]}"


def _chosen_branch(error: ValidationError) -> int | None:
    """The alternative of a oneOf a mapping was meant for: the one whose required keys it
    has, most of them (`{while: ..., max: ..., do: ...}` is a while loop, so its errors are
    the while loop's, not those of a plain `{do: ...}`)."""
    if not isinstance(error.instance, dict):
        return None
    best, most = None, 0
    for i, branch in enumerate(_value(error)):
        required = branch.get("required", []) if isinstance(branch, dict) else []
        if required and all(k in error.instance for k in required) and len(required) > most:
            best, most = i, len(required)
    if best is not None:
        return best
    # none has all its keys: the one with most of them (a generated kind without copies is
    # a generated kind, not a plain kind with a strange name)
    for i, branch in enumerate(_value(error)):
        required = branch.get("required", []) if isinstance(branch, dict) else []
        present = sum(k in error.instance for k in required)
        if present > most:
            best, most = i, present
    return best


def _path_text(path: tuple[Any, ...]) -> str:
    """A path in the document as an error shows it (untrusted keys quoted and cut)."""
    parts = [str(p) if isinstance(p, int) or IDENTIFIER.fullmatch(p) else short(p)
             for p in path]
    return "/".join(parts) or "the top level"


def check_file(path: Path) -> SpecError | None:
    """Validate a file without loading it further (used by tests of the schema itself)."""
    from .source import read_yaml

    try:
        validate(read_yaml(path))
    except SpecError as exc:
        return exc
    return None
