"""Issue 39 against a real llama.cpp server (llama-cpp-python's ``llama_cpp.server`` on the packaged SmolLM2).

That server answers any ``model`` name with the one model it serves, so without the probe ``--model qwen`` ran
and labelled a SmolLM2 run "qwen"; and its routes live under ``/v1``, so a base URL without it got a 404 per item.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from eval_helpers import read_json, run_cli_in_process
from llamacpp_server import MODEL_ALIAS, llamacpp_server
from slow import starts_something

pytestmark = pytest.mark.slow
EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "batteries"


@pytest.fixture(scope="module")
@starts_something
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    pytest.importorskip("llama_cpp.server", reason="needs llama-cpp-python[server]")
    with llamacpp_server(tmp_path_factory.mktemp("llamacpp")) as url:
        yield url


def run_eval(tmp_path: Path, model: str, url: str) -> tuple[int, str]:
    proc = run_cli_in_process("eval", "--battery", str(EXAMPLES / "tiny.jsonl"), "--gate-config",
                              str(EXAMPLES / "tiny-gate.toml"), "--backend", "openai", "--model", model,
                              "--base-url", url, "--store", str(tmp_path / "store"), "--json",
                              str(tmp_path / "result.json"), "--quiet", "--timeout", "300")
    return proc.returncode, proc.stdout + proc.stderr


def test_a_model_name_the_server_does_not_list_is_refused(server_url: str, tmp_path: Path) -> None:
    code, out = run_eval(tmp_path, "qwen", server_url)
    assert code == 2, out
    assert f"pass --model '{MODEL_ALIAS}'" in out and not (tmp_path / "result.json").exists()


def test_a_base_url_without_v1_is_refused_naming_the_one_that_answers(server_url: str, tmp_path: Path) -> None:
    bare = server_url.removesuffix("/v1")
    code, out = run_eval(tmp_path, MODEL_ALIAS, bare)
    assert code == 2, out
    assert f"pass --base-url {bare}/v1" in out


def test_the_served_model_id_is_recorded_with_the_result(server_url: str, tmp_path: Path) -> None:
    code, out = run_eval(tmp_path, MODEL_ALIAS, server_url)
    assert code in (0, 1), out  # the verdict is the model's; the point is that it ran and says what answered
    result = read_json(tmp_path / "result.json")
    assert result["served_model"] == MODEL_ALIAS and result["model"] == MODEL_ALIAS
    assert all(item["error"] is None for item in result["items"])
