"""The adjudicated relevance record: written by `semantic relevance`, checked on reading, needed by confirmatory plans.

T_GPT v0.8.1: R(c) is "Binary adjudicated relevance of frozen cluster c to the task, based on
condition-masked double annotation", ``author_primary_annotation_forbidden: true``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from semantic_helpers import run_cli
from test_semantic_relevance import A, B, sheet

from forgegate.core.rules import RELEVANCE_RULE
from forgegate.core.verdict import Gate
from forgegate.errors import InputError
from forgegate.gate.semantic import relevance_reason
from forgegate.results import parse_result
from forgegate.results.semantic_checks import SemanticRelevanceResult
from forgegate.semantic.relevance_record import load_relevance, read_record


def make_record(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                *extra: str) -> tuple[int, str, str, Path]:
    first, second = sheet(tmp_path / "ana.csv", A), sheet(tmp_path / "ben.csv", B)
    adj = sheet(tmp_path / "adj.csv", {"c2": 1, "c5": 0})
    out = tmp_path / "relevance.adjudicated.jsonl"
    code, stdout, stderr = run_cli(["semantic", "relevance", "--first", f"ana={first}", "--second", f"ben={second}",
                                    "--author", "Carol", "--adjudication", str(adj), "--out", str(out), *extra],
                                   capsys, monkeypatch)
    return code, stdout, stderr, out


def rewrite(path: Path, line: int, **changes: object) -> None:
    lines = path.read_text().splitlines()
    obj = json.loads(lines[line - 1]) | changes
    lines[line - 1] = json.dumps(obj)
    path.write_text("\n".join(lines) + "\n")


def test_the_command_writes_who_annotated_who_adjudicated_when_and_kappa(tmp_path, capsys, monkeypatch) -> None:
    code, stdout, _, out = make_record(tmp_path, capsys, monkeypatch, "--adjudicator", "Carol")
    assert code == 0 and "kappa 0.250" in stdout
    record = read_record(out)
    prov = record.provenance()
    assert prov["annotators"] == ["ana", "ben"] and prov["adjudicator"] == "Carol" and prov["plan_author"] == "Carol"
    assert prov["cohens_kappa"] == pytest.approx(0.25) and prov["observed_agreement"] == pytest.approx(4 / 6)
    assert prov["disagreements"] == 2 and prov["adjudicated_at"].endswith("+00:00")
    assert record.labels == {**A, "c2": 1, "c5": 0}
    rows = {r.cluster: r for r in record.rows}
    assert rows["c2"].decision == "adjudicated" and rows["c1"].decision == "agreed"
    # `semantic metrics` and plans read the same file: the labels are the record's
    assert load_relevance(out).labels == record.labels and load_relevance(out).record is not None


def test_the_relevance_json_is_a_registered_kind_read_back_typed(tmp_path, capsys, monkeypatch) -> None:
    """``semantic relevance --json`` is the ``semantic_relevance`` result kind (issue 34, item 3): a reader gets
    the model back, with the adjudication's counts and the gate's word."""
    written = tmp_path / "relevance.json"
    code, *_ = make_record(tmp_path, capsys, monkeypatch, "--adjudicator", "Carol", "--json", str(written))
    result = parse_result(json.loads(written.read_text()), written)
    assert code == 0 and isinstance(result, SemanticRelevanceResult) and result.gate == Gate.PASS
    assert result.disagreements == ["c2", "c5"] and result.adjudicated == ["c2", "c5"] and result.complete
    assert result.cohens_kappa == pytest.approx(0.25) and result.annotators == ["ana", "ben"]


def test_the_record_needs_its_adjudicator(tmp_path, capsys, monkeypatch) -> None:
    code, _, stderr, out = make_record(tmp_path, capsys, monkeypatch)
    assert code == 2 and "--adjudicator is required" in stderr and not out.exists()


def test_the_plans_author_is_refused_as_annotator_in_a_record(tmp_path, capsys, monkeypatch) -> None:
    _, _, _, out = make_record(tmp_path, capsys, monkeypatch, "--adjudicator", "Carol")
    header = json.loads(out.read_text().splitlines()[0])
    rewrite(out, 1, annotators=[{**header["annotators"][0], "name": " carol "}, header["annotators"][1]])
    with pytest.raises(InputError) as err:
        read_record(out)
    assert (err.value.line, err.value.field) == (1, "annotators.0.name")
    assert "wrote the plan and may not be a primary annotator" in str(err.value)
    assert "forgegate semantic sheets" in str(err.value)


def test_the_command_refuses_the_author_as_annotator(tmp_path, capsys, monkeypatch) -> None:
    first, second = sheet(tmp_path / "a.csv", A), sheet(tmp_path / "b.csv", B)
    code, _, stderr = run_cli(["semantic", "relevance", "--first", f"Carol={first}", "--second", f"ben={second}",
                               "--author", "carol", "--adjudicator", "x", "--out", str(tmp_path / "r.jsonl")],
                              capsys, monkeypatch)
    assert code == 2 and "'Carol' wrote the plan" in stderr


@pytest.mark.parametrize(("line", "changes", "field", "says"), [
    (1, {"cohens_kappa": 0.9}, "cohens_kappa", "does not match the labels"),
    (1, {"annotated_by": "x"}, "annotated_by", "unknown field"),
    (1, {"clusters": "6"}, "clusters", "without quotes"),
    (3, {"decision": "agreed"}, "decision", "the decision is 'adjudicated'"),  # c2: ana 1, ben 0
    (2, {"relevant": 0}, "relevant", "relevant is 1"),                          # c1: both said 1
])
def test_a_hand_edited_record_is_refused_at_its_line(tmp_path, capsys, monkeypatch, line, changes, field,
                                                      says) -> None:
    _, _, _, out = make_record(tmp_path, capsys, monkeypatch, "--adjudicator", "Carol")
    rewrite(out, line, **changes)
    with pytest.raises(InputError) as err:
        read_record(out)
    assert (err.value.line, err.value.field) == (line, field) and says in str(err.value)
    assert f"{out}:{line}:" in str(err.value)


def test_gate_confirmatory_without_record_is_incomplete_and_names_the_sheet_command() -> None:
    remedy = "make the sheet with `forgegate semantic sheets --codebook CODEBOOK.json --out DIR`"
    reason = relevance_reason(confirmatory=True, adjudication=None, source="a bare file", remedy=remedy)
    assert reason.rule == RELEVANCE_RULE and reason.outcome is Gate.INCOMPLETE
    assert "forgegate semantic sheets" in reason.detail and "not adjudicated" in reason.detail
    exploratory = relevance_reason(confirmatory=False, adjudication=None, source="a bare file", remedy=remedy)
    assert exploratory.outcome is Gate.PASS and "exploratory" in exploratory.detail
    done = relevance_reason(confirmatory=True, remedy=remedy, source="", adjudication={
        "adjudicator": "Carol", "adjudicated_at": "2026-12-02T01:00:00+00:00", "annotators": ["ana", "ben"],
        "plan_author": "Carol", "cohens_kappa": 0.25, "observed_agreement": 4 / 6, "disagreements": 2})
    assert done.outcome is Gate.PASS and "Cohen's kappa 0.250" in done.detail and "ana and ben" in done.detail


def test_sheets_command_writes_the_masked_relevance_sheet_of_a_frozen_codebook(tmp_path, capsys,
                                                                             monkeypatch) -> None:
    book = Path(__file__).parents[1] / "examples" / "tgpt" / "codebook.json"
    code, stdout, _ = run_cli(["semantic", "sheets", "--codebook", str(book), "--out", str(tmp_path)],
                              capsys, monkeypatch)
    sheet_path = tmp_path / "relevance_sheet.csv"
    assert code == 0 and "122 clusters" in stdout
    header = sheet_path.read_text().splitlines()[0].split(",")
    assert "cluster" in header and "relevant" in header and "condition" not in header
    again, _, stderr = run_cli(["semantic", "sheets", "--codebook", str(book), "--out", str(tmp_path)],
                               capsys, monkeypatch)
    assert again == 2 and "exists" in stderr


def test_the_report_line_says_who_when_and_kappa_or_that_rc_is_not_adjudicated() -> None:
    from forgegate.report.semantic_section import relevance_text
    from forgegate.results.semantic import FileInputs, PlanInputs

    adjudication = {"adjudicated": True, "adjudicator": "Carol", "adjudicated_at": "2026-12-02T01:00:00+00:00",
                    "annotators": ["ana", "ben"], "plan_author": "Carol", "cohens_kappa": None,
                    "observed_agreement": 1.0, "disagreements": 0, "codebook_hash": None}

    def plan_inputs(relevance: dict[str, Any]) -> PlanInputs:
        return PlanInputs.model_validate({"assignments": "a.jsonl", "relevance": relevance})

    line = relevance_text(plan_inputs({"path": "r.jsonl", "adjudication": adjudication}))
    assert line is not None and "adjudicated by Carol at 2026-12-02T01:00:00+00:00" in line
    assert "annotators ana and ben" in line and "Cohen's kappa NA" in line
    bare = relevance_text(plan_inputs({"path": "r.jsonl", "clusters": 3, "adjudication": None}))
    assert bare == "R(c) not adjudicated: r.jsonl is a bare cluster/relevant file"
    assert relevance_text(FileInputs(samples="s", relevance="r.jsonl", aggregates=None)) is None
