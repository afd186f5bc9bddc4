"""Issue 46, item 5: a resume never crosses a change of weights. An Ollama model re-created under the same tag
(a new digest in /api/tags) is a new eval run; a store holding answers of other weights is refused in one line.
Ollama has no binary on the test machines: ``FakeOllamaServer`` serves its documented API."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer

from forgegate.backends import BackendConfig
from forgegate.core.records import GenerationRequest
from forgegate.errors import UsageError
from forgegate.run import ArmSpec
from forgegate.run.engine import PlannedRequest
from forgegate.run.runner import generate
from forgegate.store import RunMeta, RunStore

SCRIPT = {"⊙ α?": "NOUS", "⊙ ι?": "AION", "⊙ ο?": "KOSMOS", "Translate: the forge is cold": "frg ❄",
          "Translate: the forge is warm": "frg ☀"}


def test_an_ollama_model_recreated_under_its_tag_is_a_new_run_not_a_resume(tmp_path: Path) -> None:
    from eval_helpers import read_json, run_cli_in_process
    from view_helpers import write_inputs

    battery, config = write_inputs(tmp_path / "in")
    runs = tmp_path / "runs"
    args = ["eval", "--backend", "ollama", "--model", "gloss:v10", "--battery", str(battery), "--gate-config",
            str(config), "--store", str(runs), "--quiet"]
    behaviour = Behaviour(script=SCRIPT, models={"gloss:v10": "a" * 64})
    with FakeOllamaServer(behaviour) as server:
        first = run_cli_in_process(*args, "--base-url", server.url, "--json", str(tmp_path / "first.json"))
        asked = len(server.generation_requests())
        behaviour.models = {"gloss:v10": "b" * 64}  # `ollama create gloss:v10` again: new weights, same tag
        again = run_cli_in_process(*args, "--base-url", server.url, "--json", str(tmp_path / "again.json"))
        asked_again = len(server.generation_requests()) - asked
    assert first.returncode == again.returncode, first.stderr + again.stderr
    assert asked_again == asked > 0  # every answer generated again, none reused across weights
    before, after = read_json(tmp_path / "first.json"), read_json(tmp_path / "again.json")
    assert (before["model_digest"], after["model_digest"]) == ("a" * 64, "b" * 64)
    assert before["run_id"] != after["run_id"] and len(list(runs.glob("*.sqlite"))) == 2


def test_a_store_of_other_weights_is_refused_in_one_line(tmp_path: Path) -> None:
    store_path = tmp_path / "plan-x.sqlite"
    request = GenerationRequest(prompt="⊙ α?", max_tokens=5)
    planned = [PlannedRequest("a", "alpha", None, request)]
    with RunStore.open(store_path) as store:  # a plan's store whose arm 'a' was generated from weights 'old'
        store.init_meta(RunMeta(kind="plan", run_id="plan-x", plan_name="x"))
        store.update_meta(RunMeta(arm_digests={"a": "old" * 20}))
    with FakeOllamaServer(Behaviour(script=SCRIPT, models={"gloss:v10": "new" * 20})) as server:
        arm = ArmSpec("a", "ollama", BackendConfig(model="gloss:v10", base_urls=(server.url,)))
        with pytest.raises(UsageError) as refused:
            asyncio.run(generate(store_path, identity=RunMeta(kind="plan", run_id="plan-x", plan_name="x"),
                                 metadata=RunMeta(), arms=[arm], planned=planned, concurrency=1, quiet=True))
        assert server.generation_requests() == []
    message = str(refused.value)
    assert "\n" not in message and "old" * 20 in message and "new" * 20 in message and "--store" in message


def test_the_same_weights_resume(tmp_path: Path) -> None:
    store_path = tmp_path / "plan-x.sqlite"
    planned = [PlannedRequest("a", "alpha", None, GenerationRequest(prompt="⊙ α?", max_tokens=5))]
    identity = RunMeta(kind="plan", run_id="plan-x", plan_name="x")
    with FakeOllamaServer(Behaviour(script=SCRIPT, models={"gloss:v10": "c" * 64})) as server:
        arm = ArmSpec("a", "ollama", BackendConfig(model="gloss:v10", base_urls=(server.url,)))
        for _ in range(2):
            outcome = asyncio.run(generate(store_path, identity=identity, metadata=RunMeta(), arms=[arm],
                                           planned=planned, concurrency=1, quiet=True))
        assert len(server.generation_requests()) == 1 and outcome.model_digests == {"a": "c" * 64}


def test_temperature_minus_zero_is_the_same_run(tmp_path: Path) -> None:
    """Issue 46 (minor): ``--temperature -0.0`` samples as 0.0 and resumes the same run, not a new run id."""
    from eval_helpers import run_cli_in_process
    from view_helpers import write_inputs

    battery, config = write_inputs(tmp_path / "in")
    args = ["eval", "--backend", "ollama", "--model", "gloss:v10", "--battery", str(battery), "--gate-config",
            str(config), "--store", str(tmp_path / "runs"), "--quiet"]
    with FakeOllamaServer(Behaviour(script=SCRIPT, models={"gloss:v10": "a" * 64})) as server:
        first = run_cli_in_process(*args, "--base-url", server.url, "--temperature", "0")
        asked = len(server.generation_requests())
        again = run_cli_in_process(*args, "--base-url", server.url, "--temperature", "-0.0")
        assert len(server.generation_requests()) == asked, again.stderr
    assert first.returncode == again.returncode and len(list((tmp_path / "runs").glob("*.sqlite"))) == 1
