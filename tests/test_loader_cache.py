"""A spec's YAML is parsed once per text, however many player counts and variants
are compiled from it; an edited file is read afresh."""

from __future__ import annotations

from pathlib import Path

import model
from model import loader

LAMA = Path(__file__).resolve().parent.parent / "spec" / "lama.yaml"


def test_same_text_is_parsed_once_and_an_edit_is_seen(tmp_path, monkeypatch):
    calls = []
    real = loader.read_yaml

    def counting(path, text=None):
        calls.append(path)
        return real(path, text)

    monkeypatch.setattr(loader, "read_yaml", counting)
    spec = tmp_path / "copy.yaml"
    text = LAMA.read_text(encoding="utf-8")
    spec.write_text(text, encoding="utf-8")
    a = model.load_ir(spec, players=3)
    b = model.load_ir(spec, players=4, variants={"chip_exchange": "never"})
    assert len(calls) == 1
    assert (a.players, b.players) == (3, 4) and b.chosen["chip_exchange"] == "never"
    spec.write_text(text.replace("value: 40,", "value: 50,"), encoding="utf-8")
    c = model.load_ir(spec, players=3)
    assert len(calls) == 2
    assert c.params["end_points"] == 50
