"""``report/`` and ``view/`` read a results model's attributes, not string keys of a dict (issue 34, item 3).

The count is taken from the source (AST): a subscript with a string constant (``x["gate"]``) and a
``.get("...")`` call. What a web page reads from the request it answers (its URL, query string, form and
headers) and what it hands its template are not result data; they are named below and left out. Every other
such lookup is a place where a renderer reads result data by string key, and there are none left (``LEFT_TO_DO``
is empty): one added fails the test.
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "forgegate"

REQUEST_PARTS = frozenset({"request.path_params", "request.query_params", "request.headers", "query", "fields",
                           "context", "env.filters"})
"""Receivers that are a page's request (URL, query string, submitted form, headers) or its template context."""
SHEET_ROWS = {"view/sheets.py": frozenset({"row"})}
"""A CSV row an annotator wrote (the sheets page reads the file it serves), not a result."""

LEFT_TO_DO: dict[str, int] = {}
"""File -> string-key lookups into result data still there (issue 34, item 3; 139 when the count began, none
since a codebook judge's record became ``results.JudgeRecord`` and ``semantic compare`` read typed cells)."""


def _lookups(source: str, rel: str) -> list[tuple[int, str]]:
    """(line, receiver) of each string-key subscript and ``.get("...")`` in ``source`` (file ``rel``) on result
    data."""
    skip = REQUEST_PARTS | SHEET_ROWS.get(rel, frozenset())
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        receiver: ast.expr | None = None
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
                and isinstance(node.slice.value, str):
            receiver = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            receiver = node.func.value
        if receiver is not None and ast.unparse(receiver) not in skip:
            found.append((node.lineno, ast.unparse(receiver)))
    return found


def string_key_lookups() -> Counter[str]:
    """Per file of ``report/`` and ``view/``: how many string-key lookups into result data it makes."""
    counts: Counter[str] = Counter()
    for part in ("report", "view"):
        for path in sorted((SRC / part).rglob("*.py")):
            n = len(_lookups(path.read_text(encoding="utf-8"), str(path.relative_to(SRC))))
            if n:
                counts[str(path.relative_to(SRC))] = n
    return counts


def test_report_and_view_read_result_attributes_not_string_keys() -> None:
    counts = string_key_lookups()
    assert dict(counts) == LEFT_TO_DO, (
        "report/ and view/ read a results model's attributes; a string-key lookup into result data was added or "
        f"removed: now {dict(sorted(counts.items()))}. Read the attribute (or, when a file lost lookups, lower its "
        "figure in LEFT_TO_DO)")


def test_the_count_sees_a_string_key_lookup_and_skips_the_request() -> None:
    """The counter is not blind: a result read by key counts, the request's own query string does not."""
    source = ('def f(result, request, entry, i):\n    return result["gate"], entry.get("value"), result[i], '
              'request.query_params.get("key")\n')
    assert sorted(receiver for _, receiver in _lookups(source, "report/x.py")) == ["entry", "result"]
