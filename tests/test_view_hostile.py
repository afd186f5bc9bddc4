"""The view's HTTP side against hostile requests: redirects stay on this server, cross-site tokens are the
server's own, bodies stop at the limit as they are read, huge path numbers are 404, long names refused."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from starlette.requests import Request
from view_helpers import BASE, GOOD, blank_sheet, client, csrf_of, make_run

from forgegate.view.security import (
    CSRF_COOKIE,
    MAX_FORM_BYTES,
    Refused,
    capped_body,
    csrf_is_ours,
    issue_csrf,
    local_path,
)

SECRET = "s3cret-token-0123456789"


@pytest.mark.parametrize(("path", "location"), [
    ("//evil.com/x", "/evil.com/x"),
    ("/%2F%2Fevil.com", "/evil.com"),
    ("/\\evil.com", None),  # httpx sends the backslash escaped: only "stays here" is asserted
    ("/runs/a", "/runs/a"),
])
def test_a_token_redirect_never_names_another_host(tmp_path: Path, path: str, location: str | None) -> None:
    web = client(tmp_path, token=SECRET, allowed_hosts=None)
    answer = web.get(f"{BASE}{path}?token={SECRET}", follow_redirects=False)  # the path as sent, not a host
    assert answer.status_code == 303
    assert location is None or answer.headers["location"] == location
    assert not answer.headers["location"].startswith(("//", "/\\"))


@pytest.mark.parametrize("path", ["//evil.com", "///evil.com/a?b", "/\\\\evil.com", "\\/evil.com", "/%2F/x"])
def test_local_path_is_always_one_slash_then_this_server(path: str) -> None:
    made = local_path(path)
    assert made.startswith("/") and made[1:2] not in ("/", "\\")


def test_the_server_issues_the_cross_site_token_and_refuses_made_up_or_empty_pairs(tmp_path: Path) -> None:
    store = tmp_path / "store"
    run_id = make_run(tmp_path / "in", store, GOOD)
    web = client(store)
    form = {"key": "model/cold/0", "decision": "pass", "reviewer": "ana"}
    for made_up in ("", "x" * 19, "a" * 40, "nonce.0123456789abcdef0123456789abcdef"):
        web.cookies.clear()
        web.cookies.set(CSRF_COOKIE, made_up)
        refused = web.post(f"/runs/{run_id}/review", data={**form, "csrf": made_up}, follow_redirects=False)
        assert refused.status_code == 403, made_up
    web.cookies.clear()
    issued = csrf_of(web.get(f"/runs/{run_id}/review").text)
    assert csrf_is_ours(b"not the server's key" * 2, issued) is False
    accepted = web.post(f"/runs/{run_id}/review", data={**form, "csrf": issued}, follow_redirects=False)
    assert accepted.status_code == 303


def test_a_token_from_another_server_secret_is_not_ours() -> None:
    mine, theirs = b"k" * 32, b"j" * 32
    token = issue_csrf(mine)
    assert csrf_is_ours(mine, token) and not csrf_is_ours(theirs, token)
    assert not csrf_is_ours(mine, "") and not csrf_is_ours(mine, None) and not csrf_is_ours(mine, ".")


def _request(chunks: list[bytes], headers: list[tuple[bytes, bytes]] | None = None) -> tuple[Request, list[int]]:
    """A POST whose body arrives in ``chunks``; the list counts how many were read."""
    read = [0]

    async def receive() -> dict[str, Any]:
        index = read[0]
        read[0] += 1
        return {"type": "http.request", "body": chunks[index] if index < len(chunks) else b"",
                "more_body": index < len(chunks) - 1}

    scope = {"type": "http", "method": "POST", "path": "/", "headers": headers or [], "query_string": b""}
    return Request(scope, receive), read


def test_a_huge_body_is_refused_after_the_limit_not_read_whole() -> None:
    chunk = b"a" * 16_384
    total = 20_000  # 320 MB if it were read whole
    request, read = _request([chunk] * total)
    with pytest.raises(Refused) as refused:
        asyncio.run(capped_body(request, MAX_FORM_BYTES))
    assert refused.value.status == 413
    assert read[0] <= MAX_FORM_BYTES // len(chunk) + 2  # stopped at the limit


def test_a_declared_length_over_the_limit_is_refused_before_reading() -> None:
    request, read = _request([b"x"], headers=[(b"content-length", b"300000000")])
    with pytest.raises(Refused):
        asyncio.run(capped_body(request, MAX_FORM_BYTES))
    assert read[0] == 0


def test_a_body_within_the_limit_is_read_whole() -> None:
    request, _ = _request([b"a=1&", b"b=2"])
    assert asyncio.run(capped_body(request, MAX_FORM_BYTES)) == b"a=1&b=2"


@pytest.mark.parametrize("route", ["/results/{n}", "/lineage/{n}", "/sheets/{n}", "/sheets/{n}/annotate"])
def test_a_huge_number_in_the_path_is_404_not_500(tmp_path: Path, route: str) -> None:
    sheet = blank_sheet(tmp_path / "relevance_sheet.csv")
    web = client(tmp_path / "store", sheets=(sheet,), author="Carol")
    for number in ("9" * 5000, "1" + "0" * 30, "4294967296"):
        answer = web.get(route.format(n=number))
        assert answer.status_code == 404, (route, len(number))
    token = csrf_of(web.get("/sheets/0/annotate?annotator=ana").text)
    posted = web.post(f"/sheets/{'9' * 5000}/adjudicate", data={"csrf": token})
    assert posted.status_code in (404, 405)


def test_a_reviewer_name_over_80_characters_is_refused_not_stored(tmp_path: Path) -> None:
    store = tmp_path / "store"
    run_id = make_run(tmp_path / "in", store, GOOD)
    web = client(store)
    token = csrf_of(web.get(f"/runs/{run_id}/review").text)
    form = {"csrf": token, "key": "model/cold/0", "decision": "pass"}
    long = web.post(f"/runs/{run_id}/review", data={**form, "reviewer": "a" * 50_000}, follow_redirects=False)
    assert long.status_code == 400 and "at most 80 characters" in long.text
    assert "2 pending of 2" in web.get(f"/runs/{run_id}/review").text
    assert web.post(f"/runs/{run_id}/review", data={**form, "reviewer": "a" * 80},
                    follow_redirects=False).status_code == 303
