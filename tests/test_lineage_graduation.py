"""The graduation decision: battery + live test + no unaccepted regression vs the last graduated version."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from lineage_helpers import category, item, live, passes, result

from forgegate.core.verdict import Gate
from forgegate.errors import UsageError
from forgegate.lineage import decide_graduation, read_lineage
from forgegate.lineage.run_scores import parse_eval
from forgegate.results import parse_result

LIVE_PASS: dict[str, Any] = live("PASS")
LIVE_FAIL: dict[str, Any] = live("FAIL", model_digest=None, failure_modes=["RUNAWAY_LOOP"])


def _battery(lx_b_pass: int, *, battery_sha: str = "b" * 64, gate: str = "PASS",
             extra: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """LX-A steady at 15/20; LX-B with ``lx_b_pass`` of 20 (the first ones pass)."""
    items = category("LX-A", passes(15, 5)) + category("LX-B", passes(lx_b_pass, 20 - lx_b_pass)) + (extra or [])
    return result(items, battery_sha=battery_sha, gate=gate, run_id=f"run-{lx_b_pass}")


def _decide(path: Path, version: str, battery: dict[str, Any], live: dict[str, Any] | None = LIVE_PASS,
            accept: tuple[str, ...] = (), note: str | None = None,
            live_declared: str | None = None):  # type: ignore[no-untyped-def]
    return decide_graduation(version, battery, live, path, accept, note, n_resamples=500,
                             live_declared=live_declared)


def test_first_version_graduates_on_battery_and_live_pass(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    decision = _decide(path, "v1", _battery(18), note="first forge")
    assert decision.gate == Gate.PASS and decision.graduated
    record = read_lineage(path).records[0][1]
    assert record.graduated and record.compared_to is None and record.comparable_to_previous is None
    assert record.category_scores == {"LX-A": 0.75, "LX-B": 0.9}
    assert record.note == "first forge" and record.run_id == "run-18" and record.live_run_id == "live"
    assert any(r.rule == "regression-check" and "nothing to compare" in r.detail for r in decision.reasons)


def test_regression_vs_last_graduated_version_refuses_and_is_recorded(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    _decide(path, "v1", _battery(19))
    decision = _decide(path, "v2", _battery(10))
    assert decision.gate == Gate.FAIL and not decision.graduated
    assert decision.record.regressions == ["LX-B"] and decision.record.compared_to == "v1"
    assert any(r.rule == "regression:LX-B" and "--accept-regression LX-B" in r.detail for r in decision.reasons)
    assert [(r.version, r.graduated) for _, r in read_lineage(path).records] == [("v1", True), ("v2", False)]


def test_named_regression_with_note_graduates_and_keeps_the_note(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    _decide(path, "v1", _battery(19))
    decision = _decide(path, "v2", _battery(10), accept=("LX-B",), note="LX-B redefined by α.13")
    assert decision.gate == Gate.PASS and decision.graduated
    record = read_lineage(path).records[-1][1]
    assert [(a.name, a.note) for a in record.accepted_regressions] == [("LX-B", "LX-B redefined by α.13")]
    assert record.regressions == ["LX-B"]


def test_accepting_a_regression_without_a_note_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    with pytest.raises(UsageError, match="--note"):
        _decide(path, "v1", _battery(19), accept=("LX-B",), note="  ")
    assert not path.exists()


def test_accepting_one_category_does_not_accept_another(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    _decide(path, "v1", _battery(19))
    decision = _decide(path, "v2", _battery(10), accept=("LX-A",), note="wrong one")
    assert decision.gate == Gate.FAIL and decision.record.accepted_regressions == []
    assert any("--accept-regression LX-A" in w for w in decision.warnings)


def test_new_failure_mode_blocks_graduation_even_with_steady_scores(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    _decide(path, "v1", _battery(15, extra=[item("LX-C-00", "LX-C", False)]))
    looped = _battery(15, extra=[item("LX-C-00", "LX-C", False, failure_modes=["IDENTITY_LOOP"])])
    decision = _decide(path, "v2", looped)
    assert decision.gate == Gate.FAIL
    assert decision.record.regressions == ["IDENTITY_LOOP"]
    assert "IDENTITY_LOOP" in decision.record.failure_modes


def test_battery_pass_and_live_fail_reports_eval_false_positive(tmp_path: Path) -> None:
    decision = _decide(tmp_path / "lineage.jsonl", "v1", _battery(19), live=LIVE_FAIL)
    assert decision.gate == Gate.FAIL and not decision.graduated
    assert any(r.rule == "EVAL_FALSE_POSITIVE" for r in decision.reasons)
    assert {"EVAL_FALSE_POSITIVE", "RUNAWAY_LOOP"} <= set(decision.record.failure_modes)


def test_battery_fail_does_not_graduate_and_is_not_a_false_positive(tmp_path: Path) -> None:
    decision = _decide(tmp_path / "lineage.jsonl", "v1", _battery(5, gate="FAIL"), live=LIVE_FAIL)
    assert decision.gate == Gate.FAIL
    assert not any(r.rule == "EVAL_FALSE_POSITIVE" for r in decision.reasons)


def test_incomplete_live_test_is_incomplete_not_a_pass(tmp_path: Path) -> None:
    decision = _decide(tmp_path / "lineage.jsonl", "v1", _battery(19), live=live("INCOMPLETE"))
    assert decision.gate == Gate.INCOMPLETE and not decision.graduated


def test_baseline_is_the_last_graduated_version_not_the_last_record(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    _decide(path, "v1", _battery(19))
    _decide(path, "v2", _battery(4, gate="FAIL"))  # a failed attempt: not a baseline
    decision = _decide(path, "v3", _battery(10))
    assert decision.record.compared_to == "v1" and decision.record.regressions == ["LX-B"]


def test_changed_battery_is_marked_not_comparable_and_not_compared(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    _decide(path, "v1", _battery(19))
    decision = _decide(path, "v2", _battery(10, battery_sha="9" * 64))
    assert decision.comparison is None and decision.record.compared_to is None
    assert decision.record.comparable_to_previous is False
    check = next(r for r in decision.reasons if r.rule == "regression-check")
    assert "not comparable" in check.detail and "battery sha256 differs" in check.detail
    assert decision.gate == Gate.PASS


def test_comparison_skips_a_later_graduate_on_another_battery(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    _decide(path, "v1", _battery(19))
    _decide(path, "v2", _battery(19, battery_sha="9" * 64))
    decision = _decide(path, "v3", _battery(10))
    assert decision.record.compared_to == "v1" and decision.record.comparable_to_previous is False
    assert decision.gate == Gate.FAIL


def test_battery_and_live_on_different_models_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="same model"):
        _decide(tmp_path / "l.jsonl", "v1", _battery(19), live=LIVE_PASS | {"model_digest": "sha256:other"})


def test_one_looping_answer_refuses_graduation_though_its_category_passes(tmp_path: Path) -> None:
    """Invariant 3: a loop means "do NOT graduate", even where LX-C still scores >= 0.50 and the result
    (written before the loop rule) says PASS."""
    looped = _battery(18, extra=[item("LX-C-00", "LX-C", True), item("LX-C-01", "LX-C", True),
                                 item("LX-C-02", "LX-C", False, failure_modes=["RUNAWAY_LOOP"])])
    decision = _decide(tmp_path / "lineage.jsonl", "v1", looped)
    assert decision.gate == Gate.FAIL and not decision.graduated
    rule = next(r for r in decision.reasons if r.rule == "no response loops")
    assert rule.outcome == Gate.FAIL and "LX-C-02 (RUNAWAY_LOOP)" in rule.detail
    written = decision.model(parse_eval(looped, "battery"), None).to_json()
    assert written["kind"] == "graduation" and written["gate"] == "FAIL" and written["lineage_line"] == decision.line
    assert parse_result(written) == decision.model(parse_eval(looped, "battery"), None)


def test_a_loop_in_the_live_test_is_named_with_its_live_item(tmp_path: Path) -> None:
    decision = _decide(tmp_path / "lineage.jsonl", "v1", _battery(19), live=LIVE_FAIL)
    rule = next(r for r in decision.reasons if r.rule == "no response loops")
    assert rule.outcome == Gate.FAIL and "live:LIVE-01 (RUNAWAY_LOOP)" in rule.detail


def test_a_clean_run_passes_the_loop_and_gloss_v2_rules(tmp_path: Path) -> None:
    decision = _decide(tmp_path / "lineage.jsonl", "v1", _battery(19))
    outcomes = {r.rule: r.outcome for r in decision.reasons}
    assert outcomes["no response loops"] == Gate.PASS and outcomes["gate is GLOSS v2"] == Gate.PASS


def test_a_gate_that_is_not_gloss_v2_never_graduates(tmp_path: Path) -> None:
    battery = _battery(19)
    battery["gate_config"]["gloss_v2"] = False
    decision = _decide(tmp_path / "lineage.jsonl", "v1", battery)
    assert decision.gate == Gate.FAIL and not decision.graduated
    rule = next(r for r in decision.reasons if r.rule == "gate is GLOSS v2")
    assert rule.outcome == Gate.FAIL and "gloss_v2 = false" in rule.detail


def test_an_older_result_under_a_gate_that_drops_categories_never_graduates(tmp_path: Path) -> None:
    """A result written before the invariants were checked carries no gloss_v2: its recorded gate is checked."""
    battery = _battery(19)
    del battery["gate_config"]["gloss_v2"]
    decision = _decide(tmp_path / "lineage.jsonl", "v1", battery)
    rule = next(r for r in decision.reasons if r.rule == "gate is GLOSS v2")
    assert decision.gate == Gate.FAIL and rule.outcome == Gate.FAIL and "no LX-C" in rule.detail
# --- GLOSS v2 invariant 6: after EVAL_FALSE_POSITIVE, "fix the eval, not the graduation criteria" ---

def test_a_later_version_on_the_false_positive_battery_is_refused(tmp_path: Path) -> None:
    """Invariant 6: 'the eval battery is broken and must be updated before the next forge'; no flag graduates on it."""
    path = tmp_path / "lineage.jsonl"
    _decide(path, "v9", _battery(19), live=LIVE_FAIL)  # battery PASS, live FAIL: the battery is marked
    decision = _decide(path, "v10", _battery(19))  # battery and live both pass, same battery bytes
    assert decision.gate == Gate.FAIL and not decision.graduated
    trust = next(r for r in decision.reasons if r.rule == "battery predicts live behaviour")
    assert trust.outcome == Gate.FAIL and "v9" in trust.detail and "no flag graduates" in trust.detail
    assert trust.numbers["battery_sha256"] == "b" * 64


def test_a_changed_battery_does_not_clear_the_mark_until_it_fails_what_slipped_through(tmp_path: Path) -> None:
    """'Fix the eval, not the graduation criteria': a one-byte edit that catches nothing clears nothing; the
    refusal names the command that records whether the replacement FAILs the checkpoint that slipped through."""
    path = tmp_path / "lineage.jsonl"
    _decide(path, "v9", _battery(19), live=LIVE_FAIL)
    decision = _decide(path, "v10", _battery(19, battery_sha="c" * 64))
    assert decision.gate == Gate.FAIL and not decision.graduated
    trust = next(r for r in decision.reasons if r.rule == "battery predicts live behaviour")
    assert trust.outcome == Gate.FAIL and "forgegate eval --model gloss:test --battery" in trust.detail


def test_a_replacement_battery_that_fails_the_slipped_checkpoint_clears_the_mark(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    _decide(path, "v9", _battery(19), live=LIVE_FAIL)
    # the replacement on v9's own model (same digest) FAILs it: the run the mark waits for, recorded
    recheck = _decide(path, "v9-recheck", _battery(5, battery_sha="c" * 64, gate="FAIL"), live=None)
    assert recheck.gate == Gate.FAIL and recheck.record.live_gate is None
    decision = _decide(path, "v10", _battery(19, battery_sha="c" * 64))
    assert decision.gate == Gate.PASS and decision.graduated
    trust = next(r for r in decision.reasons if r.rule == "battery predicts live behaviour")
    assert "FAILs every checkpoint that slipped through (v9)" in trust.detail


@pytest.mark.parametrize("digest", [None, "sha256:stub"], ids=["no-digest", "other-digest"])
def test_a_fail_on_other_weights_under_the_same_name_does_not_clear_the_mark(tmp_path: Path,
                                                                            digest: str | None) -> None:
    """Issue 46: a stub server under the slipped checkpoint's name (no digest, or another one) FAILs the
    replacement battery; only a FAIL of the same weights (the same digest) clears the mark."""
    path = tmp_path / "lineage.jsonl"
    _decide(path, "v9", _battery(19), live=LIVE_FAIL)  # v9 ran on sha256:feed
    stub = _battery(5, battery_sha="c" * 64, gate="FAIL") | {"model_digest": digest}
    _decide(path, "stub-recheck", stub, live=None)
    decision = _decide(path, "v10", _battery(19, battery_sha="c" * 64))
    assert decision.gate == Gate.FAIL and not decision.graduated
    trust = next(r for r in decision.reasons if r.rule == "battery predicts live behaviour")
    assert trust.outcome == Gate.FAIL and trust.numbers["not_caught"] == "v9"
    assert "digest sha256:feed" in trust.detail


def test_a_slipped_checkpoint_without_a_digest_is_cleared_by_no_name(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    _decide(path, "v9", _battery(19) | {"model_digest": None}, live=LIVE_FAIL)
    _decide(path, "v9-recheck", _battery(5, battery_sha="c" * 64, gate="FAIL") | {"model_digest": None}, live=None)
    decision = _decide(path, "v10", _battery(19, battery_sha="c" * 64))
    trust = next(r for r in decision.reasons if r.rule == "battery predicts live behaviour")
    assert trust.outcome == Gate.FAIL and "holds no model digest" in trust.detail


def test_without_a_false_positive_the_battery_rule_passes(tmp_path: Path) -> None:
    decision = _decide(tmp_path / "lineage.jsonl", "v1", _battery(19))
    trust = next(r for r in decision.reasons if r.rule == "battery predicts live behaviour")
    assert trust.outcome == Gate.PASS and "no recorded EVAL_FALSE_POSITIVE" in trust.detail


def test_lineage_show_marks_the_battery_that_does_not_predict_live_behaviour(tmp_path: Path) -> None:
    from forgegate.lineage.render_lineage import lineage_markdown

    path = tmp_path / "lineage.jsonl"
    _decide(path, "v9", _battery(19), live=LIVE_FAIL)
    text = lineage_markdown(read_lineage(path))
    assert (f"- battery {'b' * 16}…: 1 decision(s), battery PASS 1, followed by a live PASS 0/1; slipped through "
            "(battery PASS, live FAIL): v9: marked EVAL_FALSE_POSITIVE") in text


# --- issue 35, item 2: graduation is the spec's whole procedure ---

def test_a_v9_signature_in_a_passing_category_refuses_graduation(tmp_path: Path) -> None:
    """VERIFICATION CRITERIA: 'Before graduation ... --check-failure-modes ... Expected: all v9 failure mode
    signatures absent'. LX-B still passes at 19/20; its one STYLE_SUBSTANCE item refuses graduation."""
    styled = _battery(19, extra=[item("LX-B-99", "LX-B", False, failure_modes=["STYLE_SUBSTANCE"])])
    decision = _decide(tmp_path / "lineage.jsonl", "v1", styled)
    assert decision.gate == Gate.FAIL and not decision.graduated
    signature = next(r for r in decision.reasons if r.rule == "v9 failure-mode signatures absent")
    assert signature.outcome == Gate.FAIL and "STYLE_SUBSTANCE" in signature.detail
    clean = next(r for r in _decide(tmp_path / "other.jsonl", "v1", _battery(19)).reasons
                 if r.rule == "v9 failure-mode signatures absent")
    assert clean.outcome == Gate.PASS


def test_the_live_test_is_needed_after_a_battery_pass_and_not_run_after_a_fail(tmp_path: Path) -> None:
    """'After battery PASS, run 10 live crew communication tasks'."""
    with pytest.raises(UsageError, match="After battery PASS"):
        _decide(tmp_path / "lineage.jsonl", "v1", _battery(19), live=None)
    decision = _decide(tmp_path / "lineage.jsonl", "v1", _battery(5, gate="FAIL"), live=None)
    live_reason = next(r for r in decision.reasons if r.rule == "live-test")
    assert decision.gate == Gate.FAIL and "not run" in live_reason.detail
    assert decision.record.live_gate is None and decision.record.live_battery_sha256 is None


def test_the_record_keeps_the_live_batterys_sha256(tmp_path: Path) -> None:
    from forgegate.lineage.graduation import spec_live_sha256

    _decide(tmp_path / "lineage.jsonl", "v1", _battery(19))
    record = read_lineage(tmp_path / "lineage.jsonl").records[0][1]
    assert record.live_battery_sha256 == spec_live_sha256() and record.live_battery_declared is None


def test_another_live_battery_is_accepted_only_when_declared_and_the_record_shows_it(tmp_path: Path) -> None:
    path = tmp_path / "lineage.jsonl"
    other = live("PASS", battery_sha="e" * 64)
    with pytest.raises(UsageError, match="--declare-live-battery"):
        _decide(path, "v1", _battery(19), live=other)
    assert not path.exists()
    decision = _decide(path, "v1", _battery(19), live=other, live_declared="Ollama tasks re-worded by α.13")
    record = read_lineage(path).records[0][1]
    assert decision.graduated and record.live_battery_sha256 == "e" * 64
    assert record.live_battery_declared == "Ollama tasks re-worded by α.13"
