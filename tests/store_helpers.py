"""Test helper: one finished live-test run in a store folder, made against a fake Ollama server."""

from __future__ import annotations

import shutil
from pathlib import Path

from backend_servers import Behaviour, FakeOllamaServer
from eval_helpers import run_cli_in_process, script_for

from forgegate.battery import bundled_live_test_path, load_battery

LIVE = load_battery(bundled_live_test_path())
MODEL = "gloss:v10"


def fake_ollama() -> FakeOllamaServer:
    """A server whose model knows the live test (every run made against it passes)."""
    return FakeOllamaServer(Behaviour(script=script_for(LIVE), models={MODEL: "f" * 64}))


def live_args(server_url: str, store: Path | None, *extra: str) -> list[str]:
    """`forgegate live` against ``server_url`` (store None: the default, $FORGEGATE_HOME/runs)."""
    where = ["--store", str(store)] if store is not None else []
    return ["live", "--backend", "ollama", "--model", MODEL, "--base-url", server_url, *where, "--quiet", *extra]


def make_live_run(store: Path) -> Path:
    """Run the live test into ``store`` (in-process: it is set-up, not what the tests check); return its run file."""
    with fake_ollama() as server:
        proc = run_cli_in_process(*live_args(server.url, store))
    assert proc.returncode == 0, proc.stderr
    (run,) = store.glob("*.sqlite")
    return run


def copy_store(source: Path, target: Path) -> Path:
    shutil.copytree(source, target)
    return target
