"""An ambiguity of kind `option`: a rule the text offers as a choice (an expert mode),
not a doubt about the text. It loads like any other ambiguity and its variants set
params."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

import model
from model import SpecError

LAMA = Path(__file__).resolve().parent.parent / "spec" / "lama.yaml"


def _with_ambiguity(tmp_path: Path, kind: str) -> Path:
    doc = yaml.safe_load(LAMA.read_text(encoding="utf-8"))
    doc["ambiguities"].append({
        "id": "long_game", "kind": kind, "question": "Play to 40 or to 60 points?",
        "cite": "lama.en#L32",
        "variants": {"short": {"set": {"end_points": 40}, "reading": "40 points end the game."},
                     "long": {"set": {"end_points": 60}, "reading": "60 points end the game."}},
        "default": "short", "rationale": "The rules say 40; 60 is a house option."})
    path = tmp_path / "lama_option.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def test_option_kind_loads_and_selects(tmp_path):
    path = _with_ambiguity(tmp_path, "option")
    assert model.load_ir(path, players=3).params["end_points"] == 40
    g = model.load_ir(path, players=3, variants={"long_game": "long"})
    assert g.params["end_points"] == 60
    assert next(a for a in g.ambiguities if a.id == "long_game").kind == "option"


def test_unknown_kind_is_rejected(tmp_path):
    with pytest.raises(SpecError):
        model.load_ir(_with_ambiguity(tmp_path, "house_rule"), players=3)
