"""Fuzzing the view's HTTP side: any path, query or form body gets an answer below 500, a redirect names only
this server, and nothing is written without the server's own cross-site-request token."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from view_helpers import BASE, GOOD, blank_sheet, client, csrf_of, make_run

from forgegate.store import RunStore, run_path

FUZZ = settings(max_examples=80, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
SECRET = "s3cret-token-0123456789"
SEGMENT = st.one_of(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
                    .map(lambda text: quote(text, safe="")),  # any character, sent as the browser would
                    st.sampled_from(["..", "%2F", "%2e%2e", "\\", "//", "9" * 5000, "0", "-1", "%00", "evil.com"]),
                    st.integers(min_value=0, max_value=10**40).map(str))
PATHS = st.lists(SEGMENT, min_size=1, max_size=4).map(lambda parts: "/" + "/".join(parts))
ROOTS = st.sampled_from(["", "/runs", "/results", "/lineage", "/sheets", "/compare", "/static", "/"])


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    root = tmp_path_factory.mktemp("fuzzview")
    store = root / "store"
    run_id = make_run(root / "in", store, GOOD)
    return store, run_id, blank_sheet(root / "relevance_sheet.csv")


@FUZZ
@given(root=ROOTS, path=PATHS)
def test_any_path_is_answered_below_500(served: tuple[Path, str, Path], root: str, path: str) -> None:
    store, _, sheet = served
    web = client(store, sheets=(sheet,), author="Carol")
    answer = web.get(f"{BASE}{root}{path}")
    assert answer.status_code < 500, (root + path, answer.status_code, answer.text[:300])


@FUZZ
@given(path=PATHS, extra=st.dictionaries(st.text(min_size=1, max_size=4), st.text(max_size=6), max_size=2))
def test_a_token_redirect_stays_on_this_server(served: tuple[Path, str, Path], path: str,
                                               extra: dict[str, str]) -> None:
    store, _, _ = served
    web = client(store, token=SECRET, allowed_hosts=None)
    answer = web.get(f"{BASE}{path}", params={**extra, "token": SECRET}, follow_redirects=False)
    assert answer.status_code < 500
    if answer.status_code in (301, 302, 303, 307, 308):
        location = answer.headers["location"]
        assert location.startswith("/") and location[1:2] not in ("/", "\\"), location


FORM_VALUES = st.one_of(st.text(max_size=40), st.sampled_from(["", "pass", "fail", "a" * 100, "x" * 19]),
                        st.binary(max_size=20).map(lambda b: b.decode("latin-1")))


@FUZZ
@given(fields=st.dictionaries(st.sampled_from(["csrf", "key", "decision", "reviewer", "note", "junk"]), FORM_VALUES,
                              max_size=6),
       cookie=st.one_of(st.none(), st.text(alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E,
                                                                   exclude_characters=';"\\,'), max_size=30)))
def test_a_forged_review_form_is_refused_and_writes_nothing(served: tuple[Path, str, Path], fields: dict[str, str],
                                                            cookie: str | None) -> None:
    store, run_id, _ = served
    web = client(store)
    if cookie is not None:
        web.cookies.set("fg_csrf", cookie)
    answer = web.post(f"/runs/{run_id}/review", data=fields, follow_redirects=False)
    assert answer.status_code in (403, 415), answer.status_code  # no token this server issued (or no form at all)
    with RunStore.open(run_path(run_id, store), readonly=True) as opened:
        assert opened.reviews() == {}


@FUZZ
@given(body=st.binary(max_size=2000), kind=st.sampled_from(["application/x-www-form-urlencoded", "text/plain",
                                                           "multipart/form-data; boundary=x", ""]))
def test_any_body_with_a_valid_token_is_answered_cleanly(served: tuple[Path, str, Path], body: bytes,
                                                         kind: str) -> None:
    store, _, sheet = served
    web = client(store, sheets=(sheet,), author="Carol")
    token = csrf_of(web.get("/sheets/0/annotate?annotator=ana").text)
    headers = {"content-type": kind} if kind else {}
    answer = web.post("/sheets/0/adjudicate", content=b"csrf=" + token.encode() + b"&" + body, headers=headers)
    assert answer.status_code < 500, (answer.status_code, answer.text[:300])


@pytest.mark.slow
@settings(max_examples=10, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(size=st.integers(min_value=64 * 1024 + 1, max_value=4 * 1024 * 1024))
def test_a_form_over_the_limit_is_413_and_writes_nothing(served: tuple[Path, str, Path], size: int) -> None:
    store, run_id, _ = served
    web = client(store)
    token = csrf_of(web.get(f"/runs/{run_id}/review").text)
    body = f"csrf={token}&key=model/cold/0&decision=pass&reviewer=ana&note=".encode() + b"n" * size
    answer = web.post(f"/runs/{run_id}/review", content=body,
                      headers={"content-type": "application/x-www-form-urlencoded"})
    assert answer.status_code == 413
    with RunStore.open(run_path(run_id, store), readonly=True) as opened:
        assert opened.reviews() == {}
