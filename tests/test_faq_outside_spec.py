"""`rulespec faq` on a spec kept outside spec/ (a designer's copy): its clarifications'
examples are played before anything is written, and the pages name the file it read."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from properties.cli import main
from properties.faq import markdown
from properties.faq.entries import GameFaq

ROOT = Path(__file__).resolve().parent.parent


def designer_copy(tmp_path: Path, edit: tuple[str, str] | None = None) -> Path:
    """spec/lama.yaml copied to tmp_path/mine/, with the situations its examples name
    (../tests/situations/lama/) beside it, and `edit` (old, new) made in its text."""
    shutil.copytree(ROOT / "tests" / "situations" / "lama",
                    tmp_path / "tests" / "situations" / "lama")
    text = (ROOT / "spec" / "lama.yaml").read_text(encoding="utf-8")
    if edit is not None:
        assert text.count(edit[0]) == 1
        text = text.replace(*edit)
    (tmp_path / "mine").mkdir()
    copy = tmp_path / "mine" / "my-lama.yaml"
    copy.write_text(text, encoding="utf-8")
    return copy


def test_an_example_the_model_does_not_bear_out_stops_the_faq_and_names_it(
        tmp_path: Path) -> None:
    # the model also allows `draw` here: the example's list of legal actions is wrong
    copy = designer_copy(tmp_path, ("legal: [play 3, draw, quit]", "legal: [play 3, quit]"))
    line = next(n for n, text in enumerate(copy.read_text().splitlines(), 1)
                if "legal: [play 3, quit]" in text) - 1  # the example (its first key)
    out = tmp_path / "faq"
    result = CliRunner().invoke(main, ["faq", str(copy), "--out", str(out)])
    assert result.exit_code == 2, result.output
    assert f"my-lama.yaml:{line}:" in result.output
    assert "clarification draw_instead_of_playing does not hold on the model" in result.output
    assert "draw" in result.output and "Traceback" not in result.output
    assert not out.exists() or not any(out.iterdir())  # nothing written


def test_the_pages_name_the_spec_file_they_were_made_from(tmp_path: Path,
                                                         monkeypatch) -> None:
    copy = designer_copy(tmp_path)
    monkeypatch.chdir(tmp_path)
    faq = GameFaq("lama", "L.L.A.M.A.", copy, ("lama.en",), 4, (), ())
    assert faq.spec_name == "mine/my-lama.yaml"
    assert "from `mine/my-lama.yaml`" in markdown.render(faq)
    packaged = GameFaq("lama", "L.L.A.M.A.", ROOT / "spec" / "lama.yaml", ("lama.en",), 4,
                       (), ())
    assert packaged.spec_name == "spec/lama.yaml"
