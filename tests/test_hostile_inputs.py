"""Issue 46, item 11: every file a user gives is read by the one bounded reader (a regular file, at most a bound,
UTF-8 with a BOM dropped): a device, a pipe or a file over the bound is exit 2 naming the file, what it is and
what to pass, before anything is generated.

Each CLI case runs in a subprocess with a memory limit and a timeout: on the code before this fix ``/dev/zero``
was read until memory ran out and a FIFO blocked forever, deaf to SIGTERM; here that is a failed test, never a
hung or swapping suite.
"""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from forgegate.errors import InputError
from forgegate.jsonio import read_bytes_or_input_error, read_text_or_input_error

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "batteries"
BATTERY, GATE = str(EXAMPLES / "tiny.jsonl"), str(EXAMPLES / "tiny-gate.toml")
pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo") or not Path("/dev/zero").exists(), reason="POSIX only")


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))


def forgegate(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``forgegate ARGS`` in a subprocess held to 2 GiB and 60 s (a hang is a failure, not a stuck suite)."""
    return subprocess.run([sys.executable, "-m", "forgegate.cli.main", *args], capture_output=True, text=True,
                          timeout=60, preexec_fn=_limit_memory, cwd=cwd, env=os.environ.copy())


def refused(proc: subprocess.CompletedProcess[str], *words: str) -> str:
    out = " ".join((proc.stdout + proc.stderr).split())
    assert proc.returncode == 2, out
    assert "Traceback" not in out
    for word in words:
        assert word in out, out
    return out


def dead_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def server_args(tmp_path: Path) -> list[str]:
    return ["--backend", "openai", "--model", "m", "--base-url", dead_url(), "--store", str(tmp_path / "store"),
            "--quiet"]


@pytest.mark.parametrize("flag", ["--battery", "--gate-config"])
def test_a_device_given_as_a_battery_or_gate_config_is_refused_as_a_device(flag: str, tmp_path: Path) -> None:
    args = {"--battery": BATTERY, "--gate-config": GATE} | {flag: "/dev/zero"}
    proc = forgegate("eval", "--battery", args["--battery"], "--gate-config", args["--gate-config"],
                     *server_args(tmp_path))
    refused(proc, "/dev/zero", "is a device", "pass the")


def test_a_fifo_given_as_a_battery_is_refused_at_once_not_waited_on(tmp_path: Path) -> None:
    fifo = tmp_path / "battery.jsonl"
    os.mkfifo(fifo)
    refused(forgegate("eval", "--battery", str(fifo), "--gate-config", GATE, *server_args(tmp_path)),
            str(fifo), "is a pipe (FIFO)")


def test_a_fifo_named_like_a_run_in_the_store_is_a_warning_not_a_hang(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    os.mkfifo(store / "trap.sqlite")
    proc = forgegate("runs", "--store", str(store))
    out = " ".join((proc.stdout + proc.stderr).split())
    assert proc.returncode == 0 and "Traceback" not in out, out
    assert f"{store / 'trap.sqlite'}: is a pipe (FIFO), but a run file (SQLite) belongs there" in out


def test_init_force_over_a_fifo_is_bad_input_and_writes_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "gate"
    folder.mkdir()
    os.mkfifo(folder / "gate.toml")
    refused(forgegate("init", str(folder), "--force"), "gate.toml", "is a pipe (FIFO), not a file", "move it aside")
    assert not (folder / "battery.jsonl").exists()


def test_graduate_refuses_a_device_as_its_lineage_before_generating_anything(tmp_path: Path) -> None:
    """The server is dead on purpose: a lineage checked only after generating reaches the server first and says
    "nothing answers" (or, on a live one, generates everything and then fails with exit 70)."""
    proc = forgegate("graduate", "--version", "v1", "--lineage", "/dev/null", "--battery", BATTERY, "--gate-config",
                     GATE, *server_args(tmp_path))
    refused(proc, "/dev/null", "is a device")
    assert "nothing answers" not in proc.stdout + proc.stderr


def test_an_embedded_model_that_is_not_a_gguf_is_bad_input_naming_the_file(tmp_path: Path) -> None:
    model = tmp_path / "model.safetensors"
    model.write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{}      " + b"\x00" * 64)
    proc = forgegate("eval", "--battery", BATTERY, "--gate-config", GATE, "--backend", "embedded", "--model",
                     str(model), "--store", str(tmp_path / "store"), "--quiet")
    refused(proc, str(model), "is not a GGUF file", "give a .gguf file")


def test_the_one_reader_refuses_a_file_over_its_bound_and_says_the_bound(tmp_path: Path) -> None:
    path = tmp_path / "battery.jsonl"
    path.write_bytes(b"x" * 2049)
    with pytest.raises(InputError) as caught:
        read_bytes_or_input_error(path, what="battery", limit=2048)
    assert "larger than" in caught.value.message and "at most 2048 bytes" in str(caught.value.hint)
    assert read_bytes_or_input_error(path, limit=4096) == b"x" * 2049


def test_the_one_reader_drops_a_byte_order_mark_and_refuses_a_socket(tmp_path: Path) -> None:
    path = tmp_path / "gate.toml"
    path.write_bytes(b"\xef\xbb\xbfname = 'x'\n")
    assert read_text_or_input_error(path) == "name = 'x'\n"
    sock_path = tmp_path / "s.sock"
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(sock_path))
        with pytest.raises(InputError, match="is a socket, not a gate config file"):
            read_bytes_or_input_error(sock_path, what="gate config")
