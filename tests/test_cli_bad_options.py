"""Options that cannot work are usage errors (exit 2) before anything is sent or stored.

Before, `--retries 0` stored one "no attempt made" row per item (INCOMPLETE, exit 3),
`--timeout 0` / `-1` sent nothing, and `--base-url not-a-url` failed every request (exit 3).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer
from eval_helpers import run_cli

import forgegate
from forgegate.backends.base import base_url_problem
from forgegate.errors import InputError, UsageError
from forgegate.plan.load import load_plan
from tests.plan_helpers import PLAN, line_of, write_plan_folder

MODEL = "gloss:v10"


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--retries", "0"], "Invalid value for '--retries'"),
        (["--timeout", "0"], "--timeout must be a positive number of seconds, not 0"),
        (["--timeout", "-1"], "--timeout must be a positive number of seconds, not -1"),
        (["--timeout", "nan"], "--timeout must be a positive number of seconds"),
        (["--idle-timeout", "0"], "--idle-timeout must be a positive number of seconds"),
        (["--concurrency", "0"], "Invalid value for '--concurrency'"),
        (["--concurrency", "-3"], "Invalid value for '--concurrency'"),
    ],
    ids=["retries-0", "timeout-0", "timeout-negative", "timeout-nan", "idle-0", "concurrency-0", "concurrency-neg"],
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
])
def test_the_python_api_refuses_the_same_options_with_the_same_words(tmp_path: Path, keywords: dict[str, object],
                                                                      message: str) -> None:
    arguments: dict[str, object] = {"backend": "ollama", "model": MODEL, "base_urls": ["http://127.0.0.1:9"],
                                    "store": tmp_path / "store", "live": True, **keywords}
    with pytest.raises(UsageError, match=re.escape(message)):
        forgegate.evaluate(**arguments)  # type: ignore[arg-type]
    assert not (tmp_path / "store").exists()
