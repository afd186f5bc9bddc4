"""`forgegate watch`: wiring only (the work is in forgegate.training.watch)."""

from __future__ import annotations

from pathlib import Path

import typer

from forgegate.backends.options import DEVICES_HELP, DTYPES
from forgegate.core.limits import WATCH_INTERVAL_S


def watch(
    output_dir: Path = typer.Argument(..., help="The trainer's output_dir (where checkpoint-N/ folders appear)."),
    base: str | None = typer.Option(None, "--base", help="The base model the adapters were trained on: a folder, a "
                                    ".gguf file or a locally cached id (a full-model checkpoint is loaded on its "
                                    "own). Required with --backend transformers; with a server, only checked "
                                    "against each adapter's config."),
    backend: str = typer.Option("transformers", "--backend", help="transformers (each checkpoint loaded here), "
                                "vllm (each adapter loaded by name into a running vLLM server) or openai (a "
                                "server that serves each checkpoint under --model-template)."),
    base_url: list[str] = typer.Option([], "--base-url", help="The running server, /v1 included "
                                       "(--backend vllm|openai)."),
    model_template: str | None = typer.Option(None, "--model-template", help="The name the server serves a "
                                              "checkpoint under, e.g. \"my-run-{step}\" ({step}, {checkpoint}; "
                                              "default {checkpoint})."),
    api_key_env: str | None = typer.Option(None, "--api-key-env", help="Environment variable holding the server's "
                                           "API key (default OPENAI_API_KEY when set)."),
    device: str = typer.Option("auto", "--device", help=f"Where the model runs: {DEVICES_HELP}."),
    dtype: str = typer.Option("auto", "--dtype", help=f"Weights dtype: {', '.join(DTYPES)}."),
    batch_size: int | None = typer.Option(None, "--batch-size", min=1,
                                          help="Most requests decoded together (default from the device)."),
    interval: float = typer.Option(WATCH_INTERVAL_S, "--interval", help="Seconds between looks at the folder."),
    once: bool = typer.Option(False, "--once", help="Probe the checkpoints complete now and exit (exit 2 if one "
                              "could not be probed; one still being written is left for the next run)."),
    battery: Path | None = typer.Option(None, "--battery", help="Probe battery JSONL (default: the bundled one)."),
) -> None:
    """Probe each checkpoint of a training run as it is saved; live table; records in OUTPUT_DIR."""
    import asyncio

    from forgegate.backends.options import device_problem
    from forgegate.cli.common import console
    from forgegate.core.verdict import EXIT_BAD_INPUT
    from forgegate.errors import UsageError
    from forgegate.training.watch import WatchOptions, check_options, watch_async
    from forgegate.training.watch_view import make_view

    if (why := device_problem(device)) is not None:
        raise UsageError(f"--device: {why}")
    if dtype not in DTYPES:
        raise UsageError(f"--dtype: '{dtype}' is not one of {', '.join(DTYPES)}")
    options = WatchOptions(output_dir=output_dir, base=base, backend=backend, device=device, dtype=dtype,
                           batch_size=batch_size, interval_s=interval, once=once, battery=battery,
                           base_urls=tuple(base_url), model_template=model_template, api_key_env=api_key_env)
    check_options(options)
    outcome = asyncio.run(watch_async(options, make_view(console)))
    if outcome.refused:
        raise typer.Exit(code=EXIT_BAD_INPUT)


def register(app: typer.Typer) -> None:
    app.command("watch")(watch)
