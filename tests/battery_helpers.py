"""Helpers for the battery tests: writing small battery files and running the CLI in-process."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

GOOD: dict[str, Any] = {
    "category": "LX-A", "prompt": "⊙ α?", "expected": "NOUS", "max_tokens": 64, "eval_type": "contains",
}


def item(**changes: Any) -> dict[str, Any]:
    """A valid item with ``changes`` applied (a value of ``...`` removes the key)."""
    out = dict(GOOD)
    for key, value in changes.items():
        if value is ...:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def write_lines(path: Path, *lines: dict[str, Any] | str | bytes) -> Path:
    """Write a battery: dicts as JSON lines, str/bytes verbatim."""
    chunks: list[bytes] = []
    for line in lines:
        if isinstance(line, dict):
            chunks.append(json.dumps(line, ensure_ascii=False).encode("utf-8"))
        elif isinstance(line, str):
            chunks.append(line.encode("utf-8"))
        else:
            chunks.append(line)
    path.write_bytes(b"\n".join(chunks) + b"\n")
    return path


def run_main(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the console-script entry ``forgegate.cli.main.main`` with ``args``: (exit code, stdout, stderr)."""
    from forgegate.cli.main import main

    monkeypatch.setattr(sys, "argv", ["forgegate", *args])
    monkeypatch.setenv("COLUMNS", "200")
    code = 0
    try:
        main()
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    captured = capsys.readouterr()
    return code, captured.out, captured.err
