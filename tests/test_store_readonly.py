"""Read-only commands (runs, show, rescore, report, review listing) work on a read-only store folder.

Before, every one of them crashed there with `sqlite3.OperationalError: unable to open database file`
(a WAL reader needs a ``-shm`` file next to the run). The folder is made read-only with chmod; root
ignores file modes, so as root the commands run in a user namespace (`unshare --user`), where the
same root is an ordinary owner and the modes hold.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from store_helpers import LIVE, copy_store, fake_ollama, live_args, make_live_run


def _user_namespace_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "--user", "true"], capture_output=True).returncode == 0


def _prefix() -> list[str]:
    if os.geteuid() != 0:
        return []
    if not _user_namespace_works():
        pytest.skip("running as root, and `unshare --user` is not available: chmod cannot make a folder "
                    "read-only for root")
    return ["unshare", "--user"]


@pytest.fixture
def prefix() -> list[str]:
    """What runs a command so that file modes bind it (nothing, or a user namespace for root)."""
    return _prefix()


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store folder with one finished live run, made once for this file; each test works on a copy."""
    store = tmp_path_factory.mktemp("finished") / "store"
    make_live_run(store)
    return store


@pytest.fixture
def read_only(tmp_path: Path, prefix: list[str], finished: Path) -> Iterator[Path]:
    """A copy of the finished run's store folder, read-only for the commands these tests run."""
    store = copy_store(finished, tmp_path / "store")
    for path in store.iterdir():
        path.chmod(0o444)
    store.chmod(0o555)
    try:
        yield store
    finally:
        store.chmod(0o755)
        for path in store.iterdir():
            path.chmod(0o644)


def cli(prefix: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    command = [*prefix, sys.executable, "-m", "forgegate.cli.main", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "COLUMNS": "250"})


ONE_AFTER_ANOTHER = """
import contextlib, io, json, sys
from forgegate.cli.main import run
answers = []
for args in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(["forgegate", *args])
    answers.append([code, out.getvalue(), err.getvalue()])
print(json.dumps(answers))
"""


def cli_each(prefix: list[str], *commands: list[str]) -> list[subprocess.CompletedProcess[str]]:
    """Run each command line, one after another, through the CLI's ``run`` inside one subprocess under ``prefix``:
    the file modes bind every one of them, and the file pays for one interpreter, not one per command."""
    proc = subprocess.run([*prefix, sys.executable, "-c", ONE_AFTER_ANOTHER, json.dumps(commands)],
                          capture_output=True, text=True, timeout=600, env={**os.environ, "COLUMNS": "250"})
    assert proc.returncode == 0, proc.stderr
    return [subprocess.CompletedProcess(command, code, out, err)
            for command, (code, out, err) in zip(commands, json.loads(proc.stdout), strict=True)]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_read_only_commands_work_on_a_read_only_store_and_write_nothing(read_only: Path, prefix: list[str],
                                                                        tmp_path: Path) -> None:
    store = read_only
    (run,) = store.glob("*.sqlite")
    before = snapshot(store)
    out = tmp_path / "out"
    out.mkdir()
    item = LIVE.items[0].item_id
    with fake_ollama() as server:  # a server that answers: the refusal is the store's, not the endpoint probe's
        listing, shown, rescored, reported, reviews, generating = cli_each(
            prefix,
            ["runs", "--store", str(store)],
            ["show", run.stem, item, "--store", str(store)],
            ["rescore", run.stem, "--store", str(store), "--json", str(out / "r.json")],
            ["report", run.stem, "--store", str(store), "--html", str(out / "r.html")],
            ["review", run.stem, "--store", str(store)],
            live_args(server.url, store))  # a writer is refused, clearly
    for proc in (listing, shown, rescored, reported, reviews):
        assert proc.returncode == 0, proc.stderr
        assert "Traceback" not in proc.stderr
    assert generating.returncode == 2 and "cannot create the run's lock file" in generating.stderr
    assert "--store" in generating.stderr
    assert run.stem in listing.stdout and "PASS" in listing.stdout
    assert item in shown.stdout and "finish stop" in shown.stdout
    assert (out / "r.json").exists() and (out / "r.html").exists()
    assert "pending of" in reviews.stdout
    assert snapshot(store) == before  # no -shm, no -wal, no byte changed


def test_answers_waiting_in_a_wal_file_of_a_read_only_store_are_refused_not_skipped(tmp_path: Path,
                                                                                     prefix: list[str],
                                                                                     finished: Path) -> None:
    source = copy_store(finished, tmp_path / "source")
    (run,) = source.glob("*.sqlite")
    writer = sqlite3.connect(run, isolation_level=None)  # an open writer keeps new rows in the -wal file
    try:
        writer.execute("INSERT INTO meta (key, value) VALUES ('note', '\"pending\"')")
        store = copy_store(source, tmp_path / "store")
    finally:
        writer.close()
    (store / f"{run.name}-shm").unlink(missing_ok=True)  # as a copy from a killed writer's folder may be
    assert (store / f"{run.name}-wal").stat().st_size > 0
    store.chmod(0o555)
    try:
        proc = cli(prefix, "show", run.stem, LIVE.items[0].item_id, "--store", str(store))
    finally:
        store.chmod(0o755)
    assert proc.returncode == 2, proc.stderr
    assert "answers wait in its -wal file and its folder is read-only" in " ".join(proc.stderr.split())
