"""Packaging: every package of the source tree ships (a non-editable install once lacked
the subpackages of properties/), and so do the specs, their schema and the rulebooks."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_every_python_package_in_the_tree_is_listed() -> None:
    listed = set(_config()["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts)
             for top in ("model", "properties") for p in (ROOT / top).rglob("__init__.py")}
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"


def test_the_specs_schema_and_rulebooks_ship_as_package_data() -> None:
    config = _config()
    folder = {name: ROOT / path for name, path in config["package-dir"].items()}
    data = config["package-data"]
    for spec in (ROOT / "spec").glob("*.yaml"):
        assert any(spec.match(pattern) for pattern in data["model.spec"]), spec
    assert folder["model.spec"] == ROOT / "spec"
    for book in (ROOT / "spec" / "rulebooks").iterdir():
        assert any(book.match(pattern) for pattern in data["model.spec.rulebooks"]), book

