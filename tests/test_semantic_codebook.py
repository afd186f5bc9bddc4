"""Codebook: built on development data, frozen with a hash, confirmation samples map to frozen IDs or UNMAPPED."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
from semantic_helpers import OracleJudge

from forgegate.errors import InputError, UsageError
from forgegate.semantic.codebook import TextSample, assign, build_codebook, freeze, load_codebook, write_codebook
from forgegate.semantic.develop_confirm import confirm, develop
from forgegate.semantic.sheets import validation_sheet

QUESTIONS = {"t1": "What is the capital of France?"}
DEV = [TextSample(task="t1", condition=c, sample=i, text=t) for i, (c, t) in enumerate(
    [("A", "m1: Paris"), ("A", "m2: Lyon"), ("B", "m1: it is Paris"), ("B", "m1: Paris"), ("A", "m2: Lyon maybe")])]


def frozen(tmp_path):
    draft, stats = build_codebook(DEV, QUESTIONS, OracleJudge())
    book = freeze(draft)
    path = tmp_path / "codebook.json"
    write_codebook(book, path)
    return book, path, stats


def test_freeze_records_ids_labels_exemplars_rule_judge_and_hash(tmp_path) -> None:
    book, path, stats = frozen(tmp_path)
    data = json.loads(path.read_text())
    clusters = data["tasks"]["t1"]["clusters"]
    assert [c["id"] for c in clusters] == ["t1:c1", "t1:c2"]
    assert clusters[0]["exemplars"] == ["m1: Paris", "m1: it is Paris"] and clusters[0]["dev_count"] == 3
    assert data["rule"]["criterion"] == "bidirectional-entailment" and data["rule"]["strict"] is True
    assert data["rule"]["judge"] == {"judge": "oracle", "model": "meaning tags"}
    assert len(data["content_hash"]) == 64 and data["frozen_at"]
    assert stats["t1"]["assignments"] == ["t1:c1", "t1:c2", "t1:c1", "t1:c1", "t1:c2"]
    assert load_codebook(path, require_frozen=True).content_hash == data["content_hash"]


def test_edited_frozen_codebook_is_refused(tmp_path) -> None:
    _, path, _ = frozen(tmp_path)
    data = json.loads(path.read_text())
    data["tasks"]["t1"]["clusters"][0]["label"] = "renamed after the freeze"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="content hash does not match"):
        load_codebook(path, require_frozen=True)


def test_confirmation_samples_get_frozen_ids_or_unmapped_and_no_new_ids(tmp_path) -> None:
    book, _, _ = frozen(tmp_path)
    conf = [TextSample(task="t1", condition="B", sample=i, text=t)
            for i, t in enumerate(["m1: Paris!", "m4: Marseille", "m4: Marseille, surely", "m2: Lyon"])]
    rows, report = assign(book, conf, OracleJudge())
    assert [r["cluster"] for r in rows] == ["t1:c1", "UNMAPPED", "UNMAPPED", "t1:c2"]
    assert report["unmapped_new_clusters"]["t1"] == [{"size": 2, "exemplar": "m4: Marseille"}]
    assert report["label"].startswith("exploratory")


def test_assign_refuses_a_draft_and_another_judge(tmp_path) -> None:
    draft, _ = build_codebook(DEV, QUESTIONS, OracleJudge())
    with pytest.raises(UsageError, match="frozen"):
        assign(draft, DEV, OracleJudge())
    book = freeze(draft)
    other = OracleJudge()
    other.describe = lambda: {"judge": "nli", "model": "/elsewhere"}  # type: ignore[method-assign]
    with pytest.raises(UsageError, match="frozen judge"):
        assign(book, DEV, other)


def test_validation_sheet_is_blinded_and_its_key_holds_the_clustering_verdict(tmp_path) -> None:
    book, _, _ = frozen(tmp_path)
    n = validation_sheet(book, tmp_path / "sheet.csv", tmp_path / "key.csv", np.random.default_rng(0))
    sheet = list(csv.DictReader((tmp_path / "sheet.csv").open()))
    key = list(csv.DictReader((tmp_path / "key.csv").open()))
    assert n == len(sheet) == len(key) == 3  # one within-pair per cluster + one between-pair
    assert set(sheet[0]) == {"row", "task", "question", "answer_1", "answer_2", "same_meaning"}
    text = (tmp_path / "sheet.csv").read_text()
    assert "t1:c" not in text and "condition" not in text
    assert sorted(r["clustering_same"] for r in key) == ["0", "1", "1"]


def test_develop_then_confirm_writes_metrics_ready_assignments(tmp_path) -> None:
    dev = develop(DEV, QUESTIONS, OracleJudge(), tmp_path / "dev", seed=1)
    assert dev.codebook.exists() and dev.relevance_sheet.exists()
    conf = [TextSample(task="t1", condition="R", sample=0, text="m2: Lyon")]
    path = confirm(dev.codebook, conf, OracleJudge(), tmp_path / "conf")
    assert json.loads(path.read_text()) == {"task": "t1", "condition": "R", "sample": 0, "cluster": "t1:c2"}
    with pytest.raises(UsageError, match="never overwritten"):
        develop(DEV, QUESTIONS, OracleJudge(), tmp_path / "dev", seed=1)
