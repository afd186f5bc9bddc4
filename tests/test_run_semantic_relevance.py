"""`forgegate run` on a confirmatory semantic plan: R(c) must be the adjudicated record, whose provenance the
result carries; semantic results state their T_GPT field and cross-field comparison is refused.

The plans meet every confirmatory condition (``pipeline.plan.confirmatory``): an entailment judge recorded in the frozen
codebook, T_GPT's values, a filled blinded validation sheet, Q_task, the study author named.

The fake Ollama server answers from (prompt, seed) with meaning-tagged texts, and the frozen codebook's judge is
replaced by the oracle test double (a text entails another iff both carry the same m-tag), so no model loads.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from semantic_helpers import OracleJudge, embedding_record, run_cli
from test_run_semantic import SeededOllamaServer, answers_for, plan_text, write_plan
from test_semantic_relevance import sheet

from forgegate.plan import lock_plan
from forgegate.semantic.codebook import (
    AssignmentRule,
    Codebook,
    CodebookCluster,
    CodebookTask,
    TextSample,
    freeze,
    sample_hash,
    write_codebook,
)
from forgegate.semantic.sheets import validation_sheet

SEEDS = list(range(1, 65))  # N = 64 per task and condition: confirmatory use is allowed
TEXTS = {"m1": "m1: bananas are yellow", "m2": "m2: apples are red", "m3": "m3: the match was a draw"}
COUNTS = {"A": {"m1": 32, "m2": 20, "m3": 12}, "B": {"m1": 64}, "R": {"m1": 52, "m2": 12}}
JUDGE = {"judge": "nli", "model": "oracle-stub"}  # an entailment judge on the record; the oracle answers for it
CONFIRMATORY = ('study_author = "carol"\nfactual_tasks = []\n'
                '[instruments.semantic.validation]\nsheet = "validation_sheet.csv"\nkey = "validation_key.csv"\n'
                'min_agreement = 0.8\n'
                '[instruments.semantic.order]\nstudy = "relevance-demo"\n'
                'unconfirmed_because = "a test of the relevance record, not of E1"\n'
                '[instruments.semantic.q_task]\nmargin = 0.5\n'
                '[instruments.semantic.q_task.tasks.t1]\nscorer = "battery-rule"\neval_type = "contains"\n'
                'expected = ["bananas"]\n'
                '[instruments.semantic.q_task.tasks.t2]\nscorer = "battery-rule"\neval_type = "contains"\n'
                'expected = ["apples"]\n')


class FrozenOracle(OracleJudge):
    def describe(self) -> dict[str, object]:
        return dict(JUDGE)


def table() -> dict[str, list[str]]:
    return {cond: [TEXTS[m] for m, n in counts.items() for _ in range(n)] for cond, counts in COUNTS.items()}


def folder_with_codebook(folder: Path) -> str:
    folder.mkdir(parents=True)
    tasks = {t: CodebookTask(question=q, clusters=[CodebookCluster(id=f"{t}:c{k}", label=m, representative=TEXTS[m],
                                                                   exemplars=[TEXTS[m]], dev_count=3)
                                                   for k, m in enumerate(TEXTS, start=1)])
             for t, q in (("t1", "Say something about fruit."), ("t2", "Say something about the sky."))}
    # development samples of their own (a confirmatory run refuses a codebook that records none)
    dev = [TextSample(task=t, condition="dev", sample=k, text=f"development answer {k}") for t in tasks for k in (0, 1)]
    draft = Codebook(rule=AssignmentRule(strict=True, judge=JUDGE), tasks=tasks,
                     development_samples=sorted(sample_hash(s) for s in dev))
    book = freeze(draft.model_copy(update={"embedding_sensitivity": embedding_record(draft)}))
    write_codebook(book, folder / "codebook.json")
    validation_sheet(book, folder / "validation_sheet.csv", folder / "validation_key.csv", np.random.default_rng(3))
    fill_sheet(folder / "validation_sheet.csv", folder / "validation_key.csv")
    return str(book.content_hash)


def fill_sheet(sheet: Path, key: Path) -> None:
    """The blinded validation, done before the lock: a human who agrees with the clustering on every pair."""
    with key.open(newline="", encoding="utf-8") as handle:
        agree = {row["row"]: row["clustering_same"] for row in csv.DictReader(handle)}
    with sheet.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        fields, rows = list(reader.fieldnames or ()), [{**row, "same_meaning": agree[row["row"]]} for row in reader]
    with sheet.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def confirmatory_plan(name: str, url: str, extra: str) -> str:
    """``plan_text`` made confirmatory: T_GPT's 10000 resamples and every declaration a confirmatory plan needs."""
    return plan_text(name, SEEDS, url, extra + CONFIRMATORY, confirmatory=True).replace(
        "bootstrap_resamples = 2000", "bootstrap_resamples = 10000")


LABELS_1 = {"t1:c1": 1, "t1:c2": 1, "t1:c3": 0, "t2:c1": 1, "t2:c2": 0, "t2:c3": 0}
LABELS_2 = {"t1:c1": 1, "t1:c2": 1, "t1:c3": 0, "t2:c1": 1, "t2:c2": 1, "t2:c3": 1}


def adjudicated_record(folder: Path, name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``semantic relevance`` writes ``folder/name``: ana and ben annotate (neither the author, carol), carol
    adjudicates their two disagreements, on the folder's frozen codebook."""
    first, second = sheet(tmp_path / "ana.csv", LABELS_1), sheet(tmp_path / "ben.csv", LABELS_2)
    adjudication = sheet(tmp_path / "adj.csv", {"t2:c2": 1, "t2:c3": 0})
    made, _, err = run_cli(["semantic", "relevance", "--first", f"ana={first}", "--second", f"ben={second}",
                            "--author", "carol", "--adjudicator", "carol", "--adjudication", str(adjudication),
                            "--codebook", str(folder / "codebook.json"), "--out", str(folder / name)],
                           capsys, monkeypatch)
    assert made == 0, err


@pytest.fixture
def oracle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("forgegate.pipeline.plan.semantic.frozen_judge", lambda record, path, *_: FrozenOracle())


def run_plan(folder: Path, name: str, server_url: str, relevance: str, tmp_path: Path, capsys, monkeypatch
             ) -> tuple[int, str, dict]:
    extra = f'codebook = "codebook.json"\nrelevance = "{relevance}"\n'
    plan = write_plan(folder, confirmatory_plan(name, server_url, extra))
    lock_plan(plan)
    out = tmp_path / f"{name}.json"
    code, stdout, stderr = run_cli(["run", str(plan), "--store", str(tmp_path / "runs"), "--json", str(out)],
                                   capsys, monkeypatch)
    assert out.is_file(), stdout + stderr
    return code, " ".join((stdout + stderr).split()), json.loads(out.read_text())


@pytest.mark.slow  # a confirmatory plan scores at the spec's sample counts and resamples: ~19 s
def test_confirmatory_plan_needs_the_adjudicated_record_and_shows_its_provenance(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, oracle: None) -> None:
    with SeededOllamaServer(answers_for(SEEDS, table(), table())) as server:
        # A bare {cluster, relevant} file is no adjudication: refused at the plan's line before anything generates.
        bare = tmp_path / "bare"
        folder_with_codebook(bare)
        (bare / "relevance.jsonl").write_text("".join(json.dumps({"cluster": c, "relevant": v}) + "\n"
                                                      for c, v in LABELS_1.items()))
        plan = write_plan(bare, confirmatory_plan("tgpt-bare", server.url,
                                                  'codebook = "codebook.json"\nrelevance = "relevance.jsonl"\n'))
        lock_plan(plan)
        code, stdout, stderr = run_cli(["run", str(plan), "--store", str(tmp_path / "bare-runs")], capsys,
                                       monkeypatch)
        out = " ".join((stdout + stderr).split())
        line = plan.read_text().splitlines().index('relevance = "relevance.jsonl"') + 1
        assert code == 2 and f"plan.toml:{line}" in out and "is not an adjudication" in out, out
        assert not list((tmp_path / "bare-runs").glob("*.sqlite"))

        # The record from two annotators (not the author) and an adjudicator: the table stands (HOLD: no pass rule).
        rec = tmp_path / "rec"
        book_hash = folder_with_codebook(rec)
        adjudicated_record(rec, "relevance.adjudicated.jsonl", tmp_path, capsys, monkeypatch)
        code, out, result = run_plan(rec, "tgpt-rec", server.url, "relevance.adjudicated.jsonl", tmp_path, capsys,
                                     monkeypatch)
    assert code == 1 and result["gate"] == "HOLD", out
    adjudication = result["semantic"]["metrics"]["inputs"]["relevance"]["adjudication"]
    # kappa: ana 3 ones / 3 zeros, ben 5 / 1; p_o = 4/6, p_e = (3*5 + 3*1)/36 = 1/2, kappa = (4/6 - 1/2)/(1/2) = 1/3
    assert adjudication["cohens_kappa"] == pytest.approx(1 / 3)
    assert adjudication["annotators"] == ["ana", "ben"] and adjudication["adjudicator"] == "carol"
    assert adjudication["codebook_hash"] == book_hash and adjudication["disagreements"] == 2
    assert "Cohen's kappa 0.333" in out and "ana and ben" in out
    # t1:c3 and t2:c3 are irrelevant: A's support keeps c1 and c2 only
    assert result["semantic"]["metrics"]["tasks"]["t1"]["conditions"]["A"]["support"] == ["t1:c1", "t1:c2"]


def test_a_record_naming_the_author_as_annotator_is_refused_before_generating(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "p"
    folder_with_codebook(folder)
    first, second = sheet(tmp_path / "ana.csv", LABELS_1), sheet(tmp_path / "ben.csv", LABELS_1)
    made, _, err = run_cli(["semantic", "relevance", "--first", f"ana={first}", "--second", f"ben={second}",
                            "--author", "carol", "--adjudicator", "carol",
                            "--out", str(folder / "r.jsonl")], capsys, monkeypatch)
    assert made == 0, err
    record = folder / "r.jsonl"
    lines = record.read_text().splitlines()
    header = json.loads(lines[0])
    header["annotators"][1]["name"] = "Carol"
    record.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    plan = write_plan(folder, confirmatory_plan("tgpt-author", "http://127.0.0.1:9",
                                                'codebook = "codebook.json"\nrelevance = "r.jsonl"\n'))
    lock_plan(plan)
    code, stdout, stderr = run_cli(["run", str(plan), "--store", str(tmp_path / "runs")], capsys, monkeypatch)
    assert code == 2
    assert f"{record}:1: field 'annotators.1.name': 'Carol' wrote the plan" in stdout + stderr
    assert not list((tmp_path / "runs").glob("*.sqlite"))
