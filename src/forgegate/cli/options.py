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
from forgegate.backends.options import DEVICES_HELP, DTYPES, device_problem, option_refusal
from forgegate.cli.common import quiet_default
from forgegate.core.limits import DEFAULT_IDLE_S, DEFAULT_TIMEOUT_S
from forgegate.errors import UsageError

if TYPE_CHECKING:
    from forgegate.pipeline.eval_session import SessionOptions

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
    _opt("concurrency", int, 4, "Requests in flight at once.", min=1),
    _opt("seed", int, 0, "Sampling seed passed to the backend (printed with every result)."),
    _opt("temperature", float, 0.0, "Sampling temperature (0 = greedy)."),
    _opt("top_p", float, 1.0, "Nucleus sampling p."),
    _opt("system", str | None, None, "System prompt for chat requests."),
    _opt("retries", int, 4, "Attempts per request (at least 1), the later ones only after a transient error "
         "(5xx, a dropped connection, a missed deadline).", min=1),
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


def session_options(kind: str, kw: dict[str, Any], battery: Path | None) -> SessionOptions:
    """The session the flags ask for; a flag that cannot work is a usage error here, before anything is stored.
    (Its imports wait until a command runs.)"""
    from forgegate.backends import BackendConfig
    from forgegate.backends.adapters import adapter_base_problem, adapter_refusal
    from forgegate.pipeline.eval_session import SessionOptions

    BACKENDS.get(kw["backend"])  # an unknown name is a usage error with a did-you-mean
    if kw["adapter"] is not None and (why := adapter_refusal(kw["backend"])) is not None:
        raise UsageError(f"--adapter: {why}")
    if kw["adapter"] is not None and Path(kw["adapter"]).is_dir() and (
            why := adapter_base_problem(Path(kw["adapter"]), kw["model"])) is not None:
        raise UsageError(f"--adapter: {why}")
    _check_device_options(kw)
    config = BackendConfig(model=kw["model"], base_urls=tuple(kw["base_url"] or ()), adapter=kw["adapter"],
                           timeout_s=kw["timeout"], idle_timeout_s=kw["idle_timeout"], api_key_env=kw["api_key_env"],
                           device=kw["device"], dtype=kw["dtype"], batch_size=kw["batch_size"])
    return SessionOptions(kind=kind, backend=kw["backend"], config=config, battery_path=battery,
                          gate_config_path=kw["gate_config"], seed=kw["seed"], temperature=kw["temperature"],
                          top_p=kw["top_p"], system=kw["system"], concurrency=kw["concurrency"],
                          retries=kw["retries"], store_dir=kw["store"], quiet=kw["quiet"] or quiet_default(),
                          check_failure_modes=kw.get("check_failure_modes", False), wait=not kw["no_wait"],
                          loop_cutoff=not kw.get("no_loop_cutoff", False))


def _check_device_options(kw: dict[str, Any]) -> None:
    """--device / --dtype / --batch-size: known values, and only on a backend that uses them."""
    if (why := device_problem(kw["device"])) is not None:
        raise UsageError(f"--device: {why}")
    if kw["dtype"] not in DTYPES:
        raise UsageError(f"--dtype: '{kw['dtype']}' is not one of {', '.join(DTYPES)}")
    if kw["batch_size"] is not None and kw["batch_size"] < 1:
        raise UsageError("--batch-size must be at least 1")
    for option, default in (("device", "auto"), ("dtype", "auto"), ("batch_size", None)):
        if kw[option] != default and (why := option_refusal(option, kw["backend"])) is not None:
            raise UsageError(f"--{option.replace('_', '-')}: {why}")
