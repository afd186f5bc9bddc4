"""The exit-code discipline, driven through the console entry's one handler for every registered command.

0, 1, 3 and 4 come only from a gate; 2 is the user's to fix (with what, where, what to do); 70 is a
bug in forgegate (a crash file holds the traceback); 130 is Ctrl-C (tests/test_cli_interrupt.py).
"""

from __future__ import annotations

import errno
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer
from cli_helpers import COMMAND_PATHS, command_info, run_entry

import forgegate
from forgegate.errors import UsageError


def plant(monkeypatch: pytest.MonkeyPatch, path: tuple[str, ...], error: BaseException) -> None:
    """Make the command at ``path`` raise ``error`` as its work (its options are dropped: none is needed)."""
    info = command_info(path)
    original = info.callback
    assert original is not None

    def planted() -> None:
        raise error

    planted.__name__ = original.__name__
    monkeypatch.setattr(info, "callback", planted)


@pytest.fixture
def crash_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Crash files go to $TMPDIR; point it (tempfile's cached copy too) at a folder the test can list."""
    folder = tmp_path / "tmpdir"
    folder.mkdir()
    monkeypatch.setenv("TMPDIR", str(folder))
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_every_command_is_covered() -> None:
    """The walk finds the commands the README documents (a broken walk would make the tests below vacuous)."""
    documented = {("eval",), ("live",), ("run",), ("runs",), ("report",), ("battery", "check"), ("plan", "lock"),
                  ("semantic", "metrics"), ("audit", "loops"), ("fixture", "build"), ("lineage", "show")}
    assert documented <= set(COMMAND_PATHS)


@pytest.mark.parametrize("path", [(), *COMMAND_PATHS], ids=lambda p: " ".join(p) or "forgegate")
def test_every_command_help_exits_zero(path: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_entry(capsys, *path, "--help")
    assert code == 0, err
    assert "Usage" in out


def test_version_prints_the_version_and_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_entry(capsys, "--version")
    assert (code, out.strip()) == (0, forgegate.__version__), err
    assert "Missing command" not in err


def test_a_usage_error_still_exits_2_with_clicks_message(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_entry(capsys, "runs", "--no-such-option")
    assert code == 2
    assert "No such option" in err


@pytest.mark.parametrize("path", COMMAND_PATHS, ids=" ".join)
def test_a_bug_in_any_command_exits_70_with_a_crash_file(path: tuple[str, ...], crash_dir: Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    plant(monkeypatch, path, RuntimeError(f"planted bug in {' '.join(path)}"))
    code, _, err = run_entry(capsys, *path)
    assert code == 70, err
    assert "internal error: RuntimeError: planted bug" in err
    crashes = list(crash_dir.glob("forgegate-crash-*.txt"))
    assert len(crashes) == 1
    assert str(crashes[0]) in err
    report = crashes[0].read_text(encoding="utf-8")
    assert "Traceback" in report and f"planted bug in {' '.join(path)}" in report
    assert f"command: forgegate {' '.join(path)}" in report


@pytest.mark.parametrize("path", COMMAND_PATHS, ids=" ".join)
def test_a_refused_path_in_any_command_exits_2_naming_it(path: tuple[str, ...], crash_dir: Path,
                                                         monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    plant(monkeypatch, path, PermissionError(errno.EACCES, "Permission denied", "/srv/runs/abc.sqlite"))
    code, _, err = run_entry(capsys, *path)
    assert code == 2, err
    assert "/srv/runs/abc.sqlite: permission denied" in err
    assert "internal error" not in err and not list(crash_dir.iterdir())


def _user_faults(tmp: str) -> list[tuple[BaseException, str]]:
    return [
        (IsADirectoryError(errno.EISDIR, "Is a directory", f"{tmp}/battery"), "is a folder where a file is needed"),
        (NotADirectoryError(errno.ENOTDIR, "Not a directory", f"{tmp}/home/runs"), "a file where a folder is needed"),
        (FileExistsError(errno.EEXIST, "File exists", f"{tmp}/store"), "move it aside or choose another path"),
        (FileNotFoundError(errno.ENOENT, "No such file or directory", f"{tmp}/gone.jsonl"), "does not exist"),
        (PermissionError(errno.EACCES, "Permission denied", f"{tmp}/ro"), "permission denied"),
        (OSError(errno.ENOSPC, "No space left on device"), "no space left on the device"),
        (OSError(errno.EROFS, "Read-only file system", f"{tmp}/ro/x.sqlite"), "read-only"),
        (sqlite3.DatabaseError("database disk image is malformed"), "the run file is damaged"),
        (sqlite3.DatabaseError("file is not a database"), "move it aside"),
        (sqlite3.OperationalError("unable to open database file"), "check that its folder exists"),
        (sqlite3.OperationalError("database is locked"), "wait for the other forgegate command to finish"),
        (sqlite3.OperationalError("attempt to write a readonly database"), "read-only"),
        (UsageError("--retries must be at least 1"), "--retries must be at least 1"),
    ]


@pytest.mark.parametrize("index", range(len(_user_faults(""))))
def test_each_kind_of_user_fault_exits_2_with_what_to_do(index: int, crash_dir: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    error, advice = _user_faults("/data/project")[index]
    plant(monkeypatch, ("runs",), error)
    code, _, err = run_entry(capsys, "runs")
    assert code == 2, err
    assert err.startswith("error: ") and advice in err
    if isinstance(error, OSError) and error.filename:
        assert str(error.filename) in err
    assert not list(crash_dir.iterdir())


BUGS: list[Callable[[], BaseException]] = [
    lambda: sqlite3.ProgrammingError("Cannot operate on a closed database."),
    lambda: FileNotFoundError(errno.ENOENT, "No such file or directory",
                              str(Path(forgegate.__file__).parent / "data" / "missing.jsonl")),
    lambda: ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused"),
    lambda: RecursionError("maximum recursion depth exceeded"),
    lambda: KeyError("gate"),
]


@pytest.mark.parametrize("make", BUGS, ids=lambda m: type(m()).__name__)
def test_errors_that_only_look_like_the_users_are_bugs(make: Callable[[], BaseException], crash_dir: Path,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """A closed connection, a missing bundled file or a stray socket error is forgegate's fault: 70."""
    plant(monkeypatch, ("runs",), make())
    code, _, err = run_entry(capsys, "runs")
    assert code == 70, err
    assert len(list(crash_dir.glob("forgegate-crash-*.txt"))) == 1


def test_a_damaged_run_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    damaged = tmp_path / "0123abcd.sqlite"
    damaged.write_bytes(b"this is not a database, it was overwritten" * 100)
    code, _, err = run_entry(capsys, "show", str(damaged), "item-1")
    assert code == 2, err
    assert "internal error" not in err


def test_a_store_that_is_a_file_exits_2_naming_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    not_a_folder = tmp_path / "store"
    not_a_folder.write_text("a file where the store folder should be", encoding="utf-8")
    code, _, err = run_entry(capsys, "eval", "--backend", "ollama", "--model", "m", "--base-url",
                             "http://127.0.0.1:9", "--store", str(not_a_folder), "--quiet")
    assert code == 2, err
    assert str(not_a_folder) in err


def test_a_crash_file_that_cannot_be_written_still_shows_the_traceback(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "no" / "such" / "dir"))
    plant(monkeypatch, ("runs",), RuntimeError("planted bug"))
    code, _, err = run_entry(capsys, "runs")
    assert code == 70
    assert "could not be written" in err and "Traceback" in err and "planted bug" in err


def test_a_damaged_store_being_written_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """sqlite does not say which file is damaged; the handler names the store the command was writing."""
    store = tmp_path / "store"
    # the server lists the model (so the probe before generating passes) and then fails every request:
    # every answer is missing, INCOMPLETE (a server that does not answer at all is exit 2, tests/test_preflight.py)
    with FakeOllamaServer(Behaviour(models={"m:latest": "d" * 64}, fail_first=10_000)) as server:
        args = ["eval", "--backend", "ollama", "--model", "m", "--base-url", server.url, "--retries", "1",
                "--store", str(store), "--quiet"]
        code, _, err = run_entry(capsys, *args)
        assert code == 3, err
        (run_file,) = store.glob("*.sqlite")
        run_file.write_bytes(b"overwritten by something else entirely " * 200)
        for sidecar in store.glob("*.sqlite-*"):
            sidecar.unlink()
        code, _, err = run_entry(capsys, *args)
    assert code == 2, err
    assert str(run_file) in err and "internal error" not in err


def test_a_path_with_escape_sequences_is_shown_not_emitted(crash_dir: Path, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    plant(monkeypatch, ("runs",), PermissionError(errno.EACCES, "Permission denied", "/tmp/\x1b[2Jevil\u202e.sqlite"))
    code, _, err = run_entry(capsys, "runs")
    assert code == 2
    assert "\x1b" not in err and "\u202e" not in err
    assert "␛[2Jevil\\u202e.sqlite" in err
