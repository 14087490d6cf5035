"""Validation of a spec file against `spec/spec.schema.json`, with positioned errors."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import jsonschema
from jsonschema.exceptions import ValidationError, best_match

from .errors import SpecError
from .source import Located

SPEC_DIR = Path(__file__).resolve().parent.parent / "spec"
SCHEMA_PATH = SPEC_DIR / "spec.schema.json"


@cache
def _validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


def validate(doc: Located) -> None:
    """Raise a SpecError naming the first (most relevant) schema violation."""
    if not isinstance(doc.data, dict):
        raise doc.error((), "a spec file must be a mapping of sections (game, cards, zones, ...)")
    errors = list(_validator().iter_errors(doc.data))
    if not errors:
        return
    error = best_match(errors, key=_relevance)
    path = tuple(error.absolute_path)
    raise doc.error(path, _explain(error, path))


def _relevance(error: ValidationError):
    # Prefer unknown keys and missing keys (clear to fix) and deep errors over vague oneOf.
    vague = error.validator in ("oneOf", "anyOf")
    return (not vague, len(error.absolute_path), error.validator in ("additionalProperties",
                                                                      "required"))


def _explain(error: ValidationError, path: tuple) -> str:
    where = "/".join(str(p) for p in path) or "the top level"
    if error.validator == "additionalProperties":
        allowed = sorted(error.schema.get("properties", {}))
        extra = sorted(set(error.instance) - set(allowed))
        return (f"unknown key {', '.join(map(repr, extra))} in {where}; expected one of: "
                + ", ".join(allowed))
    if error.validator == "required":
        return f"{where}: {error.message.replace('is a required property', 'is required')}"
    if error.validator == "type":
        want = error.validator_value
        want = " or ".join(want) if isinstance(want, list) else want
        return f"{where}: expected {want}, found {json.dumps(error.instance)[:60]}"
    if error.validator == "pattern":
        return f"{where}: {error.instance!r} does not have the expected form {error.validator_value}"
    if error.validator == "enum":
        return f"{where}: expected one of {', '.join(map(str, error.validator_value))}, found " \
               f"{error.instance!r}"
    if error.validator in ("oneOf", "anyOf"):
        sub = [e for e in (error.context or []) if e.validator != "not"]
        if sub:
            inner = best_match(sub, key=_relevance)
            return _explain(inner, tuple(inner.absolute_path))
    return f"{where}: {error.message}"


def check_file(path: Path) -> SpecError | None:
    """Validate a file without loading it further (used by tests of the schema itself)."""
    from .source import read_yaml

    try:
        validate(read_yaml(path))
    except SpecError as exc:
        return exc
    return None
