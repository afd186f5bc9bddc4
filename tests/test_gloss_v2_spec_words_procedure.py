"""Issue 44, items 1 and 3: the spec's own procedure, quoted (sampling as served; one signature library).

The sampling tests run against ``FakeOllamaServer`` (tests/backend_servers.py): there is no Ollama binary on the
test machines, so the fake speaks Ollama's documented API, ``/api/show`` included.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from backend_servers import Behaviour, FakeOllamaServer, FakeOpenAIServer, run_requests
from eval_helpers import one_arm_gloss_plan, run_cli_in_process, script_for
from lineage_helpers import category, item, live, passes, result

import forgegate
from forgegate.backends import BackendConfig
from forgegate.backends._decode import row_settings, served_settings
from forgegate.battery import load_battery
from forgegate.checks.signatures import signatures_present
from forgegate.checks.stop_distribution import StopAnswer, stop_distribution
from forgegate.core.modes import FailureMode
from forgegate.core.records import GenerationRequest
from forgegate.core.samples import sample_seed
from forgegate.core.sampling import AS_SERVED, DEPARTURE
from forgegate.core.verdict import Gate
from forgegate.gate.signatures import signature_reason
from forgegate.lineage import decide_graduation
from forgegate.lineage.compare import compare_runs
from forgegate.lineage.run_scores import parse_run_scores
from forgegate.pipeline.session.eval_session import EvalSpec
from forgegate.plan import lock_plan

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "examples" / "batteries"
MODEL = "gloss:v10"
STOP_SIGNATURE = "Every response runs to exactly max_tokens. No clean termination."
"""GLOSS v2, FAILURE MODES, STOP_FAILURE's signature."""
RUNS_ON = " ".join(f"w{i}" for i in range(80))
"""An answer of 80 different words: it runs to LX-STOP's 48-token cap, and repeats nothing."""


def _battery(folder: Path, extra_stop: int = 2) -> tuple[Path, Path]:
    """The tiny example battery with ``extra_stop`` more LX-STOP items, and its gate config."""
    folder.mkdir(parents=True, exist_ok=True)
    lines = (TINY / "tiny.jsonl").read_text(encoding="utf-8").splitlines()
    lines += [json.dumps({"category": "LX-STOP", "prompt": f"Crew count {i}?", "expected": "7", "max_tokens": 48,
                          "stop_within": 40, "eval_type": "contains"}) for i in range(extra_stop)]
    (folder / "battery.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    shutil.copy(TINY / "tiny-gate.toml", folder / "gate.toml")
    return folder / "battery.jsonl", folder / "gate.toml"


def _eval(tmp: Path, overrides: dict[str, str], *extra: str, extra_stop: int = 2
          ) -> tuple[int, dict[str, Any], list[dict[str, Any]], str]:
    battery, gate = _battery(tmp / "in", extra_stop)
    script = script_for(load_battery(battery), overrides)
    out = tmp / "out.json"
    with FakeOllamaServer(Behaviour(script=script, models={MODEL: "e" * 64})) as server:
        done = run_cli_in_process("eval", "--backend", "ollama", "--model", MODEL, "--base-url", server.url,
                                  "--battery", str(battery), "--gate-config", str(gate), "--store",
                                  str(tmp / "store"), "--json", str(out), "--verbose",
                                  "--markdown", str(tmp / "report.md"), *extra)
        bodies = [r.body for r in server.generation_requests()]
    report = (tmp / "report.md").read_text(encoding="utf-8")
    return done.returncode, json.loads(out.read_text(encoding="utf-8")), bodies, done.stdout + "\n" + report


# -- 1. sampling as served ----------------------------------------------------------------------------------------

def test_by_default_an_eval_sends_the_cap_and_a_seed_and_nothing_else(tmp_path: Path) -> None:
    """GLOSS v2 EXAMPLES: ``-d '{"model":"gloss:vN","prompt":"⊙ α?","stream":false,"options":{"num_predict":64}}'``:
    the cap and nothing else, so the model's served sampling applies. forgegate adds only a recorded seed."""
    code, payload, bodies, _ = _eval(tmp_path, {})
    assert code == 0, payload["reasons"]
    assert bodies and all(set(b["options"]) == {"num_predict", "seed"} for b in bodies), [b["options"] for b in bodies]
    assert {b["options"]["seed"] for b in bodies} == {0}


def test_the_result_records_the_sampling_in_force_from_api_show(tmp_path: Path) -> None:
    """"The result records the sampling in force (Ollama: the model's parameters from /api/show)"."""
    _, payload, _, report = _eval(tmp_path, {})
    sampling = payload["sampling"]
    assert sampling["procedure"] == AS_SERVED and sampling["temperature"] is None and sampling["top_p"] is None
    assert sampling["served"]["temperature"] == 0.7 and sampling["served"]["repeat_penalty"] == 1.1
    assert sampling["served"]["source"] == "ollama /api/show parameters"
    assert "sampling: as served (the spec's procedure); in force: temperature 0.7" in report


def test_a_temperature_is_sent_and_reported_as_a_departure_from_the_spec(tmp_path: Path) -> None:
    """--temperature still chooses greedy; "the result and report then say 'sampling: a departure from the spec's
    procedure'"."""
    code, payload, bodies, report = _eval(tmp_path, {}, "--temperature", "0")
    assert code == 0
    assert all(b["options"]["temperature"] == 0 and "top_p" not in b["options"] for b in bodies)
    assert payload["sampling"]["procedure"] == DEPARTURE
    assert report.count("sampling: a departure from the spec's procedure (temperature 0 sent)") == 2  # terminal, md


def test_a_plans_sampling_is_a_departure_and_says_so(tmp_path: Path) -> None:
    """"(and the plan's [sampling]) still choose greedy or any other setting, and the result and report then say
    'sampling: a departure from the spec's procedure'"; a plan that sets none samples as served."""
    battery, gate = _battery(tmp_path / "plan")
    words: dict[str, tuple[Any, list[dict[str, Any]]]] = {}
    with FakeOllamaServer(Behaviour(script=script_for(load_battery(battery)), models={MODEL: "e" * 64})) as server:
        for name, sampling in (("served", ""), ("greedy", "temperature = 0.0\n")):
            plan = tmp_path / "plan" / f"{name}.toml"
            text = one_arm_gloss_plan(server.url, MODEL, name=name, seed=0, max_tokens=128,
                                      battery="battery.jsonl", gate_config="gate.toml")
            plan.write_text(text.replace("[sampling]\n", "[sampling]\n" + sampling), encoding="utf-8")
            lock_plan(plan)
            before = len(server.generation_requests())
            done = forgegate.run_plan(plan, store=tmp_path / "runs", quiet=True)
            options = [r.body["options"] for r in server.generation_requests()[before:]]
            assert done.gloss is not None
            words[name] = (done.gloss.arms["model"].sampling, options)
    served, served_options = words["served"]
    greedy, greedy_options = words["greedy"]
    assert served.procedure == AS_SERVED and all(set(o) == {"num_predict", "seed"} for o in served_options)
    assert served.served is not None and served.served["temperature"] == 0.7
    assert greedy.procedure == DEPARTURE and all(o["temperature"] == 0 and o["top_p"] == 1 for o in greedy_options)


def test_as_served_is_its_own_stable_run_and_minus_zero_is_greedy(tmp_path: Path) -> None:
    """Run identity: "as served" is a distinct, stable identity; -0.0 and 0.0 are the same greedy run."""
    battery = load_battery(TINY / "tiny.jsonl")

    def spec(temperature: float | None, top_p: float | None = None) -> EvalSpec:
        return EvalSpec(kind="eval", backend="ollama", config=BackendConfig(model=MODEL), battery=battery, seed=0,
                        temperature=temperature, top_p=top_p, system=None)

    assert spec(None).run_id == spec(None).run_id
    assert spec(None).run_id != spec(0.0).run_id
    assert spec(-0.0).run_id == spec(0.0).run_id
    assert spec(0.0, 1.0).run_id != spec(0.0, None).run_id


def test_an_openai_compatible_server_is_sent_no_sampling_by_default() -> None:
    """The same rule on an OpenAI-compatible server: the cap (``max_tokens``) and the seed, nothing else."""
    with FakeOpenAIServer(Behaviour(script={"⊙ α?": "NOUS"})) as server:
        (done,) = run_requests("openai", BackendConfig(model="gloss:latest", base_urls=(server.url,)),
                               [GenerationRequest(prompt="⊙ α?", max_tokens=64, seed=3)])
        body = server.generation_requests()[-1].body
    assert not isinstance(done, BaseException)
    assert "temperature" not in body and "top_p" not in body and body["seed"] == 3 and body["max_tokens"] == 64


class _Config:
    def __init__(self, **values: Any) -> None:
        self.__dict__.update(values)


class _Model:
    def __init__(self, **values: Any) -> None:
        self.generation_config = _Config(**values)


def test_the_transformers_decoder_serves_the_models_generation_config() -> None:
    """"The embedded and managed backends: the values they use": transformers decodes an as-served request with the
    model's generation_config (greedy unless do_sample), and a set temperature overrides it."""
    sampled = _Model(do_sample=True, temperature=0.6, top_p=0.9, top_k=20)
    assert served_settings(sampled) == (0.6, 0.9)
    assert served_settings(_Model(do_sample=False, temperature=0.6)) == (0.0, 1.0)
    as_served = GenerationRequest(prompt="x", max_tokens=4)
    assert row_settings(as_served, served_settings(sampled)) == (0.6, 0.9)
    assert row_settings(GenerationRequest(prompt="x", max_tokens=4, temperature=0.0), (0.6, 0.9)) == (0.0, 0.9)


def test_a_sample_seed_is_reproducible_and_sample_zero_keeps_the_run_seed() -> None:
    """Each request carries a recorded seed: sample 0 the run's own; further samples seeds drawn from it."""
    assert sample_seed(5, 0) == 5
    assert sample_seed(5, 1) == sample_seed(5, 1) != sample_seed(5, 2)
    assert 0 <= sample_seed(5, 1) < 2**31


# -- 3. one signature library -------------------------------------------------------------------------------------

def _stop_items(at_cap: int, n: int = 10) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """LX-STOP items, the first ``at_cap`` of them capped (STOP_FAILURE, score 0), and the distribution recorded."""
    items = [item(f"LX-STOP-{i:02d}", "LX-STOP", i >= at_cap, failure_modes=["STOP_FAILURE"] if i < at_cap else [])
             for i in range(n)]
    answers = []
    for i, it in enumerate(items):
        capped = i < at_cap
        it["tokens"], it["finish"] = (48, "length") if capped else (3, "stop")
        answers.append({"id": it["id"], "max_tokens": 48, "tokens": it["tokens"], "finish": it["finish"],
                        "at_cap": capped})
    dist = {"category": "LX-STOP", "answered": n, "missing": 0, "at_cap": at_cap,
            "finishes": {"length": at_cap, "stop": n - at_cap} if at_cap else {"stop": n}, "answers": answers,
            "stop_failure": at_cap == n}
    return items, dist


def _battery_result(at_cap: int, run_id: str = "run-1") -> dict[str, Any]:
    stop_items, dist = _stop_items(at_cap)
    return result(category("LX-A", passes(18, 2)) + stop_items, run_id=run_id) | {"stop_distribution": dist}


def test_one_capped_answer_is_not_stop_failures_signature() -> None:
    """STOP_FAILURE: "Signature: Every response runs to exactly max_tokens. No clean termination." One capped
    answer fails its own item; the signature is the distribution's."""
    assert STOP_SIGNATURE.startswith("Every response")
    one = [StopAnswer("a", 48, 48, "length"), StopAnswer("b", 48, 3, "stop")]
    every = [StopAnswer("a", 48, 48, "length"), StopAnswer("b", 48, 48, "length")]
    labels = [{"failure_modes": ["STOP_FAILURE"]}, {"failure_modes": []}]
    assert signatures_present(labels, stop=stop_distribution(one))[FailureMode.STOP_FAILURE] is False
    assert signatures_present(labels, stop=stop_distribution(every))[FailureMode.STOP_FAILURE] is True


def test_a_missing_lx_stop_answer_leaves_the_signature_undecided_never_absent() -> None:
    """A missing answer is never a pass: STOP_FAILURE undecided, the rule INCOMPLETE."""
    partial = [StopAnswer("a", 48, 48, "length"), StopAnswer("b", 48, None, "error")]
    present = signatures_present([], stop=stop_distribution(partial))
    assert present[FailureMode.STOP_FAILURE] is None
    assert signature_reason(present).outcome is Gate.INCOMPLETE


def test_graduate_does_not_refuse_on_one_capped_item_when_battery_and_live_pass(tmp_path: Path) -> None:
    """"`graduate` refuses on a single item labelled STOP_FAILURE, even when the battery and the live test both
    PASS" (issue 44): the spec's signature is "every response runs to exactly max_tokens"."""
    decision = decide_graduation("v10", _battery_result(at_cap=1), live("PASS"), tmp_path / "lineage.jsonl", (),
                                 None, n_resamples=200)
    signature = next(r for r in decision.reasons if r.rule == "v9 failure-mode signatures absent")
    assert signature.outcome is Gate.PASS and signature.numbers[FailureMode.STOP_FAILURE] is False
    assert decision.gate is Gate.PASS and decision.graduated
    assert decision.record.failure_mode_signatures is not None
    assert decision.record.failure_mode_signatures[FailureMode.STOP_FAILURE] is False


def test_graduate_refuses_when_every_lx_stop_answer_ran_to_its_cap(tmp_path: Path) -> None:
    """The signature present (every LX-STOP response at its cap) refuses graduation ("all v9 failure mode
    signatures absent"), whatever the categories say."""
    decision = decide_graduation("v10", _battery_result(at_cap=10), live("PASS"), tmp_path / "lineage.jsonl", (),
                                 None, n_resamples=200)
    signature = next(r for r in decision.reasons if r.rule == "v9 failure-mode signatures absent")
    assert signature.outcome is Gate.FAIL and "STOP_FAILURE" in signature.detail
    assert decision.gate is Gate.FAIL


def test_lineage_compare_calls_one_capped_item_no_new_failure_mode() -> None:
    """`lineage` reads the same signatures: one capped LX-STOP answer in the new version is not a new failure
    mode (its item is compared in its category like any other)."""
    old = parse_run_scores(_battery_result(at_cap=0, run_id="old"), "old")
    new = parse_run_scores(_battery_result(at_cap=1, run_id="new"), "new")
    comparison = compare_runs(old, new, seed=0, n_resamples=200, old_label="v9", new_label="v10")
    assert FailureMode.STOP_FAILURE not in comparison.new_failure_modes
    every = parse_run_scores(_battery_result(at_cap=10, run_id="every"), "every")
    worse = compare_runs(old, every, seed=0, n_resamples=200, old_label="v9", new_label="v10")
    assert FailureMode.STOP_FAILURE in worse.new_failure_modes


def test_eval_check_failure_modes_passes_a_battery_with_one_capped_answer_by_the_category_rule(
        tmp_path: Path) -> None:
    """"A capped item still fails its own category, so the battery PASSes or FAILs by the category rule"
    (GLOSS v2: "ALL categories must score ≥ 50% individually")."""
    code, payload, _, _ = _eval(tmp_path / "one", {"Crew count 0?": RUNS_ON}, "--check-failure-modes")
    capped = next(i for i in payload["items"] if i["prompt"] == "Crew count 0?")
    assert capped["finish"] == "length" and "STOP_FAILURE" in capped["failure_modes"] and capped["score"] == 0
    assert payload["categories"]["LX-STOP"]["score"] == 2 / 3 and payload["categories"]["LX-STOP"]["gate"] == "PASS"
    assert payload["failure_mode_signatures"]["STOP_FAILURE"] is False
    assert code == 0 and payload["gate"] == "PASS"
    every = {p: RUNS_ON for p in ("What is Φ?", "Crew count 0?", "Crew count 1?")}
    code, payload, _, _ = _eval(tmp_path / "every", every, "--check-failure-modes")
    assert payload["failure_mode_signatures"]["STOP_FAILURE"] is True and code == 1
