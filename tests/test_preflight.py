"""Issue 39: endpoints are probed once before generating; ``--base-url`` is refused where it would be ignored.

A dead server, a base URL missing ``/v1`` (404) or a ``--model`` the server does not serve is bad input: exit 2
with what to fix, and no run store made; before, each was one identical error per item and an INCOMPLETE exit 3.
The servers here are the local fakes (tests/backend_servers.py: a real server cannot be made to lack a model or
a path on demand); tests/test_preflight_llamacpp.py runs the same refusals against a real llama.cpp server.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer, FakeOpenAIServer
from eval_helpers import read_json, run_cli_in_process

from forgegate.errors import InputError
from forgegate.plan import parse_plan_text
from tests.plan_helpers import PLAN

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "batteries"
TINY = ["--battery", str(EXAMPLES / "tiny.jsonl"), "--gate-config", str(EXAMPLES / "tiny-gate.toml")]


def eval_args(tmp_path: Path, backend: str, model: str, url: str, *extra: str) -> list[str]:
    return ["eval", *TINY, "--backend", backend, "--model", model, "--base-url", url, "--store",
            str(tmp_path / "store"), "--json", str(tmp_path / "result.json"), "--quiet", "--retries", "1", *extra]


def dead_url() -> str:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def assert_refused_before_any_store(proc: object, tmp_path: Path) -> str:
    out = proc.stdout + proc.stderr  # type: ignore[attr-defined]
    assert proc.returncode == 2, out  # type: ignore[attr-defined]
    assert "Traceback" not in out
    assert not (tmp_path / "store").exists() or not any((tmp_path / "store").iterdir())
    return out


def test_a_dead_server_is_bad_input_not_an_incomplete_run(tmp_path: Path) -> None:
    url = dead_url()
    out = assert_refused_before_any_store(run_cli_in_process(*eval_args(tmp_path, "openai", "m", url)), tmp_path)
    assert f"nothing answers at {url}/models" in out and "start the server" in out


def test_a_base_url_missing_v1_names_the_url_that_works(tmp_path: Path) -> None:
    with FakeOpenAIServer(Behaviour(models={"smollm2": "x"})) as server:
        bare = server.url.removesuffix("/v1")
        proc = run_cli_in_process(*eval_args(tmp_path, "openai", "smollm2", bare))
        assert not server.generation_requests()
    out = assert_refused_before_any_store(proc, tmp_path)
    assert "404" in out and f"--base-url {bare}/v1" in out


def test_a_model_the_server_does_not_serve_is_refused_with_the_one_it_does(tmp_path: Path) -> None:
    with FakeOpenAIServer(Behaviour(models={"SmolLM2-135M-Instruct": "x"})) as server:
        proc = run_cli_in_process(*eval_args(tmp_path, "openai", "qwen", server.url))
        assert not server.generation_requests()
    out = assert_refused_before_any_store(proc, tmp_path)
    assert "--model 'qwen' is not served" in out and "pass --model 'SmolLM2-135M-Instruct'" in out


def test_a_refused_api_key_says_which_option_sets_it(tmp_path: Path) -> None:
    with FakeOpenAIServer(Behaviour(models={"m": "x"}, api_key="sk-right")) as server:
        proc = run_cli_in_process(*eval_args(tmp_path, "openai", "m", server.url))
    out = assert_refused_before_any_store(proc, tmp_path)
    assert "HTTP 401" in out and "--api-key-env" in out


def test_an_ollama_model_not_pulled_is_refused_with_the_pull_command(tmp_path: Path) -> None:
    with FakeOllamaServer(Behaviour(models={"llama3:latest": "d" * 64})) as server:
        proc = run_cli_in_process(*eval_args(tmp_path, "ollama", "gloss:v10", server.url))
        assert not server.generation_requests()
    out = assert_refused_before_any_store(proc, tmp_path)
    assert "`ollama pull gloss:v10`" in out and "'llama3:latest'" in out


def test_an_openai_url_given_to_the_ollama_backend_is_refused(tmp_path: Path) -> None:
    with FakeOpenAIServer(Behaviour(models={"m": "x"})) as server:
        proc = run_cli_in_process(*eval_args(tmp_path, "ollama", "m", server.url))
    out = assert_refused_before_any_store(proc, tmp_path)
    assert "--backend openai" in out


@pytest.mark.parametrize("server_type", [FakeOpenAIServer, FakeOllamaServer])
def test_the_run_records_the_servers_own_model_id(tmp_path: Path, server_type: type) -> None:
    backend = "openai" if server_type is FakeOpenAIServer else "ollama"
    served = "tiny:latest"
    with server_type(Behaviour(models={served: "e" * 64})) as server:
        # Ollama's rule: "tiny" is "tiny:latest"; the server's own name is what is recorded
        asked = "tiny" if backend == "ollama" else served
        proc = run_cli_in_process(*eval_args(tmp_path, backend, asked, server.url))
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    result = read_json(tmp_path / "result.json")
    assert result["served_model"] == served and result["model"] == asked
    if backend == "ollama":
        assert result["model_digest"] == "e" * 64


def test_base_url_without_a_server_backend_is_refused(tmp_path: Path) -> None:
    proc = run_cli_in_process("eval", *TINY, "--base-url", "http://127.0.0.1:8080/v1", "--base-url",
                              "http://127.0.0.1:8081/v1", "--store", str(tmp_path / "store"), "--quiet")
    out = assert_refused_before_any_store(proc, tmp_path)
    assert "--backend embedded runs its model itself and would ignore it" in out and "--backend openai" in out


def test_a_plan_arm_with_base_urls_on_a_local_backend_is_refused_at_its_arm() -> None:
    text = PLAN.replace('backend = "transformers"\nmodel = "models/base"\nadapter = "models/ckpt1"',
                        'backend = "embedded"\nbase_urls = ["http://127.0.0.1:8080/v1"]')
    with pytest.raises(InputError) as info:
        parse_plan_text(Path("plan.toml"), text)
    assert info.value.field == "arms.1" and info.value.line is not None  # the arm's table, as for every option
    assert "'base_urls' is an option of the ollama / openai backend, not embedded" in str(info.value)
