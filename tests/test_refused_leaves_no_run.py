"""Issue 45: a command refused for bad input leaves no run behind, and says which backend it refused for.

A model file that is not there is found only when the backend is made, after the run's store file was created:
the refused eval used to leave an empty run that ``forgegate runs`` listed. With ``--backend llamacpp`` the
message named the "embedded model". Nothing starts here: the refusal comes before any model or server.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from eval_helpers import run_cli_in_process


@pytest.mark.parametrize("backend", ["llamacpp", "embedded"])
def test_a_refused_eval_leaves_no_run_in_the_store_and_names_its_backend(backend: str, tmp_path: Path) -> None:
    if backend == "embedded" and importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("without llama-cpp-python the embedded backend is refused for that first")
    store = tmp_path / "store"
    missing = tmp_path / "no-such-model.gguf"
    proc = run_cli_in_process("eval", "--backend", backend, "--model", str(missing), "--store", str(store))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    said = " ".join(proc.stderr.split())
    assert f"{backend} model '{missing}' is not a file: give a path to a .gguf file" in said, said
    # no run, nor SQLite's -wal / -shm beside one (the empty lock file stays: another process may wait on it)
    assert [p.name for p in store.iterdir() if not p.name.endswith(".lock")] == []
    runs = run_cli_in_process("runs", "--store", str(store))
    assert runs.returncode == 0 and "eval-" not in runs.stdout, runs.stdout


def test_a_run_that_already_held_answers_is_never_removed_by_a_refusal(tmp_path: Path) -> None:
    from report_helpers import ADVERSARIAL, stored_run

    from forgegate.store.runstore import discard_unanswered

    path, _battery, _gate = stored_run(tmp_path, ADVERSARIAL)
    assert discard_unanswered(path) is False and path.exists()
