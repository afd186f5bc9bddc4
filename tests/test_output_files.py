"""Output files (--json, --html, --markdown, locks): a regular file is replaced atomically; anything else at
the path (a pipe, /dev/stdout, a link to a descriptor) is written through or refused, never replaced."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path

import pytest
from report_helpers import GOOD, run_cli, stored_run

from forgegate.errors import InputError
from forgegate.jsonio import write_bytes_atomic, write_json_atomic


def test_a_regular_file_is_replaced_and_a_link_to_it_stays_a_link(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    write_json_atomic(link, {"a": 1})
    assert link.is_symlink() and target.read_text(encoding="utf-8") == '{\n  "a": 1\n}\n'
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary left


def test_a_pipe_is_written_through_and_stays_a_pipe(tmp_path: Path) -> None:
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_bytes_atomic(fifo, b"through the pipe")
    reader.join(timeout=10)
    assert got == [b"through the pipe"]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_link_to_a_descriptor_is_written_through(tmp_path: Path) -> None:
    read_end, write_end = os.pipe()
    link = tmp_path / "out"
    link.symlink_to(f"/proc/self/fd/{write_end}")
    try:
        write_bytes_atomic(link, b"to the descriptor")
        assert os.read(read_end, 100) == b"to the descriptor"
    finally:
        os.close(read_end)
        os.close(write_end)
    assert link.is_symlink()


def test_a_descriptor_that_is_a_regular_file_is_appended_to_not_replaced(tmp_path: Path) -> None:
    real = tmp_path / "stdout.txt"
    with real.open("wb") as handle:
        handle.write(b"printed first\n")
        handle.flush()
        inode = os.stat(real).st_ino
        write_bytes_atomic(Path(f"/proc/self/fd/{handle.fileno()}"), b"then the JSON\n")
    assert real.read_bytes() == b"printed first\nthen the JSON\n" and os.stat(real).st_ino == inode


def test_dev_null_stays_a_device(tmp_path: Path) -> None:
    write_bytes_atomic(Path("/dev/null"), b"gone")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
def test_a_full_device_is_an_os_error_naming_it() -> None:
    with pytest.raises(OSError) as caught:
        write_bytes_atomic(Path("/dev/full"), b"x")
    assert caught.value.filename == "/dev/full"
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_a_folder_is_refused_not_replaced(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    with pytest.raises(InputError, match="is a folder; forgegate will not replace it"):
        write_bytes_atomic(folder, b"x")
    assert folder.is_dir()


def test_cli_json_to_a_link_to_stdout_writes_through(tmp_path: Path) -> None:
    store_path, _, gate = stored_run(tmp_path, GOOD)
    read_end, write_end = os.pipe()
    link = tmp_path / "out"
    link.symlink_to(f"/proc/self/fd/{write_end}")
    try:
        code, out = run_cli("rescore", str(store_path), "--gate-config", gate, "--json", link)
        os.close(write_end)
        written = os.read(read_end, 1 << 20)
    finally:
        os.close(read_end)
    assert code == 0, out
    assert b'"gate": "PASS"' in written and link.is_symlink()


def test_cli_html_to_a_folder_exits_2_and_keeps_it(tmp_path: Path) -> None:
    store_path, _, gate = stored_run(tmp_path, GOOD)
    folder = tmp_path / "r.md"
    folder.mkdir()
    code, out = run_cli("report", str(store_path), "--gate-config", gate, "--markdown", folder)
    assert code == 2 and "will not replace it" in out, out
    assert folder.is_dir()
