"""A store that fails well: a damaged run file, a file where a folder belongs, a folder where the run file
belongs: each is named with what to do and exits 2 (never 1, the code of a FAIL, from a crash).

Before, these ended in `sqlite3.DatabaseError: database disk image is malformed`, `FileExistsError`
or `NotADirectoryError` tracebacks (exit 1), and one damaged file broke `forgegate runs` for the store.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from eval_helpers import run_cli_in_process
from store_helpers import LIVE, copy_store, fake_ollama, live_args, make_live_run

WIDE = {"COLUMNS": "250"}  # the runs table prints whole run ids


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store folder holding one finished live-test run (copied by each test that damages it)."""
    store = tmp_path_factory.mktemp("finished") / "store"
    make_live_run(store)
    return store


def truncate(run: Path) -> None:
    data = run.read_bytes()
    run.write_bytes(data[: len(data) // 2])


def overwrite(run: Path) -> None:
    run.write_text("these are not the answers you are looking for\n" * 50)


def assert_damaged_message(stderr: str, run: Path) -> None:
    said = " ".join(stderr.split())
    assert f"{run}: the run file is damaged" in said, stderr
    assert "move it aside" in said and "--store" in said and "Traceback" not in stderr


@pytest.mark.parametrize("command", ["live", "show", "rescore", "report"])
def test_a_truncated_run_file_is_named_as_damaged_and_exits_2(tmp_path: Path, finished: Path, command: str) -> None:
    store = copy_store(finished, tmp_path / "store")
    (run,) = store.glob("*.sqlite")
    truncate(run)
    with fake_ollama() as server:
        args = {
            "live": live_args(server.url, store),
            "show": ["show", run.stem, LIVE.items[0].item_id, "--store", str(store)],
            "rescore": ["rescore", run.stem, "--store", str(store)],
            "report": ["report", run.stem, "--store", str(store), "--html", str(tmp_path / "r.html")],
        }[command]
        proc = run_cli_in_process(*args)
        sent = server.generation_requests()
    assert proc.returncode == 2, proc.stderr
    assert_damaged_message(proc.stderr, run)
    assert sent == []


def test_an_overwritten_run_file_is_named_as_damaged_and_exits_2(tmp_path: Path, finished: Path) -> None:
    store = copy_store(finished, tmp_path / "store")
    (run,) = store.glob("*.sqlite")
    overwrite(run)
    proc = run_cli_in_process("rescore", run.stem, "--store", str(store))
    assert proc.returncode == 2
    assert_damaged_message(proc.stderr, run)
    assert "file is not a database" in proc.stderr


def test_runs_lists_every_run_and_the_damaged_ones_as_such(tmp_path: Path, finished: Path) -> None:
    store = copy_store(finished, tmp_path / "store")
    (good,) = store.glob("*.sqlite")
    truncated, garbage = store / "eval-truncated.sqlite", store / "eval-garbage.sqlite"
    truncated.write_bytes(good.read_bytes())
    truncate(truncated)
    overwrite(garbage)
    proc = run_cli_in_process("runs", "--store", str(store), env=WIDE)
    assert proc.returncode == 0, proc.stderr
    rows = {line.split()[0]: line for line in proc.stdout.splitlines() if line.strip()}
    assert set(rows) >= {good.stem, truncated.stem, garbage.stem}
    assert " live " in rows[good.stem] and " PASS " in rows[good.stem]
    assert "damaged" in rows[truncated.stem] and "damaged" in rows[garbage.stem]
    assert_damaged_message(proc.stderr, truncated)
    assert_damaged_message(proc.stderr, garbage)


def test_store_option_naming_a_file_is_refused(tmp_path: Path) -> None:
    a_file = tmp_path / "not-a-folder"
    a_file.write_text("x")
    with fake_ollama() as server:
        generating = run_cli_in_process(*live_args(server.url, a_file))
        sent = server.generation_requests()
    listing = run_cli_in_process("runs", "--store", str(a_file))
    for proc in (generating, listing):
        assert proc.returncode == 2, proc.stderr
        assert f"{a_file}: is a file, but --store needs a folder" in " ".join(proc.stderr.split())
    assert sent == [] and a_file.read_text() == "x"


def test_forgegate_home_naming_a_file_is_refused(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.write_text("x")
    with fake_ollama() as server:
        proc = run_cli_in_process(*live_args(server.url, None), env={"FORGEGATE_HOME": str(home)})
        sent = server.generation_requests()
    assert proc.returncode == 2, proc.stderr
    said = " ".join(proc.stderr.split())
    assert f"{home}: is a file, but FORGEGATE_HOME needs a folder at {home / 'runs'}" in said
    assert sent == []


def test_a_folder_where_the_run_file_belongs_is_refused(tmp_path: Path, finished: Path) -> None:
    store = copy_store(finished, tmp_path / "store")
    (run,) = store.glob("*.sqlite")
    run.unlink()
    run.mkdir()
    with fake_ollama() as server:
        generating = run_cli_in_process(*live_args(server.url, store))
        sent = server.generation_requests()
    showing = run_cli_in_process("show", str(run.stem), LIVE.items[0].item_id, "--store", str(store))
    for proc in (generating, showing):
        assert proc.returncode == 2, proc.stderr
        assert f"{run}: is a folder, but a run file (SQLite) belongs there" in " ".join(proc.stderr.split())
    assert sent == []
