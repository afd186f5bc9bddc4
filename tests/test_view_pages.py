"""`forgegate view` pages through Starlette's test client: runs, a run, one item, compare, lineage, bad input.

The runs are real evals of a tiny battery against the fake Ollama server (tests/view_helpers.py).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from view_helpers import GOOD, LOOPING, client, make_run

from forgegate.lineage import decide_graduation
from forgegate.view.security import CSP


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """Two runs of the same battery: the second loops on one item."""
    root = tmp_path_factory.mktemp("view")
    good = make_run(root / "in", root / "store", GOOD)
    looping = make_run(root / "in", root / "store", LOOPING, model="gloss:v11")
    return root / "store", good, looping


def test_runs_page_lists_every_run_with_kind_model_verdict_and_answers(store: tuple[Path, str, str]) -> None:
    folder, good, looping = store
    page = client(folder).get("/")
    assert page.status_code == 200
    # two semantic answers await a reviewer; the looping run's loop already fails it (GLOSS v2, invariant 3)
    for run_id, model, verdict in ((good, "gloss:v10", "INCOMPLETE"), (looping, "gloss:v11", "FAIL")):
        row = page.text.split(f'<tr data-run="{run_id}">')[1].split("</tr>")[0]
        assert f"<td>eval</td><td>{model}</td><td>ollama</td>" in row  # issue 45: the backend beside the model
        assert f">{verdict}</span>" in row
        assert '<span class="p-answered">5</span>/<span class="p-total">5</span>' in row


def test_run_page_escapes_model_output_and_shows_control_characters(store: tuple[Path, str, str]) -> None:
    folder, good, _ = store
    page = client(folder).get(f"/runs/{good}")
    assert page.status_code == 200
    assert 'id="verdict-word">INCOMPLETE</span>' in page.text
    assert "2 item(s) await human review" in page.text
    assert "&lt;script&gt;window.__owned" in page.text and "&lt;img src=x onerror" in page.text
    assert "<script>window" not in page.text and "<img" not in page.text
    assert "\x1b" not in page.text and "␛[31mAION␛[0m" in page.text
    assert page.headers["content-security-policy"] == CSP
    scripts = re.findall(r"<script[^>]*>", page.text)
    assert scripts == ['<script src="/static/view.js" defer>']  # the one same-origin file, nothing inline


def test_item_filters_select_by_outcome_category_and_failure_mode(store: tuple[Path, str, str]) -> None:
    folder, good, looping = store
    web = client(folder)

    def shown(run: str, query: str) -> list[str]:
        return re.findall(r'<tr data-item="([^"]+)">', web.get(f"/runs/{run}?{query}").text)

    assert shown(good, "") == ["alpha", "iota", "omicron", "cold", "warm"]
    assert shown(good, "outcome=pending") == ["cold", "warm"]
    assert shown(good, "category=LX-IDENTITY&outcome=pass") == ["alpha", "iota", "omicron"]
    assert shown(looping, "outcome=fail") == ["omicron"]
    assert shown(looping, "mode=IDENTITY_LOOP") == ["omicron"]
    assert shown(good, "mode=IDENTITY_LOOP") == []


def test_item_page_highlights_the_loop_and_shows_tokens_finish_checks_history(store: tuple[Path, str, str]) -> None:
    folder, _, looping = store
    page = client(folder).get(f"/runs/{looping}/item", params={"key": "model/omicron/0"})
    assert page.status_code == 200
    assert '<pre class="output" id="response">ο = <mark>οοοο</mark> οοοο' in page.text
    # the loop was cut off as it started (finish 'loop'): 4 tokens stored of the 8 the server would have sent
    assert 'id="outcome">fail</b>' in page.text and '<td id="finish">loop</td>' in page.text
    assert "IDENTITY_LOOP" in page.text and "contains none of" in page.text and "STOP_FAILURE" not in page.text
    assert page.text.count('<span class="tok">') == 4  # token boundaries, one span a token
    assert '<table id="history">' in page.text


def test_compare_page_gives_the_paired_comparison_and_flipped_answers_side_by_side(
        store: tuple[Path, str, str]) -> None:
    folder, good, looping = store
    page = client(folder).get("/compare", params={"old": good, "new": looping})
    assert page.status_code == 200
    assert 'id="verdict-word">FAIL</span>' in page.text  # a new failure mode is a regression
    assert "regression:IDENTITY_LOOP" in page.text
    row = page.text.split("<tr><td>LX-IDENTITY</td>")[1].split("</tr>")[0]
    assert "3 / 3" in row and "-0.333" in row and "1 / 0" in row  # McNemar: lost 1, gained 0
    flip = page.text.split('data-flip="omicron"')[1].split("</section>")[0]
    assert "ο = KOSMOS" in flip and "ο = οοοο οοοο" in flip and "lost" in flip


def test_lineage_page_shows_versions_and_charts_only_for_files_given(tmp_path: Path,
                                                                     store: tuple[Path, str, str]) -> None:
    from lineage_helpers import category, live, passes, result

    path = tmp_path / "lineage.jsonl"
    for version, lx in (("v1", 8), ("v2", 6)):
        decide_graduation(version, result(category("LX-A", passes(lx, 10 - lx))), live("PASS"),
                          path, [], f"note <b>{version}</b>", n_resamples=200)
    web = client(store[0], lineage_files=(path,))
    page = web.get("/lineage/0")
    assert page.status_code == 200
    assert "<td>v1</td>" in page.text and "<td>v2</td>" in page.text
    assert "note &lt;b&gt;v2&lt;/b&gt;" in page.text
    assert page.text.count("<svg") == 2  # sigma_total and LX-A over versions
    assert "0.60 ↓" in page.text  # LX-A went down from v1 to v2
    assert web.get("/lineage/1").status_code == 404


def test_unknown_run_missing_store_and_damaged_file_get_clear_pages(tmp_path: Path,
                                                                    store: tuple[Path, str, str]) -> None:
    folder = store[0]
    missing = client(folder).get("/runs/eval-000000000000")
    assert missing.status_code == 404 and "no run &#39;eval-000000000000&#39;" in missing.text
    assert client(folder).get("/runs/../../etc/passwd").status_code == 404
    assert "there is no run store at" in client(tmp_path / "nowhere").get("/").text
    damaged_store = tmp_path / "damaged"
    damaged_store.mkdir()
    (damaged_store / "eval-bad.sqlite").write_bytes(b"this is not a database" * 100)
    listing = client(damaged_store).get("/")
    assert listing.status_code == 200 and "damaged: run file" in listing.text
    page = client(damaged_store).get("/runs/eval-bad")
    assert page.status_code == 400 and "is damaged or not a forgegate run store" in page.text


def test_progress_json_reports_answers_against_the_planned_total(store: tuple[Path, str, str]) -> None:
    folder, good, _ = store
    progress = client(folder).get(f"/runs/{good}/progress.json").json()
    assert progress == {"answered": 5, "errors": 0, "total": 5, "generating": False, "tokens": progress["tokens"],
                        "tokens_per_s": None, "eta_s": None}


def test_result_files_and_a_runs_full_report_render_as_forgegate_report_writes_them(
        tmp_path: Path, store: tuple[Path, str, str]) -> None:
    from report_helpers import semantic_payload

    from forgegate.view.security import REPORT_CSP

    result = tmp_path / "metrics.json"
    result.write_text(json.dumps(semantic_payload(tmp_path / "t")), encoding="utf-8")
    web = client(store[0], results=(result,))
    listing = web.get("/results")
    assert "metrics.json" in listing.text and listing.headers["content-security-policy"] == CSP
    report = web.get("/results/0")
    assert report.status_code == 200 and report.headers["content-security-policy"] == REPORT_CSP
    assert "script-src" not in REPORT_CSP and "<script" not in report.text
    assert "D_sem" in report.text  # the T_GPT metric table
    full = web.get(f"/runs/{store[1]}/report")
    assert full.status_code == 200 and 'id="verdict-word">INCOMPLETE</span>' in full.text and "<svg" in full.text
    assert web.get("/results/1").status_code == 404


def test_a_run_whose_battery_moved_still_shows_its_answers_and_says_why_it_is_not_scored(tmp_path: Path) -> None:
    run_id = make_run(tmp_path / "in", tmp_path / "store", GOOD)
    (tmp_path / "in" / "tiny.jsonl").unlink()
    page = client(tmp_path / "store").get(f"/runs/{run_id}")
    assert page.status_code == 200 and 'id="not-scored"' in page.text
    assert "which is not there now" in page.text  # rescore's own sentence, with what to do
    assert "model/alpha/0" in page.text and "α = NOUS" in page.text
