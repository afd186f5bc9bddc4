"""Axis A (voice): the spec's floor numbers, real novels against a held-out reference, the blind control."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from instruments_helpers import SEEDS, TEXTS, arm_from_novel, novel, run_cli, write_gens

from forgegate.core.verdict import Gate, Reason
from forgegate.gate.voice import voice_control_reason, voice_rule_reason, voice_verdict
from forgegate.metrics import ArmSeeds, Generation, floors_disagree, voice_report, voice_rule
from forgegate.metrics.noise_floor import FloorComparison
from forgegate.metrics.voice import VoiceComparison, VoiceControls


def _arm(name: str, mean: float, spread: float) -> ArmSeeds:
    """Four seeds with the given mean and max - min."""
    offsets = (-spread / 2, -spread / 6, spread / 6, spread / 2)
    return ArmSeeds(name, {seed: mean + off for seed, off in zip(SEEDS, offsets, strict=True)})


def _bronte_arms() -> dict[str, ArmSeeds]:
    """lv-bronte: base spread 0.062, ckpt475 spread 0.092, ckpt925 spread 0.251; ckpt475 gains +0.193."""
    return {"base-unadapted": _arm("base-unadapted", 1.500, 0.062),
            "ckpt475": _arm("ckpt475", 1.500 - 0.193, 0.092),
            "ckpt925": _arm("ckpt925", 1.420, 0.251)}


def _ruled(measured: VoiceComparison) -> tuple[FloorComparison | None, Reason]:
    """The instrument's comparison and the gate's reason on it (what the pipeline joins)."""
    return measured.comparison, voice_rule_reason(measured)


def test_spec_numbers_give_pairwise_floor_092_all_arms_251_ratio_2_1_and_flag_disagreement() -> None:
    comp, reason = _ruled(voice_rule("Brontë", _bronte_arms(), "base-unadapted", "ckpt475"))
    assert comp is not None
    assert comp.gap == pytest.approx(0.193)
    assert comp.floor_pairwise == pytest.approx(0.092)
    assert comp.floor_all_arms == pytest.approx(0.251)
    assert comp.floor_all_arms_from == "ckpt925"
    assert comp.ratio is not None and round(comp.ratio, 1) == 2.1
    assert floors_disagree(comp)
    assert reason.outcome is Gate.PASS
    assert "clears at 2.1x" in reason.detail and "DISAGREE" in reason.detail


def test_old_all_arms_rule_fails_the_same_gap_on_a_third_arms_floor() -> None:
    _, reason = _ruled(voice_rule("Brontë", _bronte_arms(), "base-unadapted", "ckpt475",
                                  floor_rule="all-arms"))
    assert reason.outcome is Gate.FAIL


def test_pairwise_verdict_does_not_depend_on_which_other_arms_were_generated() -> None:
    arms = _bronte_arms()
    without_third = {k: v for k, v in arms.items() if k != "ckpt925"}
    with_third = _ruled(voice_rule("Brontë", arms, "base-unadapted", "ckpt475"))
    alone = _ruled(voice_rule("Brontë", without_third, "base-unadapted", "ckpt475"))
    assert with_third[1].outcome is alone[1].outcome is Gate.PASS
    assert alone[0] is not None and not floors_disagree(alone[0])


def test_gap_inside_the_pairwise_floor_fails() -> None:
    arms = {"base": _arm("base", 1.0, 0.10), "ckpt": _arm("ckpt", 0.95, 0.08)}
    _, reason = _ruled(voice_rule("Austen", arms, "base", "ckpt"))
    assert reason.outcome is Gate.FAIL and "does not clear (0.5x)" in reason.detail


def test_one_seed_cannot_give_a_floor_and_is_incomplete() -> None:
    arms = {"base": ArmSeeds("base", {1: 1.0}), "ckpt": ArmSeeds("ckpt", {1: 0.5})}
    _, reason = _ruled(voice_rule("Austen", arms, "base", "ckpt"))
    assert reason.outcome is Gate.INCOMPLETE


def test_pride_and_prejudice_scores_well_below_great_expectations_against_held_out_emma() -> None:
    rng = np.random.default_rng(4919)
    gens = (arm_from_novel("austen", "austen-pride-and-prejudice.txt", rng)
            + arm_from_novel("dickens", "dickens-great-expectations.txt", rng))
    report = voice_report("Austen", novel("austen-emma.txt"), gens, control="dickens", candidate="austen",
                          segment_words=1000)
    austen, dickens = report.arms["austen"], report.arms["dickens"]
    assert austen.mean < 0.85 * dickens.mean
    assert max(austen.by_seed.values()) < min(dickens.by_seed.values())
    assert report.controls.passed
    assert voice_verdict(report).gate is Gate.PASS
    assert report.comparison is not None and report.comparison.ratio is not None
    assert report.comparison.ratio > 1.0


def test_dickens_as_candidate_against_austen_control_fails_the_austen_voice() -> None:
    rng = np.random.default_rng(7)
    gens = (arm_from_novel("austen", "austen-sense-and-sensibility.txt", rng)
            + arm_from_novel("dickens", "dickens-a-tale-of-two-cities.txt", rng))
    report = voice_report("Austen", novel("austen-emma.txt"), gens, control="austen", candidate="dickens",
                          segment_words=1000)
    assert report.controls.passed
    assert voice_verdict(report).gate is Gate.FAIL


def test_control_arm_that_already_writes_the_reference_makes_voice_invalid() -> None:
    rng = np.random.default_rng(11)
    emma = novel("austen-emma.txt")
    copied = [Generation(arm="base", seed=seed, text=emma) for seed in SEEDS]
    gens = copied + arm_from_novel("ckpt", "austen-pride-and-prejudice.txt", rng)
    report = voice_report("Austen", emma, gens, control="base", candidate="ckpt", segment_words=1000)
    assert not report.controls.passed
    assert voice_verdict(report).gate is Gate.INVALID


def test_voice_controls_fail_when_held_out_author_is_not_below_a_contrast_text() -> None:
    controls = VoiceControls((0.30, 0.35), 3600, "base", 0.60, (("other-author.txt", 0.33),))
    assert not controls.passed and voice_control_reason(controls).outcome is Gate.INVALID
    assert VoiceControls((0.30, 0.35), 3600, "base", 0.60, (("other.txt", 0.50),)).passed


def test_voice_cli_requires_author(tmp_path: Path) -> None:
    gens = write_gens(tmp_path / "gens.jsonl", [Generation(arm="a", seed=1, text="x y")])
    result = run_cli("voice", "--reference", TEXTS / "austen-emma.txt", "--generations", gens,
                     "--control", "a", "--candidate", "a")
    assert result.returncode == 2
    assert "--author" in result.stderr


def test_voice_cli_prints_author_and_writes_the_issue_json_shape(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    gens = (arm_from_novel("base-unadapted", "dickens-great-expectations.txt", rng)
            + arm_from_novel("ckpt1750", "austen-pride-and-prejudice.txt", rng))
    path = write_gens(tmp_path / "gens.jsonl", gens)
    result = run_cli("voice", "--author", "Jane Austen", "--reference", TEXTS / "austen-emma.txt",
                     "--generations", path, "--control", "base-unadapted", "--candidate", "ckpt1750",
                     "--json", tmp_path / "voice.json")
    assert result.returncode == 0, result.stderr
    assert "author: Jane Austen" in result.stdout and "held-out Jane Austen" in result.stdout
    payload = json.loads((tmp_path / "voice.json").read_text())
    assert payload["author"] == "Jane Austen" and payload["gate"] == "PASS" == payload["verdict"]
    arm = payload["arms"]["ckpt1750"]
    assert set(arm["delta_by_seed"]) == {str(s) for s in SEEDS}
    assert arm["spread"] == pytest.approx(max(arm["delta_by_seed"].values()) - min(arm["delta_by_seed"].values()))
    for key in ("floor_pairwise", "floor_all_arms", "floors_disagree", "gap", "ratio"):
        assert key in payload


def test_gens_file_errors_name_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "gens.jsonl"
    path.write_text('{"arm": "a", "seed": 1, "text": "ok"}\n{"arm": "a", "seed": "one", "text": "x"}\n')
    result = run_cli("voice", "--author", "Austen", "--reference", TEXTS / "austen-emma.txt",
                     "--generations", path, "--control", "a", "--candidate", "a")
    assert result.returncode == 2
    assert "gens.jsonl:2" in result.stderr and "seed" in result.stderr


def test_voice_cli_json_with_an_arm_of_empty_generations_writes_null_and_is_incomplete(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    gens = (arm_from_novel("base-unadapted", "dickens-great-expectations.txt", rng, per_seed=10)
            + [Generation(arm="eos-at-once", seed=seed, text="") for seed in SEEDS for _ in range(10)])
    path = write_gens(tmp_path / "gens.jsonl", gens)
    result = run_cli("voice", "--author", "Jane Austen", "--reference", TEXTS / "austen-emma.txt",
                     "--generations", path, "--control", "base-unadapted", "--candidate", "eos-at-once",
                     "--json", tmp_path / "voice.json")
    assert result.returncode == 3, result.stderr
    payload = json.loads((tmp_path / "voice.json").read_text())
    assert payload["gate"] == "INCOMPLETE"
    empty = payload["arms"]["eos-at-once"]
    assert empty["delta_by_seed"] == {} and empty["delta"] is None and empty["spread"] is None
    assert any("no measured seed" in r["detail"] for r in payload["reasons"])


def test_the_instrument_returns_measurements_and_no_verdict() -> None:
    """Axis A's report carries Deltas, floors and controls only; the word comes from ``gate.voice``."""
    from dataclasses import fields

    from forgegate.metrics.voice import VoiceReport

    names = {f.name for f in fields(VoiceReport)} | {f.name for f in fields(VoiceComparison)}
    assert not {"verdict", "reason"} & names
