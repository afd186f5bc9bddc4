"""Reviews on the page are the records `forgegate review` writes, and either one moves the gate."""

from __future__ import annotations

from pathlib import Path

import pytest
from httpx import Response
from starlette.testclient import TestClient
from typer.testing import CliRunner
from view_helpers import GOOD, client, csrf_of, make_run

from forgegate.cli.main import app
from forgegate.pipeline.session.rescore import rescore_stored_run
from forgegate.store import RunStore, run_path


@pytest.fixture()
def pending(tmp_path: Path) -> tuple[Path, str]:
    return tmp_path / "store", make_run(tmp_path / "in", tmp_path / "store", GOOD)


def decide(web: TestClient, run_id: str, key: str, decision: str, reviewer: str, csrf: str) -> Response:
    return web.post(f"/runs/{run_id}/review",
                    data={"csrf": csrf, "key": key, "decision": decision, "reviewer": reviewer, "note": "ok"},
                    follow_redirects=False)


def test_two_reviews_on_the_page_are_store_records_that_pass_the_gate(pending: tuple[Path, str]) -> None:
    store, run_id = pending
    web = client(store)
    queue = web.get(f"/runs/{run_id}/review")
    assert '<p id="pending-count">2 pending of 2</p>' in queue.text and 'id="verdict-word">INCOMPLETE' in queue.text
    token = csrf_of(queue.text)
    first = decide(web, run_id, "model/cold/0", "pass", "ana", token)
    assert first.status_code == 303
    after_one = web.get(first.headers["location"])
    assert "1 pending of 2" in after_one.text and 'id="verdict-word">INCOMPLETE' in after_one.text
    second = decide(web, run_id, "model/warm/0", "pass", "ana", token)
    after_two = web.get(second.headers["location"])
    assert "0 pending of 2" in after_two.text and 'id="verdict-word">PASS' in after_two.text

    with RunStore.open(run_path(run_id, store), create=False) as opened:
        assert opened.reviews() == {"model/cold/0": ("pass", "ana"), "model/warm/0": ("pass", "ana")}
        assert opened.meta().last_gate == "PASS"
    listing = CliRunner().invoke(app, ["review", run_id, "--store", str(store)])  # reads the page's records
    assert "cold [pass]" in listing.output and "0 pending of 2" in listing.output
    result, _ = rescore_stored_run(run_id, store_dir=store, battery_path=None, gate_config_path=None)
    assert result.gate == "PASS"


def test_reviews_from_the_command_fail_the_gate_the_page_shows(pending: tuple[Path, str]) -> None:
    store, run_id = pending
    for item in ("cold", "warm"):
        done = CliRunner().invoke(app, ["review", run_id, item, "--fail", "--reviewer", "bo", "--store", str(store)])
        assert done.exit_code == 0, done.output
    queue = client(store).get(f"/runs/{run_id}/review")
    assert 'id="verdict-word">FAIL' in queue.text and "0 pending of 2" in queue.text
    assert queue.text.count('class="o-fail">fail</td>') == 2
    run_page = client(store).get(f"/runs/{run_id}")
    assert 'id="verdict-word">FAIL' in run_page.text


@pytest.mark.parametrize("field,value,status,words", [
    ("reviewer", "  ", 400, "a reviewer&#39;s name"),
    ("decision", "maybe", 400, "choose pass or fail"),
    ("key", "model/alpha/0", 400, "does not need a review"),
    ("csrf", "forged-token-of-the-right-length", 403, "cross-site-request token"),
])
def test_a_bad_decision_is_refused_and_records_nothing(pending: tuple[Path, str], field: str, value: str,
                                                       status: int, words: str) -> None:
    store, run_id = pending
    web = client(store)
    token = csrf_of(web.get(f"/runs/{run_id}/review").text)
    data = {"csrf": token, "key": "model/cold/0", "decision": "pass", "reviewer": "ana", field: value}
    answer = web.post(f"/runs/{run_id}/review", data=data, follow_redirects=False)
    assert answer.status_code == status and words in answer.text
    with RunStore.open(run_path(run_id, store), create=False) as opened:
        assert opened.reviews() == {}


def test_a_form_posted_from_another_site_has_no_csrf_cookie_and_is_refused(pending: tuple[Path, str]) -> None:
    store, run_id = pending
    token = csrf_of(client(store).get(f"/runs/{run_id}/review").text)
    stranger = client(store)  # a fresh browser: no cookie, even with a token copied from someone's page
    answer = stranger.post(f"/runs/{run_id}/review", follow_redirects=False,
                           data={"csrf": token, "key": "model/cold/0", "decision": "pass", "reviewer": "eve"})
    assert answer.status_code == 403
    with RunStore.open(run_path(run_id, store), create=False) as opened:
        assert opened.reviews() == {}


def test_who_decided_when_and_why_shows_on_the_run_item_and_queue_pages_escaped(pending: tuple[Path, str]) -> None:
    """A changed mind is a new decision beside the old one; every page shows both, and a hostile note stays text."""
    store, run_id = pending
    web = client(store)
    token = csrf_of(web.get(f"/runs/{run_id}/review").text)
    hostile = "<script>alert('note')</script>"
    for decision, reviewer, note in (("fail", "bo<b>", "too terse"), ("pass", "ana", hostile)):
        answer = web.post(f"/runs/{run_id}/review", follow_redirects=False, data={
            "csrf": token, "key": "model/cold/0", "decision": decision, "reviewer": reviewer, "note": note})
        assert answer.status_code == 303
    with RunStore.open(run_path(run_id, store), readonly=True) as opened:
        trail = opened.review_trails()["model/cold/0"]
    assert [(d.verdict, d.reviewer, d.note) for d in trail] == [("fail", "bo<b>", "too terse"),
                                                                 ("pass", "ana", hostile)]
    escaped_note = "&lt;script&gt;alert(&#39;note&#39;)&lt;/script&gt;"
    pages = {"queue": web.get(f"/runs/{run_id}/review").text, "run": web.get(f"/runs/{run_id}").text,
             "item": web.get(f"/runs/{run_id}/item", params={"key": "model/cold/0"}).text}
    for name, page in pages.items():
        assert '<b class="reviewer">ana</b>' in page, name
        assert f"<time>{trail[1].decided_at}</time>" in page and escaped_note in page, name
        assert "1 earlier decision(s), replaced" in page and "fail by bo&lt;b&gt; at " in page, name
        assert hostile not in page and "bo<b>" not in page, name


def test_the_store_refuses_to_overwrite_or_delete_a_decision(pending: tuple[Path, str]) -> None:
    import sqlite3

    store, run_id = pending
    done = CliRunner().invoke(app, ["review", run_id, "cold", "--fail", "--reviewer", "bo", "--store", str(store)])
    assert done.exit_code == 0, done.output
    db = sqlite3.connect(run_path(run_id, store))
    try:
        for statement in ("UPDATE reviews SET verdict = 'pass'", "DELETE FROM reviews"):
            with pytest.raises(sqlite3.IntegrityError, match="never"):
                db.execute(statement)
    finally:
        db.close()
    with RunStore.open(run_path(run_id, store), readonly=True) as opened:
        assert opened.reviews() == {"model/cold/0": ("fail", "bo")}
