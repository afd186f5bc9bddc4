"""`forgegate watch --backend vllm|openai`: each checkpoint probed through a running server (the vLLM stand-in).

vLLM: each adapter checkpoint is loaded by name through ``/v1/load_lora_adapter``, probed under that
name, and unloaded. openai: the server serves a checkpoint under ``--model-template``'s name; one it
does not list yet is waited for, never probed under another name.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from forgegate.cli.main import run
from forgegate.training.records import read_probes

FAKE = Path(__file__).parent / "fake_vllm.py"
BASE = "fake-base"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The vLLM stand-in serving BASE and a module already named ``my-run-10``; (base URL, its log)."""
    port, log = _free_port(), tmp_path / "fake_vllm.jsonl"
    process = subprocess.Popen([sys.executable, str(FAKE), "serve", BASE, "--port", str(port), "--enable-lora",
                                "--lora-modules", "my-run-10=/served/elsewhere"],
                               env={**os.environ, "FAKE_VLLM_LOG": str(log)}, cwd=FAKE.parent)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.05)
        yield f"{url}/v1", log
    finally:
        process.terminate()
        process.wait(timeout=10)


def _safetensors(path: Path) -> None:
    header = b"{}"
    path.write_bytes(struct.pack("<Q", len(header)) + header)


def checkpoint(out: Path, step: int, *, full: bool = False) -> Path:
    """A completely written checkpoint folder: a PEFT adapter, or (``full``) a whole model."""
    folder = out / f"checkpoint-{step}"
    folder.mkdir(parents=True)
    if full:
        (folder / "config.json").write_text("{}", encoding="utf-8")
        _safetensors(folder / "model.safetensors")
    else:
        (folder / "adapter_config.json").write_text(json.dumps({"r": 8}), encoding="utf-8")
        _safetensors(folder / "adapter_model.safetensors")
    (folder / "trainer_state.json").write_text(json.dumps({"global_step": step, "epoch": 1.0, "log_history": []}),
                                               encoding="utf-8")
    return folder


def events(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


class Done:
    def __init__(self, code: int, output: str) -> None:
        self.exit_code, self.output = code, output


def cli(*args: str) -> Done:
    """The console entry in-process, exit code mapped as the installed command maps it."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = run(["forgegate", *args])
    return Done(code, out.getvalue())


def watch(out: Path, url: str, *extra: str) -> Done:
    return cli("watch", str(out), "--once", "--base-url", url, *extra)


def test_vllm_loads_each_adapter_by_name_probes_it_under_that_name_and_unloads_it(
        tmp_path: Path, server: tuple[str, Path]) -> None:
    url, log = server
    out = tmp_path / "out"
    first, second = checkpoint(out, 20), checkpoint(out, 40)
    done = watch(out, url, "--backend", "vllm", "--model-template", "ckpt-{step}")
    assert done.exit_code == 0, done.output
    seen = events(log)
    loads = [(e["name"], e["path"]) for e in seen if e["event"] == "load"]
    assert loads == [("ckpt-20", str(first.resolve())), ("ckpt-40", str(second.resolve()))]
    assert [e["name"] for e in seen if e["event"] == "unload"] == ["ckpt-20", "ckpt-40"]
    asked = {e["model"] for e in seen if e["event"] == "request"}
    assert asked == {"ckpt-20", "ckpt-40"}  # never the base, never a name the server was not told
    records = read_probes(out).records
    assert [(r.checkpoint, r.step, r.source) for r in records] == [("checkpoint-20", 20, "watch"),
                                                                   ("checkpoint-40", 40, "watch")]
    assert all(r.answered == r.items > 0 for r in records) and "adapter 'ckpt-20' on vLLM" in records[0].model
    again = watch(out, url, "--backend", "vllm", "--model-template", "ckpt-{step}")
    assert again.exit_code == 0 and len(read_probes(out).records) == 2  # each checkpoint probed once


def test_vllm_refuses_a_full_model_checkpoint_and_records_nothing(tmp_path: Path, server: tuple[str, Path]) -> None:
    url, log = server
    out = tmp_path / "out"
    checkpoint(out, 10, full=True)
    done = watch(out, url, "--backend", "vllm")
    assert done.exit_code == 2 and "--backend openai" in done.output
    assert not read_probes(out).records and not [e for e in events(log) if e["event"] != "start"]


def test_openai_probes_the_served_name_and_waits_for_one_not_served_yet(tmp_path: Path,
                                                                        server: tuple[str, Path]) -> None:
    url, log = server
    out = tmp_path / "out"
    checkpoint(out, 10, full=True)
    checkpoint(out, 20, full=True)
    done = watch(out, url, "--backend", "openai", "--model-template", "my-run-{step}")
    assert done.exit_code == 0, done.output
    assert "checkpoint-20 is not served yet" in done.output and "does not serve 'my-run-20'" in done.output
    assert [(r.checkpoint, r.model) for r in read_probes(out).records] == [
        ("checkpoint-10", "checkpoint-10 (served as 'my-run-10', step 10)")]
    assert {e["model"] for e in events(log) if e["event"] == "request"} == {"my-run-10"}


@pytest.mark.parametrize("args,words", [
    (["--backend", "vllm"], "give its --base-url"),
    (["--backend", "openai", "--base-url", "http://x/v1", "--model-template", "run-{epoch}"], "'epoch'"),
    (["--base-url", "http://x/v1", "--base", "b"], "are for --backend vllm or openai"),
    (["--backend", "tgi", "--base-url", "http://x/v1"], "--backend tgi"),
])
def test_a_serving_watch_with_bad_options_is_refused_before_it_waits(tmp_path: Path, args: list[str],
                                                                    words: str) -> None:
    done = cli("watch", str(tmp_path), "--once", *args)
    assert done.exit_code == 2 and words in done.output, done.output
