"""`forgegate run PLAN` end to end on tiny transformers arms (base + LoRA adapter) the tests build."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from slow import starts_something
from typer.testing import CliRunner

from forgegate.cli.main import app
from forgegate.core.verdict import Gate
from forgegate.metrics.ngram_index import NgramIndex
from forgegate.pipeline.plan.store import plan_run_state
from forgegate.plan import RULE_DOES_NOT_MOVE, LockRefusedError, lock_path, lock_plan
from forgegate.results import PlanRunResult, parse_result
from tests.plan_helpers import PLAN, write_plan_folder
from tests.tiny_models import TinyModels, build_tiny_models

pytest.importorskip("peft")

TEXTS = Path(__file__).resolve().parents[1] / "data" / "texts"


@pytest.fixture(scope="module")
@starts_something
def tiny(tmp_path_factory: pytest.TempPathFactory) -> TinyModels:
    return build_tiny_models(tmp_path_factory.mktemp("tiny"))


def tiny_plan(folder: Path, tiny: TinyModels, *, contrast_is_reference: bool = False) -> Path:
    text = (PLAN.replace('model = "models/base"', f'model = "{tiny.base}"')
            .replace('adapter = "models/ckpt1"', f'adapter = "{tiny.adapter}"')
            .replace("max_tokens = 40", "max_tokens = 24")
            # tiny-model gibberish has ~5 words per answer; the positive control's passages are that
            # long, and a passage shorter than n could never saturate
            .replace('corpus = ["corpus.txt"]', 'corpus = ["corpus.txt"]\nn = 3'))
    if contrast_is_reference:
        text = text.replace("segment_words = 100\n", 'segment_words = 100\ncontrasts = { "self" = "reference.txt" }\n')
    plan = write_plan_folder(folder, text)
    emma = (TEXTS / "austen-emma.txt").read_text(encoding="utf-8").split()
    (folder / "reference.txt").write_text(" ".join(emma[5000:7000]))
    pride = (TEXTS / "austen-pride-and-prejudice.txt").read_text(encoding="utf-8").split()
    (folder / "corpus.txt").write_text(" ".join(pride[3000:6000]))
    return plan


def invoke(args: list[str]) -> tuple[int, str, BaseException | None]:
    result = CliRunner().invoke(app, args)
    return result.exit_code, result.output, result.exception


def test_run_refuses_an_unlocked_plan(tmp_path: Path, tiny: TinyModels) -> None:
    plan = tiny_plan(tmp_path / "p", tiny)
    code, _, exc = invoke(["run", str(plan), "--store", str(tmp_path / "runs")])
    assert isinstance(exc, LockRefusedError) and "not locked" in str(exc)
    assert not plan_run_state(plan, tmp_path / "runs").has_generations


def test_run_generates_scores_resumes_and_then_freezes_the_plan(tmp_path: Path, tiny: TinyModels) -> None:
    plan = tiny_plan(tmp_path / "p", tiny)
    store = tmp_path / "runs"
    lock = lock_plan(plan)
    out = tmp_path / "result.json"
    code, output, exc = invoke(["run", str(plan), "--store", str(store), "--json", str(out), "--brief"])
    assert exc is None or isinstance(exc, SystemExit), exc
    result = json.loads(out.read_text())
    assert result["kind"] == "plan" and result["schema_version"] == 2
    assert isinstance(parse_result(result, out), PlanRunResult)  # the written JSON is the model's contract
    assert code == Gate(result["gate"]).exit_code
    assert result["plan"]["plan_hash"] == lock.plan_hash and lock.plan_hash in output
    assert result["author"] == "Austen" and "Austen" in output
    assert result["generation"]["planned"] == 2 * 3 * 2 and result["generation"]["generated"] == 12
    assert set(result["model_digests"]) == {"base", "ckpt1"}
    comp = result["comparisons"][0]
    assert set(comp["voice"]["arms"]) == {"base", "ckpt1"}
    assert set(comp["voice"]["arms"]["base"]["delta_by_seed"]) == {"1", "2"}
    assert comp["memorization"]["positive_control"]["saturated"] is True
    assert set(comp["damage"]["metrics"]) == {"out_of_band", "ran_on"}
    assert "three-axis rule" in output  # the rule's one name (core.rules.THREE_AXIS_RULE)
    state = plan_run_state(plan, store)
    assert state.generations == 12 and state.stored_plan_hash == lock.plan_hash

    # Resume: nothing is generated twice, the verdict is the same.
    code2, _, _ = invoke(["run", str(plan), "--store", str(store), "--json", str(out), "--brief"])
    again = json.loads(out.read_text())
    assert again["generation"]["generated"] == 0 and again["generation"]["skipped_finished"] == 12
    assert (code2, again["gate"]) == (code, result["gate"])

    # Amend after the first generation: refused with the diff, and re-locking is refused too.
    plan.write_text(plan.read_text().replace("band = [5, 60]", "band = [1, 500]"))
    _, _, exc = invoke(["run", str(plan), "--store", str(store)])
    assert isinstance(exc, LockRefusedError)
    assert RULE_DOES_NOT_MOVE in str(exc) and "+band = [1, 500]" in str(exc)
    with pytest.raises(LockRefusedError):
        lock_plan(plan, run_has_generations=plan_run_state(plan, store).has_generations)
    # Deleting the lock to dodge the rule does not work either: the store remembers the hash.
    lock_path(plan).unlink()
    lock_plan(plan)
    _, _, exc = invoke(["run", str(plan), "--store", str(store)])
    assert isinstance(exc, LockRefusedError) and RULE_DOES_NOT_MOVE in str(exc)


def test_a_failed_voice_control_makes_the_run_invalid(tmp_path: Path, tiny: TinyModels) -> None:
    # A "contrast author" that is the reference itself cannot score farther than the held-out folds.
    plan = tiny_plan(tmp_path / "p", tiny, contrast_is_reference=True)
    lock_plan(plan)
    out = tmp_path / "result.json"
    code, _, _ = invoke(["run", str(plan), "--store", str(tmp_path / "runs"), "--json", str(out), "--brief"])
    result = json.loads(out.read_text())
    assert result["comparisons"][0]["voice"]["controls"]["passed"] is False
    assert result["gate"] == "INVALID" and code == 4


def test_a_failed_memorization_control_makes_the_run_invalid(tmp_path: Path, tiny: TinyModels,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    # A broken index that finds nothing: the positive control (passages cut from the corpus) cannot saturate.
    monkeypatch.setattr(NgramIndex, "longest_matches", lambda self, texts: [0] * len(texts))
    plan = tiny_plan(tmp_path / "p", tiny)
    lock_plan(plan)
    out = tmp_path / "result.json"
    code, _, _ = invoke(["run", str(plan), "--store", str(tmp_path / "runs"), "--json", str(out), "--brief"])
    result = json.loads(out.read_text())
    mem = result["comparisons"][0]["memorization"]
    assert mem["positive_control"]["saturated"] is False and mem["gate"] == "INVALID"
    assert result["comparisons"][0]["gate"] == "INVALID"
    assert result["gate"] == "INVALID" and code == 4


def test_a_run_with_tied_candidates_says_which_ships_and_carries_the_leak_audit(tmp_path: Path,
                                                                                tiny: TinyModels) -> None:
    from forgegate.gate.ship import Contender, ship_choice
    from tests.plan_helpers import audit_json

    folder = tmp_path / "p"
    plan = tiny_plan(folder, tiny)
    text = plan.read_text().replace('role = "candidate"', 'role = "ship_candidate"')
    text = text.replace("[instruments.voice]", f'''[[arms]]
name = "ckpt2"
backend = "transformers"
model = "{tiny.base}"
adapter = "{tiny.adapter_other}"
role = "tied_candidate"

[instruments.voice]''') + '''
[[comparisons]]
control = "base"
candidate = "ckpt2"
primary = "voice.delta_gap"

[tiebreak]
axes = ["memorization", "seed_spread"]
min_variance_ratio = 2.0
prior = "ckpt2"

[leak_audit]
result = "leak.json"
'''
    plan.write_text(text)
    (folder / "leak.json").write_text(json.dumps(audit_json("PASS", "CLEAN")))
    code, output, exc = invoke(["plan", "lock", str(plan), "--store", str(tmp_path / "runs")])
    assert code == 0, output
    out = tmp_path / "result.json"
    code, output, exc = invoke(["run", str(plan), "--store", str(tmp_path / "runs"), "--json", str(out), "--brief"])
    assert exc is None or isinstance(exc, SystemExit), exc
    result = json.loads(out.read_text())
    parsed = parse_result(result, out)
    assert isinstance(parsed, PlanRunResult) and parsed.ships is not None
    ships = result["ships"]
    assert ships["candidates"] == ["ckpt1", "ckpt2"] and ships["axes"] == ["memorization", "seed_spread"]
    assert ships["reasons"][0]["rule"] == "ship: tied" and ships["reasons"][-1]["rule"] == "ship"
    # the JSON's choice is the rule's on the JSON's own figures
    comps = {c["candidate"]: c for c in result["comparisons"]}
    contenders = []
    for name in ("ckpt1", "ckpt2"):
        mem, voice = comps[name]["memorization"]["arms"], comps[name]["voice"]["arms"]
        excess = (mem[name]["hit_rate"] - mem["base"]["hit_rate"], mem[name]["max"] - mem["base"]["max"])
        by_seed = list(voice[name]["delta_by_seed"].values())
        contenders.append(Contender(name, Gate(comps[name]["gate"]), excess, statistics.variance(by_seed),
                                    name == "ckpt1"))
    expected = ship_choice(contenders, ["memorization", "seed_spread"], "ckpt2", 2.0)
    assert ships["arm"] == expected.arm and ships["outcome"] == expected.outcome.value
    assert ships["ship_candidate"] == "ckpt1" and comps["ckpt2"]["candidate_role"] == "tied_candidate"
    # the plan's word is the ship decision's (every generation stored), each comparison keeping its own
    assert result["generation"]["failed"] == 0 and result["gate"] == expected.outcome.value
    assert {r["rule"]: r["outcome"] for r in result["reasons"]}["ckpt1 vs base"] == comps["ckpt1"]["gate"]
    assert f"SHIPS: {expected.arm or 'none'}" in output
    assert result["leak_audit"]["gate"] == "PASS" and result["leak_audit"]["origin"] == "leak.json"
    assert "leak audit on the lock (leak.json)" in output


def test_a_reference_rewritten_after_the_lock_check_is_not_what_the_run_scores(
        tmp_path: Path, tiny: TinyModels, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 34, item 6 (read once): the voice reference is scored as the bytes the plan hash covers, even if
    the file changes while the run generates (here: right after the lock check)."""
    import forgegate.pipeline.plan.generate as plan_generate

    plan = tiny_plan(tmp_path / "p", tiny)
    lock_plan(plan)
    words = len((tmp_path / "p" / "reference.txt").read_text(encoding="utf-8").split())
    real_check_lock = plan_generate.check_lock

    def check_then_rewrite(*args: object, **kwargs: object) -> object:
        locked = real_check_lock(*args, **kwargs)  # type: ignore[arg-type]
        (tmp_path / "p" / "reference.txt").write_text("short " * 10, encoding="utf-8")
        return locked

    monkeypatch.setattr(plan_generate, "check_lock", check_then_rewrite)
    out = tmp_path / "result.json"
    code, output, exc = invoke(["run", str(plan), "--store", str(tmp_path / "runs"), "--json", str(out), "--brief"])
    assert exc is None or isinstance(exc, SystemExit), output
    result = json.loads(out.read_text())
    assert result["comparisons"][0]["voice"]["reference"]["words"] == words - words % 100  # 100-word segments
    assert (tmp_path / "p" / "reference.txt").read_text(encoding="utf-8") == "short " * 10
