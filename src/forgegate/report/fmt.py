"""How numbers print in the report: fixed digits, NA for missing, CIs in brackets."""

from __future__ import annotations

from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from forgegate.results.base import Estimate


def num(value: Any, digits: int = 3) -> str:
    """``0.250``; ``NA`` for None; integers and strings as they are."""
    if value is None:
        return "NA"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def with_ci(entry: Estimate | float | None, digits: int = 3) -> str:
    """``0.167 [0.000, 0.255]`` from an ``Estimate``; a bare number as ``num`` prints it; ``NA`` when the value is
    missing."""
    if not isinstance(entry, Estimate):
        return num(entry, digits)
    value, ci = entry.value, entry.ci
    if value is None:
        return "NA"
    text = num(value, digits)
    if ci:
        text += f" [{num(ci[0], digits)}, {num(ci[1], digits)}]"
    return text


def percent(value: Any) -> str:
    return "NA" if value is None else f"{100 * float(value):.1f}%"


MODEL_FILE_SUFFIXES = (".gguf", ".bin", ".safetensors", ".pt", ".pth", ".onnx")
"""A model name ending so, with a folder in front, is a file's path (a llama.cpp server lists its model so)."""


def model_shown(model: str) -> str:
    """A model as a header or a list names it: a path (``/models/q4/smollm2.gguf``, ``~/m.gguf``,
    ``./ckpt``) by its file name, anything else (``llama3:8b``, ``org/name`` on a hub) as it is. The JSON and
    the store keep the name whole."""
    path = PureWindowsPath(model) if "\\" in model else PurePosixPath(model)
    if len(path.parts) < 2:
        return model
    if path.is_absolute() or model.startswith(("~", "./", "../", ".\\", "..\\")) or \
            model.lower().endswith(MODEL_FILE_SUFFIXES):
        return path.name or model
    return model


def sigma_text(sigma: float | None, live: bool) -> str:
    """σ_total as every report shows it: the live test has none (its gate counts loops, walls and correct
    answers), and an eval has none only when answers are missing."""
    if live:
        return "not used by the live test"
    return "n/a (answers missing)" if sigma is None else num(sigma, 2)
