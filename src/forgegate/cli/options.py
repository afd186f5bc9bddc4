"""The model/battery/sampling options shared by `eval`, `live` and `graduate`, declared once.

Typer reads a command's parameters from its signature, so the shared options are one
list of ``inspect.Parameter`` and each command's signature is that list plus its own.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from forgegate.backends import BACKENDS
from forgegate.backends.options import DEVICES_HELP
from forgegate.cli.common import quiet_default
from forgegate.core.limits import DEFAULT_CONCURRENCY, DEFAULT_IDLE_S, DEFAULT_RETRIES, DEFAULT_TIMEOUT_S
from forgegate.core.sampling import DEFAULT_SEED, DEFAULT_TEMPERATURE, DEFAULT_TOP_P

if TYPE_CHECKING:
    from forgegate.pipeline.session_options import SessionKind, SessionOptions

_P = inspect.Parameter


def _opt(name: str, annotation: Any, default: Any, help_text: str, *decls: str, **limits: Any) -> inspect.Parameter:
    option = typer.Option(default, *decls, help=help_text, **limits)
    return _P(name, _P.KEYWORD_ONLY, default=option, annotation=annotation)


NO_WAIT_HELP = "If another process is generating this run, exit 2 at once instead of waiting for it."


MODEL_OPTIONS: list[inspect.Parameter] = [
    _opt("backend", str, "embedded", f"Model backend: {', '.join(BACKENDS.names())}."),
    _opt("model", str | None, None, "Model name/tag/path (required for ollama and openai)."),
    _opt("base_url", list[str] | None, None, "Server URL; repeat to spread load over replicas.", "--base-url"),
    _opt("adapter", str | None, None, "LoRA adapter: a PEFT folder (transformers, vllm) or GGUF file (llamacpp)."),
    _opt("device", str, "auto", f"Where the model runs (transformers): {DEVICES_HELP}."),
    _opt("dtype", str, "auto", "Weights dtype (transformers): auto (bfloat16/float16 on GPU, float32 on CPU), "
         "float32, float16, bfloat16."),
    _opt("batch_size", int | None, None, "Most requests decoded together (transformers; default from the device; "
         "1 = strict, unbatched)."),
    _opt("gate_config", Path | None, None, "Gate config TOML (default: the bundled GLOSS v2 gate)."),
    _opt("concurrency", int, DEFAULT_CONCURRENCY, "Requests in flight at once (at least 1)."),
    _opt("seed", int, DEFAULT_SEED, "Sampling seed passed to the backend (printed with every result; a 64-bit "
         "whole number)."),
    _opt("temperature", float, DEFAULT_TEMPERATURE, "Sampling temperature (0 = greedy; finite, 0 or more)."),
    _opt("top_p", float, DEFAULT_TOP_P, "Nucleus sampling p (above 0, at most 1)."),
    _opt("system", str | None, None, "System prompt for chat requests."),
    _opt("retries", int, DEFAULT_RETRIES, "Attempts per request (at least 1), the later ones only after a "
         "transient error (5xx, a dropped connection, a missed deadline)."),
    _opt("timeout", float, DEFAULT_TIMEOUT_S, "Whole-request deadline in seconds, connect to last byte (server "
         "backends); a request that misses it is retried, and recorded as an error if it never succeeds."),
    _opt("idle_timeout", float | None, None, f"Seconds of silence (no byte at all) after which a server "
         f"request counts as stalled [default: the smaller of --timeout and {DEFAULT_IDLE_S:g}].", "--idle-timeout"),
    _opt("no_wait", bool, False, NO_WAIT_HELP, "--no-wait"),
    _opt("no_loop_cutoff", bool, False, "Let a looping answer run to its cap instead of cutting it off as the loop "
         "starts (same score either way; recorded in the run).", "--no-loop-cutoff"),
    _opt("api_key_env", str | None, None, "Environment variable holding the API key (openai)."),
    _opt("store", Path | None, None, "Run store directory (default: $FORGEGATE_HOME/runs, ./.forgegate/runs)."),
    _opt("quiet", bool, False, "No progress bar (also off when stderr is not a terminal)."),
]
BATTERY_OPTION = _opt("battery", Path | None, None, "Battery JSONL (default: the bundled GLOSS v2 battery).")
JSON_OPTION = _opt("json_out", Path | None, None, "Write the full result (JSON) here.", "--json")
HTML_OPTION = _opt("html", Path | None, None, "Write a self-contained HTML report here.", "--html")
MARKDOWN_OPTION = _opt("markdown", Path | None, None, "Write a Markdown summary (for a PR comment) here.",
                       "--markdown")


def with_options(params: list[inspect.Parameter]) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Give a ``**kwargs`` command the signature ``params`` (what Typer turns into options)."""

    def decorate(func: Callable[..., None]) -> Callable[..., None]:
        func.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        return func

    return decorate


def session_options(kind: SessionKind, kw: dict[str, Any], battery: Path | None) -> SessionOptions:
    """The session the flags ask for. The options model checks every value (a flag that cannot work is a usage
    error there, before anything is stored) and maps each flag to its field. (Its import waits until a command
    runs.)"""
    from forgegate.pipeline.session_options import from_flags

    return from_flags(kind, kw, battery, quiet_default=quiet_default())
