"""The fast lane's guard (tests/slow.py, switched on by tests/conftest.py): a test not marked ``slow`` that starts a
model, a server, a browser or a training run fails at once, and the error names the mark to add.

These tests are themselves in the fast lane, so every refusal below is the guard working on a real test."""

from __future__ import annotations

import subprocess
import sys

import pytest
from slow import StartsSomethingInFastLane, _guard_method, _subprocess_starts, forbidding_starts


def test_loading_a_llama_cpp_model_is_refused_and_the_error_names_the_mark() -> None:
    llama_cpp = pytest.importorskip("llama_cpp")
    with pytest.raises(StartsSomethingInFastLane) as refused:
        llama_cpp.Llama(model_path="/nowhere/model.gguf")
    message = str(refused.value)
    assert "test_loading_a_llama_cpp_model_is_refused" in message and "loads a llama.cpp model" in message
    assert "@pytest.mark.slow" in message and "@starts_something" in message


@pytest.mark.parametrize("command", [
    ["chromium", "--headless", "--dump-dom", "file:///x.html"],
    [sys.executable, "-m", "forgegate.cli.main", "view", "--store", "x", "--port", "0"],
    [sys.executable, "-m", "llama_cpp.server", "--model", "m.gguf"],
    [sys.executable, "examples/training/train_lora.py", "out"],
])
def test_spawning_a_browser_a_server_or_a_training_run_is_refused_before_it_starts(command: list[str]) -> None:
    with pytest.raises(StartsSomethingInFastLane, match="not marked slow"):
        subprocess.Popen(command)


def test_an_ordinary_subprocess_still_runs() -> None:
    assert _subprocess_starts([sys.executable, "-m", "forgegate.cli.main", "view", "--help"]) is None
    assert _subprocess_starts(["git", "status"]) is None
    done = subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "42"


def test_a_guarded_entry_point_runs_outside_a_fast_test_and_raises_inside_one() -> None:
    class Model:
        loaded: list[str] = []

        @classmethod
        def from_pretrained(cls, name: str) -> str:
            cls.loaded.append(name)
            return name

    _guard_method(Model, "from_pretrained", "loads a toy model")
    with pytest.raises(StartsSomethingInFastLane, match="loads a toy model"):  # this test is a fast-lane test
        Model.from_pretrained("a")
    assert Model.loaded == []
    import slow

    held, slow._running[:] = list(slow._running), []  # as for a test marked slow: nothing is refused
    try:
        assert Model.from_pretrained("b") == "b" and Model.loaded == ["b"]
        with forbidding_starts("tests/x.py::test_y"), pytest.raises(StartsSomethingInFastLane, match="test_y"):
            Model.from_pretrained("c")
    finally:
        slow._running[:] = held
