"""Issue 45: the reference pages the docs link to are committed, and a test says when they go stale.

They were made only in a built site, so five links of the Quickstart, the first-gate page and the concepts
(battery format, gate config, command line, failure modes, eval result) led nowhere on a checkout.
``docs/gen/write_reference.py`` writes them from the code; this test fails, naming that command, when a page on
disk is not what the code makes now (or is no longer made).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]


def writer() -> ModuleType:
    name = "forgegate_docs_write_reference"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO / "docs" / "gen" / "write_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_the_committed_reference_pages_are_what_the_code_makes_now() -> None:
    write = writer()
    stale = write.stale_files(write.committed_pages())
    assert not stale, (f"{len(stale)} generated reference page(s) stale: {', '.join(stale[:8])}; "
                       f"run `{write.COMMAND}` and commit the pages")


def test_the_five_pages_the_docs_link_to_are_among_them() -> None:
    pages = writer().committed_pages()
    for page in ("reference/formats/battery.md", "reference/formats/gate-config.md", "reference/cli.md",
                 "reference/failure-modes.md", "reference/results/eval.md"):
        assert page in pages and (REPO / "docs" / page).is_file(), page


def test_a_changed_page_is_found_stale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write = writer()
    pages = write.committed_pages()
    monkeypatch.setattr(write, "DOCS", tmp_path)
    for path, text in pages.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    assert write.stale_files(pages) == []
    (tmp_path / "reference" / "cli.md").write_text("old", encoding="utf-8")
    (tmp_path / "reference" / "results" / "gone.md").write_text("a kind no longer made", encoding="utf-8")
    assert write.stale_files(pages) == ["reference/cli.md", "reference/results/gone.md"]
