"""The Python API: the CLI's road from a script and from inside a running event loop, with the CLI's errors.

The model side is a real llama.cpp server (llama-cpp-python's ``llama_cpp.server`` on the packaged
SmolLM2 GGUF) and the embedded backend, never a fake.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from eval_helpers import run_cli
from instruments_helpers import run_cli as run_in_process
from llamacpp_server import llamacpp_server
from slow import starts_something
from typer.testing import CliRunner

import forgegate
from forgegate.cli.main import app
from forgegate.core.verdict import Gate

ROOT = Path(__file__).resolve().parent.parent
TINY = ROOT / "examples" / "batteries" / "tiny.jsonl"
TINY_GATE = ROOT / "examples" / "batteries" / "tiny-gate.toml"
EXIT = {g.value: g.exit_code for g in Gate}


@pytest.fixture(scope="module")
@starts_something
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("llama_cpp.server", reason="needs llama-cpp-python[server]")
    with llamacpp_server(tmp_path_factory.mktemp("llamacpp")) as url:
        yield url


@pytest.mark.slow
def test_evaluate_async_runs_inside_a_running_loop_and_agrees_with_the_cli(server_url: str, tmp_path: Path) -> None:
    store = tmp_path / "runs"
    kwargs = {"backend": "openai", "model": "smollm2", "base_urls": [server_url], "gate_config": TINY_GATE,
              "store": store, "concurrency": 1}

    async def in_a_loop() -> tuple[Any, Any]:
        first = await forgegate.evaluate_async(TINY, **kwargs)
        # The synchronous call from a coroutine (a notebook cell): must not die on the running loop.
        again = forgegate.evaluate(TINY, **kwargs)
        return first, again

    first, again = asyncio.run(in_a_loop())
    payload = first.model_dump(mode="json")
    assert first.gate in {g.value for g in Gate} and payload["gate"] == first.gate
    assert payload["kind"] == "eval" and payload["schema_version"]
    assert len(payload["items"]) == 5 and all(item["response"] is not None for item in payload["items"])
    assert again.model_dump(mode="json")["run_id"] == payload["run_id"]  # the same run, resumed
    assert [i["response"] for i in again.model_dump(mode="json")["items"]] == [i["response"] for i in payload["items"]]

    # The CLI re-scoring the same store says the same word and the same numbers.
    out = tmp_path / "cli.json"
    done = CliRunner().invoke(app, ["rescore", payload["run_id"], "--store", str(store), "--json", str(out)])
    cli = json.loads(out.read_text(encoding="utf-8"))
    assert done.exit_code == EXIT[cli["gate"]]
    assert cli["gate"] == payload["gate"] and cli["categories"] == payload["categories"]


def test_bad_input_raises_forgegate_error_with_the_message_the_cli_prints(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"category": "LX-A", "prompt": "p", "expected": "x", "max_tokens": 8, "eval_type": "contain"}\n',
                   encoding="utf-8")
    with pytest.raises(forgegate.ForgegateError) as caught:
        forgegate.evaluate(bad, store=tmp_path / "runs")
    assert isinstance(caught.value, forgegate.InputError)
    done = run_cli("eval", "--battery", str(bad), "--store", str(tmp_path / "runs"), "--quiet")
    assert done.returncode == 2
    printed = " ".join(done.stderr.split())
    assert " ".join(f"error: {caught.value}".split()) in printed


def test_an_unknown_backend_is_a_forgegate_error_with_a_suggestion(tmp_path: Path) -> None:
    with pytest.raises(forgegate.ForgegateError, match="did you mean 'ollama'"):
        forgegate.evaluate(TINY, backend="olama", model="x", store=tmp_path / "runs")


@pytest.mark.parametrize(("keywords", "message"), [
    ({"model": 123}, "--model takes text, not 123"),
    ({"timeout": "x"}, "--timeout takes a number, not 'x'"),
    ({"temperature": "hot"}, "--temperature takes a number, not 'hot'"),
    ({"temperature": float("nan")}, "--temperature must be a finite number, 0 or more (0 = greedy), not nan"),
    ({"temperature": -3}, "--temperature must be a finite number, 0 or more (0 = greedy), not -3"),
    ({"top_p": -1}, "--top-p must be a number above 0 and at most 1 (1 = no nucleus cut), not -1"),
    ({"backend": None}, "--backend takes text, not None"),
    ({"concurrency": "8"}, "--concurrency takes a whole number, not '8'"),
    ({"concurrency": 1.5}, "--concurrency takes a whole number, not 1.5"),
    ({"concurrency": True}, "--concurrency takes a whole number, not True"),
    ({"seed": "1"}, "--seed takes a whole number, not '1'"),
    ({"seed": 2**70}, "--seed must be a whole number from -9223372036854775808 to 9223372036854775807 (the run "
                      "store keeps seeds as 64-bit integers), not 1180591620717411303424"),
    ({"seed": 10**5000}, "--seed must be a whole number from -9223372036854775808 to 9223372036854775807 (the run "
                         "store keeps seeds as 64-bit integers), not a 16610-bit whole number"),
    ({"base_urls": "http://127.0.0.1:9"}, "--base-url takes a list of URLs, not one string: base_urls=[url]"),
    ({"battery": 5}, "--battery takes a path, not 5"),
    ({"quiet": "no"}, "--quiet takes True or False, not 'no'"),
], ids=lambda value: str(value)[:40] if not isinstance(value, dict) else next(iter(value)))
def test_every_bad_keyword_raises_a_forgegate_error_in_the_clis_words(tmp_path: Path, keywords: dict[str, Any],
                                                                       message: str) -> None:
    """Never a pydantic ValidationError, a TypeError or an OverflowError: a ForgegateError, before anything runs."""
    with pytest.raises(forgegate.ForgegateError) as caught:
        forgegate.evaluate(store=tmp_path / "runs", **keywords)
    assert isinstance(caught.value, forgegate.UsageError)
    assert str(caught.value) == message
    assert not (tmp_path / "runs").exists()


def test_an_unknown_keyword_is_a_type_error_as_for_any_python_function(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'temprature'"):
        forgegate.evaluate(store=tmp_path / "runs", temprature=0.5)  # type: ignore[call-arg]


@pytest.mark.parametrize(("keywords", "message"), [
    ({"n_resamples": 0}, "--resamples must be at least 100, not 0"),
    ({"n_resamples": "9999"}, "--resamples takes a whole number, not '9999'"),
    ({"seed": -1}, "--seed must be at least 0, not -1"),
    ({"seed": 1.5}, "--seed takes a whole number, not 1.5"),
])
def test_compare_refuses_bad_bootstrap_values_before_reading_anything(tmp_path: Path, keywords: dict[str, Any],
                                                                       message: str) -> None:
    """Refused before the runs are read (they do not exist here), so long before scipy or numpy sees the value."""
    missing = str(tmp_path / "missing.json")
    with pytest.raises(forgegate.UsageError) as caught:
        forgegate.compare(missing, missing, **keywords)
    assert str(caught.value) == message


@pytest.mark.parametrize(("flags", "message"), [
    (["--resamples", "0"], "--resamples must be at least 100, not 0"),
    (["--seed", "-1"], "--seed must be at least 0, not -1"),
])
def test_compare_on_the_command_line_refuses_them_in_the_same_words(tmp_path: Path, flags: list[str],
                                                                     message: str) -> None:
    missing = str(tmp_path / "missing.json")
    done = run_in_process("compare", missing, missing, *flags)
    assert done.returncode == 2 and f"error: {message}" in done.stderr


def test_run_plan_refuses_a_bad_concurrency_in_words(tmp_path: Path) -> None:
    with pytest.raises(forgegate.UsageError, match="^--concurrency takes a whole number, not '2'$"):
        forgegate.run_plan(tmp_path / "plan", concurrency="2")  # type: ignore[arg-type]
    with pytest.raises(forgegate.UsageError, match="^plan takes a path"):
        forgegate.run_plan(None)  # type: ignore[arg-type]


def test_import_forgegate_stays_light() -> None:
    """The API's names load on first use: ``import forgegate`` pulls in none of the heavy libraries."""
    probe = ("import sys, forgegate; "
             "print(sorted(m for m in ('numpy', 'scipy', 'llama_cpp', 'torch') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


@pytest.mark.slow
def test_the_python_api_guide_example_runs(tmp_path: Path) -> None:
    guide = (ROOT / "docs" / "guides" / "python-api.md").read_text(encoding="utf-8")  # moved from the README
    blocks = re.findall(r"```python\n(.*?)```", guide, flags=re.S)
    assert blocks, "the Python API guide (docs/guides/python-api.md) has no python example"
    env = {**os.environ, "FORGEGATE_HOME": str(tmp_path / "home")}
    done = subprocess.run([sys.executable, "-c", blocks[0]], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=900, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    first = done.stdout.splitlines()[0]
    assert first.split()[0] in {g.value for g in Gate}, done.stdout
