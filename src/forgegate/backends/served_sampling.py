"""The sampling a backend decodes with when a request sends none: what a run's result records as "in force".

GLOSS v2's procedure sends ``{"num_predict": N}`` and nothing else, so the model's own served sampling applies.
Each backend that can say what that is has an ``async served_sampling()`` (a capability, like
``endpoint_notes``): Ollama the model's parameters from ``/api/show``; the embedded backend and a managed
llama.cpp server the defaults of the llama-cpp-python calls they make; transformers the model's
``generation_config``; an OpenAI-compatible server "as served", plus whatever it reports. :func:`served_sampling`
asks one backend and never fails a run over it: a server that cannot say is recorded as such.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from forgegate.backends.base import Backend, BackendError

ServedValue = float | int | str | bool | None
"""One recorded setting: a number, a word, or a list of stop strings written out as text."""
SOURCE = "source"
"""The key naming where the values came from (``ollama /api/show``, ``llama-cpp-python defaults`` ...)."""

SAMPLING_KEYS = ("temperature", "top_p", "top_k", "min_p", "typical_p", "repeat_penalty", "repeat_last_n",
                 "presence_penalty", "frequency_penalty", "mirostat", "mirostat_tau", "mirostat_eta", "tfs_z",
                 "num_ctx", "stop")
"""The settings recorded from a llama-cpp-python call's defaults (those that change decoding)."""


async def served_sampling(backend: Backend) -> dict[str, ServedValue] | None:
    """What ``backend`` reports of the sampling it serves with (None: it has no way to say); a failure to ask is
    recorded in the values (``error``), never a failed run: it is provenance, not an answer."""
    report = getattr(backend, "served_sampling", None)
    if report is None:
        return None
    try:
        values: dict[str, ServedValue] | None = await report()
    except (BackendError, OSError) as exc:
        return {"error": f"{type(exc).__name__}: {exc}"[:300]}
    return values


def call_defaults(function: Callable[..., Any], source: str) -> dict[str, ServedValue]:
    """The decoding defaults of ``function`` (a llama-cpp-python call forgegate makes without them)."""
    values: dict[str, ServedValue] = {SOURCE: source}
    for name, parameter in inspect.signature(function).parameters.items():
        if name in SAMPLING_KEYS and parameter.default is not inspect.Parameter.empty:
            values[name] = scalar(parameter.default)
    return values


def prefixed(prefix: str, values: Mapping[str, ServedValue]) -> dict[str, ServedValue]:
    """``values`` with every key but the source under ``prefix`` (``chat.temperature``, ``completion.temperature``)."""
    return {f"{prefix}.{key}": value for key, value in values.items() if key != SOURCE}


def model_defaults(model: Any) -> dict[str, ServedValue]:
    """The decoding defaults of a pydantic request model (llama-cpp-python's server's request types)."""
    return {name: scalar(field.default) for name, field in model.model_fields.items()
            if name in SAMPLING_KEYS and field.default is not None}


def scalar(value: object) -> ServedValue:
    """A setting as the result records it: numbers, words and booleans as they are; anything else as text."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def parse_ollama_parameters(text: str) -> dict[str, ServedValue]:
    """Ollama's ``/api/show`` ``parameters`` (one ``name value`` a line; ``stop`` may repeat) as settings."""
    values: dict[str, ServedValue] = {}
    stops: list[str] = []
    for line in text.splitlines():
        name, _, raw = line.strip().partition(" ")
        raw = raw.strip()
        if not name or not raw:
            continue
        if name == "stop":
            stops.append(raw.strip('"'))
            continue
        values[name] = _number(raw)
    if stops:
        values["stop"] = " | ".join(stops)
    return values


def _number(raw: str) -> ServedValue:
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            continue
    return raw.strip('"')


def merged(source: str, values: Mapping[str, ServedValue], note: str | None = None) -> dict[str, ServedValue]:
    """``values`` under their source (and a note on what the values leave to the server's own defaults)."""
    out: dict[str, ServedValue] = {SOURCE: source, **values}
    if note:
        out["note"] = note
    return out
