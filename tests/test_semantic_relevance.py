"""Relevance: condition-masked sheets, double annotation, the author refused, kappa, adjudication."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa as sm_kappa

from forgegate.errors import InputError, UsageError
from forgegate.semantic.agreement import cohens_kappa
from forgegate.semantic.relevance import Annotation, adjudicate


def sheet(path, labels):
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["row", "cluster", "relevant"])
        writer.writeheader()
        for i, (c, v) in enumerate(labels.items(), start=1):
            writer.writerow({"row": i, "cluster": c, "relevant": v})
    return path


A = {"c1": 1, "c2": 1, "c3": 0, "c4": 1, "c5": 0, "c6": 1}
B = {"c1": 1, "c2": 0, "c3": 0, "c4": 1, "c5": 1, "c6": 1}


def test_kappa_matches_hand_value_and_statsmodels() -> None:
    a, b = list(A.values()), list(B.values())
    # p_o = 4/6; p_e = (4*4 + 2*2)/36 = 20/36; kappa = (24/36 - 20/36) / (16/36) = 0.25
    assert cohens_kappa(a, b) == pytest.approx(0.25)
    table = np.array([[sum(x == i and y == j for x, y in zip(a, b, strict=True)) for j in (0, 1)] for i in (0, 1)])
    assert cohens_kappa(a, b) == pytest.approx(sm_kappa(table).kappa)


def test_the_plans_author_is_refused_as_primary_annotator_by_name(tmp_path) -> None:
    first, second = sheet(tmp_path / "a.csv", A), sheet(tmp_path / "b.csv", B)
    with pytest.raises(UsageError, match="'Carol Smith' wrote the plan"):
        adjudicate(Annotation("Carol Smith", first), Annotation("bob", second), author=" carol  smith",
                   adjudication=None)


def test_disagreements_stay_open_until_adjudicated(tmp_path) -> None:
    first, second = sheet(tmp_path / "a.csv", A), sheet(tmp_path / "b.csv", B)
    final, report = adjudicate(Annotation("alice", first), Annotation("bob", second), author="carol",
                               adjudication=None)
    assert report["disagreements"] == ["c2", "c5"] and not report["complete"]
    assert "c2" not in final and report["cohens_kappa"] == pytest.approx(0.25)
    adj = sheet(tmp_path / "adj.csv", {"c2": 1, "c5": 0})
    final, report = adjudicate(Annotation("alice", first), Annotation("bob", second), author="carol",
                               adjudication=adj)
    assert report["complete"] and final == {**A, "c2": 1, "c5": 0}


def test_blank_relevance_cell_names_file_line_and_field(tmp_path) -> None:
    first = sheet(tmp_path / "a.csv", {**A, "c3": ""})
    with pytest.raises(InputError, match="a.csv:4: field 'relevant'"):
        adjudicate(Annotation("alice", first), Annotation("bob", sheet(tmp_path / "b.csv", B)), author="carol",
                   adjudication=None)
