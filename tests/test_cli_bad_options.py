"""Options that cannot work are usage errors (exit 2) before anything is sent or stored.

Before, `--retries 0` stored one "no attempt made" row per item (INCOMPLETE, exit 3),
`--timeout 0` / `-1` sent nothing, and `--base-url not-a-url` failed every request (exit 3);
`--temperature inf` / `nan` and `--seed 99999999999999999999999` crashed (exit 70) and `--top-p 5`,
`--top-p -1`, `--temperature -3` were sent to the server. One options model
(forgegate.pipeline.session.options) checks them all, for the CLI and the Python API.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer
from instruments_helpers import run_cli  # the real entry point, in-process: fast, and the same road

import forgegate
from forgegate.backends.base import base_url_problem
from forgegate.errors import InputError, UsageError
from forgegate.plan.load import load_plan
from tests.plan_helpers import PLAN, line_of, write_plan_folder

MODEL = "gloss:v10"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--retries", "0"], "--retries must be at least 1 (the first attempt counts), not 0"),
        (["--timeout", "0"], "--timeout must be a positive number of seconds, not 0"),
        (["--timeout", "-1"], "--timeout must be a positive number of seconds, not -1"),
        (["--timeout", "nan"], "--timeout must be a positive number of seconds"),
        (["--idle-timeout", "0"], "--idle-timeout must be a positive number of seconds"),
        (["--concurrency", "0"], "--concurrency must be at least 1, not 0"),
        (["--concurrency", "-3"], "--concurrency must be at least 1, not -3"),
        (["--temperature", "inf"], "--temperature must be a finite number, 0 or more (0 = greedy), not inf"),
        (["--temperature", "nan"], "--temperature must be a finite number, 0 or more (0 = greedy), not nan"),
        (["--temperature", "-3"], "--temperature must be a finite number, 0 or more (0 = greedy), not -3"),
        (["--top-p", "5"], "--top-p must be a number above 0 and at most 1 (1 = no nucleus cut), not 5"),
        (["--top-p", "-1"], "--top-p must be a number above 0 and at most 1 (1 = no nucleus cut), not -1"),
        (["--top-p", "0"], "--top-p must be a number above 0 and at most 1"),
        (["--seed", "99999999999999999999999"], "--seed must be a whole number from -9223372036854775808 to "
                                                "9223372036854775807 (the run store keeps seeds as 64-bit "
                                                "integers), not 99999999999999999999999"),
        (["--seed", str(-(2**63) - 1)], "--seed must be a whole number from -9223372036854775808"),
        (["--batch-size", "0"], "--batch-size must be at least 1, not 0"),
    ],
    ids=["retries-0", "timeout-0", "timeout-negative", "timeout-nan", "idle-0", "concurrency-0", "concurrency-neg",
         "temperature-inf", "temperature-nan", "temperature-negative", "top-p-5", "top-p-negative", "top-p-0",
         "seed-huge", "seed-below-int64", "batch-size-0"],
)
def test_bad_numbers_exit_2_before_any_request_or_store(tmp_path: Path, flags: list[str], message: str) -> None:
    store = tmp_path / "store"
    with FakeOllamaServer(Behaviour(models={MODEL: "f" * 64})) as server:
        proc = run_cli("eval", "--backend", "ollama", "--model", MODEL, "--base-url", server.url,
                       "--store", str(store), "--quiet", *flags)
        sent = server.generation_requests()
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in " ".join(proc.stderr.split())  # typer boxes its messages: compare without line breaks
    assert sent == [] and not store.exists()


def test_a_base_url_that_is_not_http_is_a_usage_error(tmp_path: Path) -> None:
    proc = run_cli("live", "--backend", "openai", "--model", MODEL, "--base-url", "not-a-url",
                   "--store", str(tmp_path / "store"), "--quiet")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "error: --base-url 'not-a-url' is not an http(s) URL with a host" in proc.stderr
    assert not (tmp_path / "store").exists()


@pytest.mark.parametrize("url", ["not-a-url", "ftp://127.0.0.1/v1", "http://", "http://127.0.0.1:99999", "127.0.0.1"])
def test_what_is_not_a_base_url(url: str) -> None:
    assert base_url_problem(url) is not None


@pytest.mark.parametrize("url", ["http://127.0.0.1:11434", "https://api.example.com/v1", "http://[::1]:8000/v1"])
def test_what_is_a_base_url(url: str) -> None:
    assert base_url_problem(url) is None


def test_a_plan_arm_with_a_bad_base_url_is_refused_at_its_line(tmp_path: Path) -> None:
    text = PLAN.replace('backend = "transformers"\nmodel = "models/base"\nrole = "control"',
                        'backend = "ollama"\nmodel = "m"\nbase_urls = ["localhost:11434"]\nrole = "control"')
    plan = write_plan_folder(tmp_path / "p", text)
    with pytest.raises(InputError, match="not an http") as caught:
        load_plan(plan)
    assert caught.value.line == line_of(text, "base_urls")


def test_run_refuses_concurrency_below_one(tmp_path: Path) -> None:
    plan = write_plan_folder(tmp_path / "p")
    proc = run_cli("run", str(plan), "--concurrency", "0", "--store", str(tmp_path / "store"))
    assert proc.returncode == 2 and "Invalid value for '--concurrency'" in " ".join(proc.stderr.split())
    assert not (tmp_path / "store").exists()


@pytest.mark.parametrize(("keywords", "message"), [
    ({"timeout": 0}, "--timeout must be a positive number of seconds, not 0"),
    ({"base_urls": ["not-a-url"]}, "--base-url 'not-a-url' is not an http(s) URL"),
    ({"retries": 0}, "--retries must be at least 1"),
    ({"temperature": float("inf")}, "--temperature must be a finite number, 0 or more (0 = greedy), not inf"),
    ({"top_p": 5}, "--top-p must be a number above 0 and at most 1 (1 = no nucleus cut), not 5"),
    ({"seed": 2**70}, "--seed must be a whole number from -9223372036854775808 to 9223372036854775807"),
    ({"idle_timeout": 0}, "--idle-timeout must be a positive number of seconds, not 0"),
    ({"device": "cuda"}, "--device: 'device' is an option of the transformers backend, not ollama"),
    ({"batch_size": 8}, "--batch-size: 'batch_size' is an option of the transformers backend, not ollama"),
])
def test_the_python_api_refuses_the_same_options_with_the_same_words(tmp_path: Path, keywords: dict[str, object],
                                                                      message: str) -> None:
    arguments: dict[str, object] = {"backend": "ollama", "model": MODEL, "base_urls": ["http://127.0.0.1:9"],
                                    "store": tmp_path / "store", "live": True, **keywords}
    with pytest.raises(UsageError, match=re.escape(message)):
        forgegate.evaluate(**arguments)  # type: ignore[arg-type]
    assert not (tmp_path / "store").exists()


@pytest.mark.parametrize(("flags", "message"), [
    (["--seed", "2", "--temperature", "inf"], "--temperature must be a finite number, 0 or more (0 = greedy), not inf"),
    (["--backend", "ollama", "--model", MODEL, "--device", "cuda"],
     "--device: 'device' is an option of the transformers backend, not ollama"),
    (["--backend", "ollama", "--model", MODEL, "--dtype", "float16"],
     "--dtype: 'dtype' is an option of the transformers backend, not ollama"),
    (["--backend", "transformers", "--model", "m", "--dtype", "float8"],
     "--dtype: 'float8' is not one of auto, float32, float16, bfloat16"),
    (["--backend", "ollama"], "--model is required with --backend ollama"),
])
def test_the_api_and_the_cli_refuse_in_the_same_words(tmp_path: Path, flags: list[str], message: str) -> None:
    """Each refusal the CLI prints, the API raises word for word: one options model builds both."""
    proc = run_cli("live", "--store", str(tmp_path / "store"), "--quiet", *flags)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert f"error: {message}" in " ".join(proc.stderr.split())
    keywords = {flag.removeprefix("--").replace("-", "_"): _typed(value) for flag, value in zip(
        flags[::2], flags[1::2], strict=True)}
    with pytest.raises(UsageError) as caught:
        forgegate.evaluate(store=tmp_path / "store", live=True, **keywords)  # type: ignore[arg-type]
    assert message in str(caught.value)
    assert f"error: {caught.value}" in " ".join(proc.stderr.split())
    assert not (tmp_path / "store").exists()


def _typed(value: str) -> object:
    """A flag's text as the API keyword's Python value."""
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def test_an_adapter_on_another_base_is_refused_by_the_api_as_by_the_cli(tmp_path: Path) -> None:
    adapter = tmp_path / "adapter"
    adapter.mkdir()
    (adapter / "adapter_config.json").write_text('{"base_model_name_or_path": "Qwen/Qwen2.5-0.5B"}',
                                                 encoding="utf-8")
    proc = run_cli("live", "--backend", "transformers", "--model", "HuggingFaceTB/SmolLM2-135M-Instruct",
                   "--adapter", str(adapter), "--store", str(tmp_path / "store"), "--quiet")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    with pytest.raises(UsageError, match="^--adapter: ") as caught:
        forgegate.evaluate(backend="transformers", model="HuggingFaceTB/SmolLM2-135M-Instruct", adapter=str(adapter),
                           store=tmp_path / "store", live=True)
    assert "Qwen2.5-0.5B" in str(caught.value)
    assert f"error: {caught.value}" in " ".join(proc.stderr.split())
    assert not (tmp_path / "store").exists()


def test_every_session_option_is_a_cli_flag_and_an_api_keyword() -> None:
    """The API reaches every option the CLI has, and each refusal names a flag `eval` really has."""
    from typer.main import get_command

    from forgegate.cli.main import app
    from forgegate.pipeline.session.options import SessionOptions, flag

    fields = set(SessionOptions.model_fields) - {"kind", "model_in_memory"}
    eval_command = get_command(app).commands["eval"]  # type: ignore[attr-defined]
    eval_flags = {opt for param in eval_command.params for opt in param.opts}
    assert {flag(field) for field in fields} <= eval_flags
    keywords = set(inspect.signature(forgegate.evaluate_async).parameters) - {"live"}
    assert keywords == fields
