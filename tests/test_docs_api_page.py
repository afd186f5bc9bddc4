"""Issue 39 item 4: the API page shows every public function with its real signature (``evaluate`` and
``run_plan`` included, not as bare module attributes), ForgegateCallback's arguments (mkdocstrings merges
``__init__`` into the class, reading its ``:param:`` lines), and no Sphinx role as raw text."""

from __future__ import annotations

import html
import inspect
import re
from pathlib import Path

import forgegate
import forgegate.api

PAGE = Path(__file__).resolve().parents[1] / "docs" / "reference" / "python-api.md"
API = forgegate._API  # the public functions, named once in forgegate/__init__.py
PAIRS = (("evaluate", "evaluate_async"), ("run_plan", "run_plan_async"))
RAW_ROLE = re.compile(r":(?:param|type|returns?|rtype|raises?|class|func|meth|attr|data|mod|exc)\b[^:\n]*:")


def page_text(built: str) -> str:
    """The built page as a reader sees it: tags dropped, entities decoded, whitespace collapsed."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", built)))


def api_page_problems(built: str) -> list[str]:
    """What is wrong with the built API page (``site/reference/python-api/index.html``); empty when nothing is.

    Called by the strict-build test in ``tests/test_docs_site.py`` (the slow lane), so the site is built once."""
    text = page_text(built)
    problems = [f"raw Sphinx role on the page: {match!r}" for match in RAW_ROLE.findall(text)]
    for name in API:
        parameters = list(inspect.signature(getattr(forgegate.api, name)).parameters)
        # up to the ") ->" that closes this signature, never through another call's "name(" (prose before it)
        shown = re.search(rf"\b{name}\s*\(\s*((?:(?!\b\w+\s*\().)*?)\)\s*->", text)
        if shown is None:
            problems.append(f"{name} is not shown as a function with a signature")
            continue
        problems += [f"{name}'s signature lacks {p}" for p in parameters if not re.search(rf"\b{p}\b", shown[1])]
    from forgegate.training.callback import ForgegateCallback

    table = text.split("ForgegateCallback", 1)[-1].split("Parameters:", 1)
    arguments = [p for p in inspect.signature(ForgegateCallback.__init__).parameters if p != "self"]
    if len(table) < 2:
        problems.append("ForgegateCallback has no Parameters table")
    else:
        problems += [f"ForgegateCallback's argument {p} is not listed" for p in arguments
                     if not re.search(rf"\b{p}\b", table[1])]
    return problems


def test_the_sync_functions_take_exactly_the_keywords_of_their_async_twins() -> None:
    """``evaluate`` and ``run_plan`` are written out (so the page and help() show real signatures): the same
    parameters, kinds, defaults and annotations as ``evaluate_async`` and ``run_plan_async``."""
    for sync_name, async_name in PAIRS:
        sync = inspect.signature(getattr(forgegate.api, sync_name))
        twin = inspect.signature(getattr(forgegate.api, async_name))
        assert list(sync.parameters.values()) == list(twin.parameters.values()), sync_name
        assert sync.return_annotation == twin.return_annotation, sync_name
        assert not inspect.iscoroutinefunction(getattr(forgegate.api, sync_name))


def test_every_argument_of_forgegate_callback_is_documented() -> None:
    from forgegate.training.callback import ForgegateCallback

    doc = inspect.getdoc(ForgegateCallback) or ""
    for name in inspect.signature(ForgegateCallback.__init__).parameters:
        if name != "self":
            assert f":param {name}:" in doc, name


def test_the_api_page_lists_every_public_function() -> None:
    text = PAGE.read_text(encoding="utf-8")
    members = [line.strip()[2:] for line in text.split("::: forgegate.api", 1)[1].split("##", 1)[0].splitlines()
               if line.strip().startswith("- ")]
    assert sorted(members) == sorted(API)


def test_the_checker_catches_a_bare_attribute_a_missing_parameter_and_a_raw_role() -> None:
    """The checker itself, on pages shaped like the broken one the issue describes (no site build here)."""
    broken = ("<h2>evaluate</h2><p>:func:`evaluate_async` from synchronous code.</p>"
              "<h2>run_plan(path, *, store=None) -> PlanRunResult</h2>"
              "<h2>ForgegateCallback</h2><p>Probe each checkpoint.</p>")
    problems = api_page_problems(broken)
    assert "evaluate is not shown as a function with a signature" in problems
    assert "run_plan's signature lacks concurrency" in problems
    assert any(p.startswith("raw Sphinx role") for p in problems)
    assert "ForgegateCallback has no Parameters table" in problems
