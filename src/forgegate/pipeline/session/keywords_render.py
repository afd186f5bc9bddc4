"""Renders ``pipeline/session/keywords.py``: ``forgegate.evaluate``'s keywords as a ``TypedDict`` for type checkers.

A type checker reads source, not a signature made at import (``api.py`` sets ``evaluate.__signature__`` from
:func:`~forgegate.pipeline.session.fields.declared`, which help() and the docs show but mypy cannot see), so the
keywords' static types are a committed file rendered from the same declaration, one key per session option
(``kind`` is the API's ``live``, ``battery`` its positional argument), each typed by
:func:`~forgegate.pipeline.session.fields.keyword_type` exactly as the runtime signature types it.
``tests/test_session_keywords.py`` renders it again and fails when the committed file differs.

Regenerate after changing ``SessionFields``: ``python -m forgegate.pipeline.session.keywords_render``.
"""

from __future__ import annotations

import importlib
import types
import typing
from pathlib import Path
from typing import Any

from forgegate.pipeline.session.fields import declared, keyword_type

TARGET = Path(__file__).with_name("keywords.py")
"""The generated module."""
COMMAND = "python -m forgegate.pipeline.session.keywords_render"
"""How to regenerate it (named in its header and in the test's failure)."""
NOT_KEYWORDS = ("kind", "battery")
"""Session options that are not ``**options`` keywords: ``kind`` is ``live=``, ``battery`` the first argument."""


def _text(annotation: Any, imports: set[tuple[str, str]]) -> str:
    """``annotation`` as source text, noting in ``imports`` each ``(module, name)`` the text needs."""
    if annotation is type(None):
        return "None"
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(_text(member, imports) for member in typing.get_args(annotation))
    if origin is not None:
        return f"{_text(origin, imports)}[{', '.join(_text(arg, imports) for arg in typing.get_args(annotation))}]"
    if annotation.__module__ != "builtins":
        imports.add((_public_module(annotation), annotation.__qualname__))
    return str(annotation.__qualname__)


def _public_module(obj: Any) -> str:
    """The shortest module path that exports ``obj``: ``pathlib`` for ``Path`` even where it is defined in
    ``pathlib._local`` (Python 3.13), so the rendering does not depend on the interpreter."""
    parts = obj.__module__.split(".")
    for end in range(1, len(parts) + 1):
        module = ".".join(parts[:end])
        if getattr(importlib.import_module(module), obj.__qualname__, None) is obj:
            return module
    return str(obj.__module__)


def render() -> str:
    """The text of ``pipeline/session/keywords.py`` for the session options declared now."""
    imports: set[tuple[str, str]] = {("typing", "TypedDict")}
    keys = [f"    {option.name}: {_text(keyword_type(option), imports)}"
            for option in declared() if option.name not in NOT_KEYWORDS]
    modules = sorted({module for module, _ in imports})
    import_lines = [f"from {module} import {', '.join(sorted(n for m, n in imports if m == module))}"
                    for module in modules]
    return "\n".join([
        '"""``forgegate.evaluate``\'s keywords for type checkers (PEP 692): one key per session option.',
        "",
        "GENERATED from ``forgegate.pipeline.session.fields.SessionFields`` by",
        f"``{COMMAND}``: do not edit. tests/test_session_keywords.py",
        "renders it again and fails when this file differs (an option added without regenerating).",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        *import_lines,
        "",
        "",
        "class SessionKeywords(TypedDict, total=False):",
        '    """The keywords ``forgegate.evaluate`` and ``evaluate_async`` take besides ``battery`` and ``live``;',
        '    defaults, help and the checks are the session options\' (``SessionOptions``)."""',
        "",
        *keys,
        "",
    ])


def main() -> None:
    """Write the rendering over the committed module."""
    TARGET.write_text(render(), encoding="utf-8")
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
