"""Issue 39 item 4: the API page shows ForgegateCallback's arguments (mkdocstrings merges ``__init__`` into the
class, reading its ``:param:`` lines) and lists no sync wrapper that would render as a bare module attribute."""

from __future__ import annotations

import inspect
from pathlib import Path

PAGE = Path(__file__).resolve().parents[1] / "docs" / "reference" / "python-api.md"


def test_every_argument_of_forgegate_callback_is_documented() -> None:
    from forgegate.training.callback import ForgegateCallback

    doc = inspect.getdoc(ForgegateCallback) or ""
    for name in inspect.signature(ForgegateCallback.__init__).parameters:
        if name != "self":
            assert f":param {name}:" in doc, name


def test_the_api_page_documents_functions_with_signatures_not_wrapped_attributes() -> None:
    text = PAGE.read_text(encoding="utf-8")
    members = [line.strip()[2:] for line in text.split("::: forgegate.api", 1)[1].split("##", 1)[0].splitlines()
               if line.strip().startswith("- ")]
    assert members and "evaluate" not in members and "run_plan" not in members  # wrappers without a signature
    assert "`forgegate.evaluate(...)`" in text and "`forgegate.run_plan(path, *, store=None" in text
