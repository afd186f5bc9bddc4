"""T_GPT relevance annotation on the page: the author refused, two annotators, kappa, adjudication, and files
that `forgegate semantic relevance` accepts as if filled by hand."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from starlette.testclient import TestClient
from typer.testing import CliRunner
from view_helpers import A, B, blank_sheet, client, csrf_of

from forgegate.cli.main import app
from forgegate.semantic.relevance import read_labels


def digest_of(page: str) -> str:
    """The digest of the disagreement list the page's adjudication form carries."""
    found = re.search(r'name="digest" value="([0-9a-f]{64})"', page)
    assert found is not None, "the adjudication form carries no digest"
    return found.group(1)


def annotate(web: TestClient, name: str, labels: dict[str, int], csrf: str) -> int:
    data = {"csrf": csrf, "annotator": name, **{f"label-{i}": str(v) for i, v in enumerate(labels.values())}}
    return web.post("/sheets/0/annotate", data=data, follow_redirects=False).status_code


@pytest.fixture()
def web(tmp_path: Path) -> tuple[TestClient, Path, str]:
    sheet = blank_sheet(tmp_path / "relevance_sheet.csv")
    web = client(tmp_path / "store", sheets=(sheet,), author="Carol")
    return web, sheet, csrf_of(web.get("/sheets/0/annotate?annotator=ana").text)


def test_the_author_is_refused_as_annotator_and_the_condition_is_not_shown(web: tuple[TestClient, Path, str]) -> None:
    client_, _, csrf = web
    refused = client_.get("/sheets/0/annotate?annotator=carol")
    assert refused.status_code == 403 and "wrote the plan and may not be a primary annotator" in refused.text
    assert annotate(client_, "CAROL", A, csrf) == 403
    form = client_.get("/sheets/0/annotate?annotator=ana").text
    assert "Why &lt;b&gt;?&lt;/b&gt;" in form and "␛[1mbold" in form and "\x1b" not in form
    assert "condition" not in form.split("<table")[1]  # the sheet's own columns only


def test_two_annotators_then_kappa_then_adjudication_give_the_files_semantic_relevance_reads(
        web: tuple[TestClient, Path, str], tmp_path: Path) -> None:
    client_, sheet, csrf = web
    assert annotate(client_, "ana", A, csrf) == 303
    assert "Agreement" not in client_.get("/sheets/0").text  # one annotator: nothing to agree on yet
    assert annotate(client_, "bo", B, csrf) == 303
    ana, bo = tmp_path / "relevance_sheet.ana.csv", tmp_path / "relevance_sheet.bo.csv"
    assert read_labels(ana) == A and read_labels(bo) == B
    page = client_.get("/sheets/0").text
    assert "Cohen's kappa 0.250" in page and "2 disagreement(s), 2 open" in page
    third = client_.get("/sheets/0/annotate?annotator=dan")
    assert third.status_code == 403 and "already has two annotators" in third.text

    shown = digest_of(page)
    assert 'name="adj:c2"' in page and 'name="adj:c5"' in page  # each decision names its cluster
    own = client_.post("/sheets/0/adjudicate", data={"csrf": csrf, "adjudicator": "bo", "digest": shown,
                                                     "adj:c2": "1", "adj:c5": "0"})
    assert own.status_code == 400 and "may not adjudicate" in own.text
    done = client_.post("/sheets/0/adjudicate", data={"csrf": csrf, "adjudicator": "Carol", "digest": shown,
                                                      "adj:c2": "1", "adj:c5": "0"}, follow_redirects=False)
    assert done.status_code == 303
    assert read_labels(tmp_path / "relevance_sheet.adjudication.csv") == {"c2": 1, "c5": 0}
    assert 'id="complete"' in client_.get("/sheets/0").text

    assert "--adjudicator Carol" in client_.get("/sheets/0").text  # the record's command, with who adjudicated
    out = tmp_path / "relevance.adjudicated.jsonl"
    command = CliRunner().invoke(app, ["semantic", "relevance", "--first", f"ana={ana}", "--second", f"bo={bo}",
                                       "--author", "Carol", "--adjudicator", "Carol",
                                       "--adjudication", str(tmp_path / "relevance_sheet.adjudication.csv"),
                                       "--out", str(out)])
    assert command.exit_code == 0, command.output
    assert "kappa 0.250" in command.output and out.read_text().count("\n") == 7  # the header and 6 clusters


def test_saving_a_sheet_needs_the_forms_csrf_token(web: tuple[TestClient, Path, str], tmp_path: Path) -> None:
    client_, _, _ = web
    assert annotate(client_, "ana", A, "forged-token-of-the-right-length") == 403
    assert not (tmp_path / "relevance_sheet.ana.csv").exists()


def test_a_validation_sheet_gets_kappa_between_its_two_annotators(tmp_path: Path) -> None:
    sheet = blank_sheet(tmp_path / "validation_sheet.csv", kind="validation")
    web = client(tmp_path / "store", sheets=(sheet,), author="Carol")
    csrf = csrf_of(web.get("/sheets/0/annotate?annotator=ana").text)
    assert annotate(web, "ana", A, csrf) == 303 and annotate(web, "bo", B, csrf) == 303
    page = web.get("/sheets/0").text
    assert "Cohen's kappa 0.250" in page and "Adjudication" not in page


def test_view_refuses_a_file_that_is_not_an_exported_sheet(tmp_path: Path) -> None:
    other = tmp_path / "notes.csv"
    other.write_text("a,b\n1,2\n", encoding="utf-8")
    outcome = CliRunner().invoke(app, ["view", "--store", str(tmp_path), "--sheet", str(other)])
    assert outcome.exit_code != 0 and "not a sheet" in str(outcome.exception)


def test_an_adjudication_opened_before_an_annotator_changed_labels_is_refused_not_misfiled(
        web: tuple[TestClient, Path, str], tmp_path: Path) -> None:
    client_, _, csrf = web
    assert annotate(client_, "ana", A, csrf) == 303
    assert annotate(client_, "bo", B, csrf) == 303
    page = client_.get("/sheets/0").text
    shown = digest_of(page)  # the adjudicator sees the disagreements c2 and c5
    assert annotate(client_, "bo", {**B, "c2": 1, "c5": 0, "c3": 1}, csrf) == 303  # bo changes his mind: now c3 only
    late = client_.post("/sheets/0/adjudicate", data={"csrf": csrf, "adjudicator": "Carol", "digest": shown,
                                                      "adj:c2": "1", "adj:c5": "0"}, follow_redirects=False)
    assert late.status_code == 409 and "reload the page" in late.text
    # a decision posted by position for the list the page no longer shows is refused too, never saved for c3
    by_position = client_.post("/sheets/0/adjudicate", data={"csrf": csrf, "adjudicator": "Carol", "digest": shown,
                                                             "adj-0": "1"}, follow_redirects=False)
    assert by_position.status_code == 409
    stray = client_.post("/sheets/0/adjudicate", data={"csrf": csrf, "adjudicator": "Carol",
                                                       "digest": digest_of(client_.get("/sheets/0").text),
                                                       "adj:c3": "1", "adj:c2": "1"}, follow_redirects=False)
    assert stray.status_code == 409 and "c2&#39; is not a disagreement" in stray.text
    assert not (tmp_path / "relevance_sheet.adjudication.csv").exists()
    now = client_.post("/sheets/0/adjudicate", data={"csrf": csrf, "adjudicator": "Carol",
                                                     "digest": digest_of(client_.get("/sheets/0").text),
                                                     "adj:c3": "0"}, follow_redirects=False)
    assert now.status_code == 303
    assert read_labels(tmp_path / "relevance_sheet.adjudication.csv") == {"c3": 0}
