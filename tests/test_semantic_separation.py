"""Development vs confirmation data, post-freeze merges, and the blinded human validation of the codebook."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from semantic_helpers import OracleJudge, run_cli
from test_run_semantic import plan_text, run, write_plan

from forgegate.core.verdict import Gate, Reason, Verdict
from forgegate.errors import InputError, UsageError
from forgegate.gate.semantic import validation_reason
from forgegate.pipeline.semantic.validation import add_validation
from forgegate.plan import lock_plan
from forgegate.plan.instruments import SemanticParams
from forgegate.report.semantic_extras import codebook_lines
from forgegate.results import parse_result
from forgegate.results.semantic_blocks import CodebookInfo
from forgegate.results.semantic_checks import SemanticValidationResult
from forgegate.semantic.codebook import (
    TextSample,
    assign,
    build_codebook,
    freeze,
    load_codebook,
    sample_hash,
    write_codebook,
)
from forgegate.semantic.develop_confirm import confirm
from forgegate.semantic.sheets import read_sheet, validation_sheet, write_filled_sheet

QUESTIONS = {"t1": "What is the capital of France?"}
DEV = [TextSample(task="t1", condition=c, sample=i, text=t) for i, (c, t) in enumerate(
    [("A", "m1: Paris"), ("A", "m2: Lyon"), ("B", "m1: it is Paris"), ("B", "m1: Paris"), ("A", "m2: Lyon maybe")])]
EXAMPLE_CODEBOOK = Path(__file__).resolve().parents[1] / "examples" / "tgpt" / "codebook.json"


class BridgeJudge(OracleJudge):
    """Like the oracle, but a text tagged ``m1+m2:`` carries both meanings: it entails and is entailed by either."""

    def judge(self, question, pairs):  # type: ignore[no-untyped-def]
        super().judge(question, pairs)
        tags = [(set(a.split(":")[0].split("+")), set(b.split(":")[0].split("+"))) for a, b in pairs]
        return ["entailment" if x & y else "neutral" for x, y in tags]


def frozen_book(tmp_path: Path, *, old: bool = False) -> Path:
    draft, _ = build_codebook(DEV, QUESTIONS, OracleJudge())
    if old:  # a codebook frozen before forgegate recorded its development samples
        draft = draft.model_copy(update={"development_samples": None})
    path = tmp_path / "codebook.json"
    write_codebook(freeze(draft), path)
    if old:
        data = json.loads(path.read_text())
        del data["development_samples"]
        path.write_text(json.dumps(data))
    return path


def test_the_frozen_codebook_records_and_hashes_its_development_samples(tmp_path: Path) -> None:
    path = frozen_book(tmp_path)
    data = json.loads(path.read_text())
    assert data["development_samples"] == sorted(sample_hash(s) for s in DEV) and len(data["development_samples"]) == 5
    data["development_samples"] = data["development_samples"][1:]  # forgetting a development sample after the freeze
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="content hash does not match"):
        load_codebook(path, require_frozen=True)


def test_a_confirmation_run_refuses_a_development_sample_and_names_it(tmp_path: Path) -> None:
    path = frozen_book(tmp_path)
    fresh = TextSample(task="t1", condition="A", sample=7, text="m2: Lyon")  # same text, a new generation: fine
    out = confirm(path, [fresh], OracleJudge(), tmp_path / "ok")
    report = json.loads((tmp_path / "ok" / "assignment_report.json").read_text())
    assert report["separation"]["reused"] == 0 and report["separation"]["development_samples"] == 5
    assert json.loads(out.read_text())["cluster"] == "t1:c2"
    with pytest.raises(UsageError) as err:
        confirm(path, [fresh, DEV[1]], OracleJudge(), tmp_path / "bad")
    assert "1 confirmation sample(s) are development samples" in str(err.value)
    assert "task 't1' condition 'A' sample 1" in str(err.value)
    with pytest.raises(UsageError, match="development samples"):  # exploratory or not: never confirmation data
        confirm(path, [DEV[1]], OracleJudge(), tmp_path / "bad", confirmatory=False)
    assert not (tmp_path / "bad").exists()


def test_an_old_codebook_without_hashes_is_refused_for_confirmatory_use_and_noted_when_exploratory(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    path = frozen_book(tmp_path, old=True)
    assert load_codebook(path, require_frozen=True).development_samples is None  # its old hash still matches
    conf = [TextSample(task="t1", condition="B", sample=9, text="m1: Paris")]
    with pytest.raises(UsageError, match="records no development-sample hashes") as err:
        confirm(path, conf, OracleJudge(), tmp_path / "c")
    assert "forgegate semantic cluster --samples DEV.jsonl" in str(err.value)
    confirm(path, conf, OracleJudge(), tmp_path / "c", confirmatory=False)
    report = json.loads((tmp_path / "c" / "assignment_report.json").read_text())
    assert report["separation"]["development_samples"] is None and "not checked" in report["separation"]["note"]
    # the example's codebook predates the hashes: it still loads (the example plan is exploratory)
    assert load_codebook(EXAMPLE_CODEBOOK, require_frozen=True).development_samples is None


def test_confirmatory_plan_on_an_old_codebook_is_refused_before_generating(tmp_path: Path) -> None:
    folder = tmp_path / "p"
    plan = write_plan(folder, plan_text("tgpt-old", list(range(1, 65)), "http://127.0.0.1:9",
                                        'codebook = "codebook.json"\n', confirmatory=True))
    samples = [TextSample(task=t, condition="A", sample=0, text="m1: x") for t in ("t1", "t2")]
    draft, _ = build_codebook(samples, {"t1": "q1", "t2": "q2"}, OracleJudge())
    write_codebook(freeze(draft.model_copy(update={"development_samples": None})), folder / "codebook.json")
    lock_plan(plan)
    code, output, exc = run(plan, tmp_path / "runs", tmp_path / "out.json")
    assert isinstance(exc, InputError) and exc.field == "instruments.semantic.codebook", (code, output)
    assert "records no development-sample hashes" in str(exc) and "confirmatory = false" in str(exc)
    assert not list((tmp_path / "runs").glob("*.sqlite"))


def test_a_merge_after_the_freeze_is_detected_and_reported_as_exploratory(tmp_path: Path) -> None:
    book = load_codebook(frozen_book(tmp_path), require_frozen=True)
    conf = [TextSample(task="t1", condition="B", sample=i, text=t)
            for i, t in enumerate(["m1+m2: Paris or Lyon", "m1+m2: Paris or Lyon", "m1: Paris", "m2: Lyon"])]
    rows, report = assign(book, conf, BridgeJudge())
    # the frozen greedy rule still decides: the bridging text takes the first cluster, no score moves
    assert [r["cluster"] for r in rows] == ["t1:c1", "t1:c1", "t1:c1", "t1:c2"]
    assert report["apparent_merges"] == {"t1": [{"clusters": ["t1:c1", "t1:c2"], "size": 2,
                                                 "exemplar": "m1+m2: Paris or Lyon"}]}
    assert report["label"].startswith("exploratory")
    _, plain = assign(book, conf[2:], BridgeJudge())
    assert plain["apparent_merges"] == {}


def filled_validation(tmp_path: Path, flip: int = 0, blank: int = 0) -> tuple[Path, Path]:
    """The blinded sheet of the test codebook, filled: the clustering's verdict, ``flip`` rows contradicted and
    ``blank`` rows left empty."""
    book = load_codebook(frozen_book(tmp_path), require_frozen=True)
    sheet, key = tmp_path / "validation_sheet.csv", tmp_path / "validation_key.csv"
    assert validation_sheet(book, sheet, key, np.random.default_rng(3)) == 3
    _, rows = read_sheet(key)
    labels: dict[str, int | None] = {}
    for k, row in enumerate(rows):
        same = int(row["clustering_same"])
        labels[row["row"]] = None if k < blank else (1 - same if k < blank + flip else same)
    filled = tmp_path / "validation_filled.csv"
    write_filled_sheet(sheet, filled, "row", "same_meaning", labels)
    return filled, key


def validate(filled: Path, key: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
             *extra: str) -> tuple[int, str, dict[str, Any]]:
    out = filled.with_suffix(".json")
    code, stdout, stderr = run_cli(["semantic", "validate", "--sheet", str(filled), "--key", str(key), "--json",
                                    str(out), *extra], capsys, monkeypatch)
    return code, stdout + stderr, json.loads(out.read_text()) if out.exists() else {}


def test_validate_scores_a_known_sheet_with_intervals_and_enforces_the_minimum(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    filled, key = filled_validation(tmp_path, flip=1)
    code, out, result = validate(filled, key, capsys, monkeypatch, "--minimum", "0.6")
    assert result["agreement"]["value"] == pytest.approx(2 / 3) and result["labelled"] == 3
    low, high = result["agreement"]["ci"]
    assert 0.0 <= low <= 2 / 3 <= high <= 1.0
    assert result["within_cluster"]["pairs"] + result["between_clusters"]["pairs"] == 3
    assert code == 0 and result["gate"] == "PASS" and "agreement: 0.667" in out
    typed = parse_result(result, "validation.json")  # a registered result kind (issue 34, item 3)
    assert isinstance(typed, SemanticValidationResult) and typed.minimum == 0.6
    assert typed.reasons[0].outcome.value == "PASS"
    code, out, result = validate(filled, key, capsys, monkeypatch, "--minimum", "0.9")
    assert code == 4 and result["gate"] == "INVALID" and "below the declared minimum 0.9" in " ".join(out.split())
    perfect, key = filled_validation(tmp_path / "all", flip=0)
    code, _, result = validate(perfect, key, capsys, monkeypatch, "--minimum", "0.9")
    assert code == 0 and result["agreement"]["value"] == 1.0 and result["cohens_kappa"] == pytest.approx(1.0)


def test_validate_with_blank_rows_is_incomplete_and_a_bad_label_is_refused_at_its_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    filled, key = filled_validation(tmp_path, blank=1)
    code, _, result = validate(filled, key, capsys, monkeypatch, "--minimum", "0.5")
    assert code == 3 and result["gate"] == "INCOMPLETE" and result["complete"] is False
    assert len(result["unlabelled_rows"]) == 1
    lines = filled.read_text().splitlines()
    lines[2] = lines[2].rsplit(",", 1)[0] + ",yes"
    filled.write_text("\n".join(lines) + "\n")
    code, out, _ = validate(filled, key, capsys, monkeypatch)
    assert code == 2 and f"{filled}:3: field 'same_meaning': same_meaning 'yes' is not 0 or 1" in " ".join(out.split())


def test_a_plan_declaring_validation_gets_its_reason_missing_sheet_incomplete_low_agreement_invalid(
        tmp_path: Path) -> None:
    filled, key = filled_validation(tmp_path, flip=1)
    book = load_codebook(tmp_path / "codebook.json", require_frozen=True)
    loaded = SimpleNamespace(resolve=lambda written: tmp_path / written)
    base = Verdict.combine([Reason("semantic: metrics-computed", Gate.HOLD, "estimate")])

    def params(sheet: str, minimum: float) -> SemanticParams:
        return SemanticParams.model_validate({
            "reference": "A", "contracted": "B", "recovery": "R", "confirmatory": False,
            "experiment": "E2_RECOVERY", "codebook": "codebook.json", "bootstrap_seed": 1,
            "bootstrap_resamples": 200, "validation": {"sheet": sheet, "key": key.name, "min_agreement": minimum}})

    info: dict[str, Any] = {}
    low = add_validation(loaded, params(filled.name, 0.9), book, base, info)  # type: ignore[arg-type]
    assert low.gate is Gate.INVALID and info["validation"]["agreement"]["value"] == pytest.approx(2 / 3)
    assert low.reasons[-1].rule == "semantic: codebook validation"
    typed = CodebookInfo.model_validate({"mode": "frozen", "validation": info["validation"]})  # the result's block
    assert json.dumps(typed.to_json()["validation"]) == json.dumps(info["validation"])
    assert codebook_lines(typed) == ["  codebook validation: human/clustering agreement 0.667 "
                                     f"[{info['validation']['agreement']['ci'][0]:.3f}, "
                                     f"{info['validation']['agreement']['ci'][1]:.3f}] over 3 of 3 pairs (minimum 0.9)"]
    ok = add_validation(loaded, params(filled.name, 0.5), book, base, {})  # type: ignore[arg-type]
    assert ok.gate is Gate.HOLD  # the validation passes; the metrics' HOLD remains the word
    info = {}
    missing = add_validation(loaded, params("not_yet.csv", 0.5), book, base, info)  # type: ignore[arg-type]
    assert missing.gate is Gate.INCOMPLETE and info["validation"]["scored"] is False
    assert "not_yet.csv not found" in missing.reasons[-1].detail
    shown = codebook_lines(CodebookInfo.model_validate({"mode": "frozen", "validation": info["validation"]}))
    assert len(shown) == 1 and "not_yet.csv not found" in shown[0]
    with pytest.raises(ValueError, match="names no 'codebook'"):
        SemanticParams.model_validate({"reference": "A", "contracted": "B", "confirmatory": False,
                                       "experiment": "E2_RECOVERY", "bootstrap_seed": 1,
                                       "validation": {"sheet": "s.csv", "key": "k.csv"}})


def test_validation_reason_without_a_minimum_reports_only() -> None:
    score = {"agreement": {"value": 0.5, "ci": [0.2, 0.8]}, "labelled": 4, "pairs": 4, "complete": True,
             "unlabelled_rows": []}
    reason = validation_reason(score, None)
    assert reason.outcome is Gate.PASS and "no minimum declared" in reason.detail
    assert validation_reason(score, 0.5).outcome is Gate.PASS  # the minimum itself is met
    assert validation_reason(score, 0.51).outcome is Gate.INVALID


def test_freezing_an_old_draft_says_confirmatory_use_will_be_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    draft, _ = build_codebook(DEV, QUESTIONS, OracleJudge())
    write_codebook(draft.model_copy(update={"development_samples": None}), tmp_path / "old.draft.json")
    write_codebook(draft, tmp_path / "new.draft.json")
    code, out, _ = run_cli(["semantic", "freeze", "--draft", str(tmp_path / "old.draft.json"), "--out",
                            str(tmp_path / "old.json")], capsys, monkeypatch)
    assert code == 0 and "confirmatory use will be refused" in " ".join(out.split())
    code, out, _ = run_cli(["semantic", "freeze", "--draft", str(tmp_path / "new.draft.json"), "--out",
                            str(tmp_path / "new.json")], capsys, monkeypatch)
    assert code == 0 and "refused" not in out
    assert len(json.loads((tmp_path / "new.json").read_text())["development_samples"]) == 5
