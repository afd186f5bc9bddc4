"""Fuzzing the human sheets and the adjudication form (issue 38): whatever rows a person's file holds, a score
counts each key once and counts over the keys it must cover.

Hypothesis builds a key of N rows and a filled sheet from it with rows repeated (same or other label), dropped,
blanked or given a value other than 0/1, cells with any Unicode, and the rows shuffled. Every outcome must be a
clean refusal (InputError) or a score whose counts add up over the key: labelled + unlabelled = N, complete only
when every key row is labelled, and never a result when a key was repeated. The adjudication form is fuzzed the
same way: decisions are saved only for the exact list the page showed. Examples are bounded for the fast lane
(files are tiny and the bootstrap takes its minimum resamples); the slow variant runs more of each.
"""

from __future__ import annotations

import csv
import io
import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from forgegate.core.limits import MIN_BOOTSTRAP_RESAMPLES
from forgegate.core.names import name_key, same_person
from forgegate.errors import InputError
from forgegate.pipeline.plan.quality_scoring import review_rows
from forgegate.semantic.bootstrap import BootstrapSettings
from forgegate.semantic.human_validation import KEY_COLUMNS, score_validation
from forgegate.semantic.recurrence import KEY_COLUMNS as RECURRENCE_KEY
from forgegate.semantic.recurrence import SHEET_COLUMNS, answer_digest, score_recurrence
from forgegate.semantic.relevance import read_labels
from forgegate.semantic.sheets import RELEVANCE_COLUMNS, VALIDATION_COLUMNS
from forgegate.view.sheets import ADJ_FIELD, adjudication_decisions, disagreement_digest, load_sheet

FUZZ = settings(max_examples=40, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
MORE = settings(max_examples=400, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
BOOT = BootstrapSettings(seed=1, n_resamples=MIN_BOOTSTRAP_RESAMPLES)
LABEL_CELLS = st.one_of(st.sampled_from(["0", "1", "", " 1 ", "0 "]),
                        st.sampled_from(["2", "yes", "1.0", "-0", "true", "O"]))
TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)


@st.composite
def filled_rows(draw: st.DrawFn, n: int) -> list[tuple[int, str]]:
    """(key index, label cell) rows: each key 0..n-1 kept, dropped or repeated, in a drawn order."""
    rows: list[tuple[int, str]] = []
    for key in range(n):
        copies = draw(st.sampled_from([1, 1, 1, 0, 2, 3]))
        rows += [(key, draw(LABEL_CELLS)) for _ in range(copies)]
    return draw(st.permutations(rows))


def csv_bytes(header: tuple[str, ...], rows: list[dict[str, str]]) -> bytes:
    buffer = io.StringIO(newline="")
    writer = csv.DictWriter(buffer, fieldnames=list(header), lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def expected(rows: list[tuple[int, str]], n: int) -> tuple[bool, bool, int]:
    """(a key repeated, a label that is not 0/1/blank, the keys labelled 0 or 1) of the drawn rows."""
    keys = [k for k, _ in rows]
    repeated = len(keys) != len(set(keys))
    bad = any(cell.strip() not in ("", "0", "1") for _, cell in rows)
    return repeated, bad, len({k for k, cell in rows if cell.strip() in ("0", "1")})


def check_validation(n: int, rows: list[tuple[int, str]], text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        key, sheet = Path(folder) / "key.csv", Path(folder) / "sheet.csv"
        key.write_bytes(csv_bytes(KEY_COLUMNS, [{"row": str(k + 1), "clusters": f"t:c{k}|t:c{k}",
                                                 "clustering_same": str(k % 2)} for k in range(n)]))
        sheet.write_bytes(csv_bytes(VALIDATION_COLUMNS, [
            {"row": str(k + 1), "task": "t", "question": text, "answer_1": text, "answer_2": "b", "same_meaning": cell}
            for k, cell in rows]))
        repeated, bad, labelled = expected(rows, n)
        try:
            score = score_validation(sheet, key, BOOT)
        except InputError as exc:
            assert repeated or bad, exc
            return
        assert not repeated and not bad
        assert score["pairs"] == n and score["labelled"] == labelled
        assert score["labelled"] + len(score["unlabelled_rows"]) == n
        assert score["complete"] is (labelled == n)


@FUZZ
@given(n=st.integers(min_value=1, max_value=6), data=st.data(), text=TEXT)
def test_validation_counts_each_key_once_whatever_the_rows(n: int, data: st.DataObject, text: str) -> None:
    check_validation(n, data.draw(filled_rows(n)), text)


@pytest.mark.slow
@MORE
@given(n=st.integers(min_value=1, max_value=12), data=st.data(), text=TEXT)
def test_validation_counts_each_key_once_many_examples(n: int, data: st.DataObject, text: str) -> None:
    check_validation(n, data.draw(filled_rows(n)), text)


@FUZZ
@given(n=st.integers(min_value=2, max_value=6), data=st.data(), edit=st.booleans())
def test_recurrence_counts_each_generation_once(n: int, data: st.DataObject, edit: bool) -> None:
    rows = data.draw(filled_rows(n))
    answers = [f"answer {k}" for k in range(n)]
    with tempfile.TemporaryDirectory() as folder:
        key, sheet = Path(folder) / "key.csv", Path(folder) / "sheet.csv"
        key.write_bytes(csv_bytes(RECURRENCE_KEY, [
            {"row": str(k + 1), "task": "t", "arm": "S" if k % 2 else "C", "sample": str(k),
             "answer_sha256": answer_digest(answers[k])} for k in range(n)]))
        sheet.write_bytes(csv_bytes(SHEET_COLUMNS, [
            {"row": str(k + 1), "task": "t", "question": "q", "answer": answers[k] + ("!" if edit and i == 0 else ""),
             "recurs": cell} for i, (k, cell) in enumerate(rows)]))
        repeated, bad, labelled = expected(rows, n)
        try:
            score = score_recurrence(sheet, key, "S", "C", BOOT)
        except InputError as exc:
            assert repeated or bad or (edit and rows), exc
            return
        assert not repeated and not bad and not (edit and rows)
        assert score["rows"] == n and len(score["unlabelled_rows"]) == n - labelled
        if score["rates"] is not None:
            assert sum(r["n"] for r in score["rates"].values()) == n  # every generation once, none twice


@FUZZ
@given(n=st.integers(min_value=1, max_value=6), data=st.data())
def test_relevance_labels_are_one_per_cluster(n: int, data: st.DataObject) -> None:
    rows = data.draw(filled_rows(n))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "r.csv"
        path.write_bytes(csv_bytes(("cluster", "relevant"), [{"cluster": f"t:c{k}", "relevant": c} for k, c in rows]))
        repeated, bad, _ = expected(rows, n)
        blank = any(not c.strip() for _, c in rows)
        try:
            labels = read_labels(path)
        except InputError:
            assert repeated or bad or blank
            return
        assert not repeated and not bad and not blank
        assert sorted(labels) == sorted({f"t:c{k}" for k, _ in rows}) and set(labels.values()) <= {0, 1}


@FUZZ
@given(shown=st.lists(st.sampled_from([f"c{k}" for k in range(8)]), unique=True, max_size=5),
       now=st.lists(st.sampled_from([f"c{k}" for k in range(8)]), unique=True, max_size=5),
       decided=st.dictionaries(st.sampled_from([f"c{k}" for k in range(8)]), st.sampled_from(["0", "1", "", "2"]),
                               max_size=6),
       forged=st.booleans(), extra=st.dictionaries(st.text(max_size=6), st.text(max_size=4), max_size=3))
def test_the_adjudication_form_saves_only_the_list_the_page_showed(shown: list[str], now: list[str],
                                                                   decided: dict[str, str], forged: bool,
                                                                   extra: dict[str, str]) -> None:
    fields: dict[str, Any] = {k: v for k, v in extra.items() if not k.startswith(ADJ_FIELD)}
    fields |= {f"{ADJ_FIELD}{k}": v for k, v in decided.items()}
    fields["digest"] = "0" * 64 if forged else disagreement_digest(shown)
    outcome = adjudication_decisions(fields, now)
    if isinstance(outcome, dict):
        assert not forged and shown == now  # saved only for the exact list the page showed
        assert set(outcome) == set(now) and set(outcome.values()) <= {0, 1}
        assert all(str(outcome[k]) == decided[k] for k in now)
    else:
        assert forged or shown != now or set(decided) != set(now) or any(
            decided[k] not in ("0", "1") for k in decided if k in now)


@FUZZ
@given(n=st.integers(min_value=1, max_value=6), data=st.data())
def test_the_views_labels_are_one_per_row_of_the_sheet(n: int, data: st.DataObject) -> None:
    rows = data.draw(filled_rows(n))
    with tempfile.TemporaryDirectory() as folder:
        blank = Path(folder) / "relevance_sheet.csv"
        blank.write_bytes(csv_bytes(RELEVANCE_COLUMNS, [{**dict.fromkeys(RELEVANCE_COLUMNS, "x"), "cluster": f"c{k}",
                                                         "relevant": ""} for k in range(n)]))
        sheet = load_sheet(blank)
        sheet.annotation_path("ana").write_bytes(csv_bytes(RELEVANCE_COLUMNS, [
            {**dict.fromkeys(RELEVANCE_COLUMNS, "x"), "cluster": f"c{k}", "relevant": c} for k, c in rows]))
        repeated, _, labelled = expected(rows, n)
        try:
            labels = sheet.labels("ana")
        except InputError:
            assert repeated
            return
        assert not repeated
        assert list(labels) == [f"c{k}" for k in range(n)]  # the sheet's keys, each once
        assert sum(v is not None for v in labels.values()) == labelled


@FUZZ
@given(n=st.integers(min_value=1, max_value=6), data=st.data())
def test_review_sheet_rows_are_one_per_row_id(n: int, data: st.DataObject) -> None:
    rows = data.draw(filled_rows(n))
    scores = st.one_of(st.none(), st.floats(min_value=0, max_value=1), st.booleans(), st.sampled_from(["1", 2, -1]))
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "review.jsonl"
        drawn = [data.draw(scores) for _ in rows]
        lines = [json.dumps({"row": f"r{k}", "measure": "Q_task", "task": "t", "prompt": "p", "answer": "a",
                             "score": v}) for (k, _), v in zip(rows, drawn, strict=True)]
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        repeated = len({k for k, _ in rows}) != len(rows)
        bad = any(isinstance(v, bool | str) or (v is not None and not 0 <= v <= 1) for v in drawn)
        try:
            read = review_rows(path)
        except InputError:
            assert repeated or bad
            return
        assert not repeated and not bad and sorted(read) == sorted(f"r{k}" for k, _ in rows)


INVISIBLE = st.sampled_from(["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u200e", "\u200f", "\u202e"])


@FUZZ
@given(name=st.text(alphabet=st.characters(categories=("Lu", "Ll", "Nd")), min_size=1, max_size=10),
       hidden=st.lists(st.tuples(st.integers(min_value=0, max_value=10), INVISIBLE), max_size=4))
def test_a_name_with_invisible_characters_or_another_case_is_the_same_person(
        name: str, hidden: list[tuple[int, str]]) -> None:
    disguised = name
    for at, char in hidden:
        disguised = disguised[:at] + char + disguised[at:]
    assert same_person(name, disguised) and same_person(name, disguised.upper())
    assert name_key(name_key(name)) == name_key(name)
