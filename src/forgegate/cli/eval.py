"""`forgegate eval`, `live`, `rescore`: wiring only (the work is in forgegate.gloss)."""

from __future__ import annotations

from pathlib import Path

import typer

from forgegate.backends import BACKENDS, BackendConfig
from forgegate.battery.loader import load_battery
from forgegate.checks import signatures_present
from forgegate.cli.common import console, err_console, exit_with, quiet_default
from forgegate.gate.gloss_config import load_gate_config
from forgegate.gate.verdict import Gate
from forgegate.gloss.scoring import result_json, score_store
from forgegate.gloss.session import SessionOptions, run_session, write_result
from forgegate.report.eval_terminal import print_eval
from forgegate.store import find_run, RunStore

BACKEND_HELP = f"Model backend: {', '.join(BACKENDS.names())}."


def _options(kind: str, backend: str, model: str | None, base_url: list[str] | None, adapter: str | None,
             battery: Path | None, gate_config: Path | None, seed: int, temperature: float, top_p: float,
             system: str | None, concurrency: int, retries: int, timeout: float, api_key_env: str | None,
             store: Path | None, quiet: bool) -> SessionOptions:
    BACKENDS.get(backend)  # an unknown name is a usage error with a did-you-mean
    config = BackendConfig(model=model, base_urls=tuple(base_url or ()), adapter=adapter, timeout_s=timeout,
                           api_key_env=api_key_env)
    return SessionOptions(kind=kind, backend=backend, config=config, battery_path=battery,
                          gate_config_path=gate_config, seed=seed, temperature=temperature, top_p=top_p,
                          system=system, concurrency=concurrency, retries=retries, store_dir=store,
                          quiet=quiet or quiet_default())


def _finish(payload: dict[str, object], json_path: Path | None, check_failure_modes: bool,
            title: str) -> None:
    write_result(payload, json_path)
    print_eval(payload, console, title=title)  # type: ignore[arg-type]
    gate = Gate(payload["gate"])
    if check_failure_modes:
        present = signatures_present(payload["items"])  # type: ignore[arg-type]
        console.print("\nFailure-mode signatures:")
        for name, found in present.items():
            console.print(f"  {name:<20} {'[red]PRESENT[/]' if found else '[green]absent[/]'}")
        if any(present.values()) and gate is Gate.PASS:
            gate = Gate.FAIL
    exit_with(gate)


def register(app: typer.Typer) -> None:
    def shared(kind: str, title: str):  # type: ignore[no-untyped-def]
        def command(
            backend: str = typer.Option("embedded", help=BACKEND_HELP),
            model: str | None = typer.Option(None, help="Model name/tag (required for ollama and openai)."),
            base_url: list[str] | None = typer.Option(None, "--base-url", help="Server URL; repeat to spread "
                                                      "load over replicas."),
            adapter: str | None = typer.Option(None, help="LoRA adapter directory (transformers backend)."),
            battery: Path | None = typer.Option(None, help="Battery JSONL (default: the bundled one)."),
            gate_config: Path | None = typer.Option(None, help="Gate config TOML (default: GLOSS v2)."),
            json_out: Path | None = typer.Option(None, "--json", help="Write the full result here."),
            concurrency: int = typer.Option(4, help="Requests in flight at once."),
            seed: int = typer.Option(0, help="Sampling seed passed to the backend."),
            temperature: float = typer.Option(0.0, help="Sampling temperature (0 = greedy)."),
            top_p: float = typer.Option(1.0, help="Nucleus sampling p."),
            system: str | None = typer.Option(None, help="System prompt for chat requests."),
            retries: int = typer.Option(4, help="Attempts per request on transient errors."),
            timeout: float = typer.Option(120.0, help="Seconds per request."),
            api_key_env: str | None = typer.Option(None, help="Env var holding the API key (openai)."),
            store: Path | None = typer.Option(None, help="Run store directory (default .forgegate/runs)."),
            quiet: bool = typer.Option(False, help="No progress bar."),
            check_failure_modes: bool = typer.Option(False, help="Print each failure-mode signature "
                                                     "present/absent; exit 1 if any is present."),
        ) -> None:
            options = _options(kind, backend, model, base_url, adapter, battery, gate_config, seed,
                               temperature, top_p, system, concurrency, retries, timeout, api_key_env,
                               store, quiet)
            _result, payload, summary = run_session(options)
            err_console.print(f"generated {summary.generated}, resumed {summary.skipped_finished} from the "
                              f"store, failed {summary.failed} ({summary.tokens} tokens, {summary.wall_s:.1f} s)")
            _finish(payload, json_out, check_failure_modes, title)

        return command

    app.command("eval", help="Run a battery against a model and gate it (GLOSS v2 by default).")(
        shared("eval", "GLOSS EVAL v2"))
    app.command("live", help="Run the 10-task live functional test (0 loops, 0 walls, >= 8/10).")(
        shared("live", "GLOSS LIVE TEST"))

    @app.command("rescore", help="Re-score a stored run without generating anything.")
    def rescore(
        run: str = typer.Argument(..., help="Run id (or unique prefix) or path to its .sqlite file."),
        battery: Path | None = typer.Option(None, help="Battery JSONL (default: the one the run used)."),
        gate_config: Path | None = typer.Option(None, help="Gate config TOML (default: GLOSS v2)."),
        json_out: Path | None = typer.Option(None, "--json", help="Write the full result here."),
        store: Path | None = typer.Option(None, help="Run store directory."),
        check_failure_modes: bool = typer.Option(False, help="Print failure-mode signatures."),
    ) -> None:
        path = find_run(run, store)
        with RunStore.open(path, create=False) as opened:
            meta = opened.meta()
        config, sha = load_gate_config(gate_config)
        battery_path = battery or Path(meta["battery_path"])
        loaded = load_battery(battery_path, categories=None if meta.get("kind") == "live" else config.categories)
        payload = result_json(score_store(path, loaded, config, sha))
        _finish(payload, json_out, check_failure_modes, "GLOSS RESCORE")
