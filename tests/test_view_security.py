"""`forgegate view` is safe by default: loopback only, a token off loopback, host check, headers; and it starts
(or refuses to) with a clear message: a non-loopback host without a token, a port in use."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from lineage_helpers import run_cli
from view_helpers import client

from forgegate.core.records import GenerationRequest, StoredResponse
from forgegate.errors import UsageError
from forgegate.store import GenerationMarker, RunMeta
from forgegate.textsafe import visible
from forgegate.view import ViewConfig
from forgegate.view.runs import progress_of
from forgegate.view.security import CSP, LOOPBACK_NAMES
from forgegate.view.serve import access

SECRET = "s3cret-token-0123456789"


def test_headers_forbid_network_loads_and_framing_on_every_answer(tmp_path: Path) -> None:
    web = client(tmp_path)
    for path in ("/", "/runs/nope", "/static/view.js"):
        answer = web.get(path)
        assert answer.headers["content-security-policy"] == CSP, path
        assert answer.headers["x-frame-options"] == "DENY" and answer.headers["x-content-type-options"] == "nosniff"
    assert "default-src 'none'" in CSP and "script-src 'self'" in CSP and "unsafe-inline" not in CSP


def test_a_loopback_server_refuses_a_host_name_it_was_not_opened_as(tmp_path: Path) -> None:
    web = client(tmp_path)
    assert web.get("/", headers={"host": "attacker.example:8765"}).status_code == 400  # DNS rebinding
    assert web.get("/", headers={"host": "localhost:8765"}).status_code == 200


def test_with_a_token_every_request_needs_it_once_then_a_strict_cookie(tmp_path: Path) -> None:
    web = client(tmp_path, token=SECRET, allowed_hosts=None)
    assert web.get("/").status_code == 401
    assert web.get("/static/view.js").status_code == 401
    assert web.get("/?token=wrong-token-0123456789").status_code == 401
    first = web.get(f"/compare?token={SECRET}&old=a", follow_redirects=False)
    assert first.status_code == 303 and first.headers["location"] == "/compare?old=a"  # token leaves the address
    cookie = first.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie
    assert web.get("/").status_code == 200  # the cookie carries it now
    bare = client(tmp_path, token=SECRET, allowed_hosts=None)
    assert bare.get("/", headers={"authorization": f"Bearer {SECRET}"}).status_code == 200


def test_access_rules_for_loopback_and_other_hosts() -> None:
    assert access("127.0.0.1", None) == (None, LOOPBACK_NAMES)
    assert access("::1", None) == (None, LOOPBACK_NAMES)
    with pytest.raises(UsageError, match="--token"):
        access("0.0.0.0", None)
    with pytest.raises(UsageError, match="at least 16"):
        access("0.0.0.0", "short")
    token, hosts = access("0.0.0.0", "auto")
    assert token is not None and len(token) >= 16 and hosts is None
    assert access("192.168.1.5", SECRET) == (SECRET, None)


def test_cli_refuses_a_public_host_without_token_and_a_port_in_use(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    code, _, err = run_cli(["view", "--store", str(tmp_path), "--host", "0.0.0.0"], capsys, monkeypatch)
    assert code == 2 and "--token" in err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        code, _, err = run_cli(["view", "--store", str(tmp_path), "--port", str(port)], capsys, monkeypatch)
    assert code == 2 and "already in use" in err and "--port" in err


@pytest.mark.slow  # it starts the `forgegate view` server in a subprocess: not for the fast lane
def test_the_command_serves_and_prints_its_address(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "forgegate.cli.main", "view", "--store", str(tmp_path),
                             "--port", "0", "--token", "auto"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "forgegate view: serving" in line and "http://127.0.0.1:" in line
        import httpx

        url = line.split(" at ")[1].split(" ")[0]
        assert "?token=" in url  # a loopback server takes a token too when asked, and prints it
        assert httpx.get(url.split("?")[0], timeout=30).status_code == 401
        page = httpx.get(url, timeout=30, follow_redirects=True)
        assert page.status_code == 200 and "<h1>Runs</h1>" in page.text
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _row(key: str, tokens: int, at: float, ok: bool = True) -> StoredResponse:
    return StoredResponse(request_key=key, arm="model", item_id=key, seed=0,
                          request=GenerationRequest(prompt="p", max_tokens=8), response="x" if ok else None,
                          tokens=tokens if ok else None, token_source="usage", token_texts=None,
                          finish="stop" if ok else "error", latency_s=0.1, ttft_s=None, model_digest=None,
                          endpoint=None, error=None if ok else "boom", attempts=1, finished_at=at)


def test_progress_gives_rate_and_eta_while_a_live_process_generates() -> None:
    rows = [_row("a", 10, 101.0), _row("b", 30, 102.0), _row("c", 0, 103.0, ok=False), _row("old", 99, 50.0)]
    marker = GenerationMarker(pid=os.getpid(), host=socket.gethostname(), since=100.0)
    live = progress_of(RunMeta(planned_requests=10, generating=marker), rows, now=104.0)
    assert (live.answered, live.errors, live.total, live.generating) == (3, 1, 10, True)
    assert live.tokens_per_s == pytest.approx(40 / 4.0)  # only this generation's answers count
    assert live.eta_s == pytest.approx(6 / (3 / 4.0))  # 6 requests left at 3 per 4 s
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    gone = progress_of(RunMeta(planned_requests=10, generating=marker.model_copy(update={"pid": int(dead.stdout)})),
                       rows, now=104.0)
    assert not gone.generating and gone.eta_s is None  # a killed run is not "generating"


def test_visible_shows_escapes_bidi_and_zero_width_and_keeps_layout() -> None:
    assert visible("\x1b[31mred\x1b[0m\a") == "␛[31mred␛[0m␇"
    assert visible("a\u202eb\u200bc\x9b") == "a\\u202eb\\u200bc\\x9b"
    assert visible("line\n\tindented") == "line\n\tindented"


def test_config_defaults_to_loopback_names_only(tmp_path: Path) -> None:
    assert ViewConfig(tmp_path).allowed_hosts == LOOPBACK_NAMES and ViewConfig(tmp_path).token is None


def test_a_bug_gets_a_page_that_says_so_under_the_same_headers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from starlette.testclient import TestClient

    import forgegate.view.pages_runs as pages_runs
    from forgegate.view import create_app

    def broken(store: Path) -> None:
        raise RuntimeError("boom <b>")

    monkeypatch.setattr(pages_runs, "store_summaries", broken)
    web = TestClient(create_app(ViewConfig(tmp_path)), base_url="http://127.0.0.1:8765", raise_server_exceptions=False)
    page = web.get("/")
    assert page.status_code == 500 and "a bug in forgegate (RuntimeError: boom &lt;b&gt;)" in page.text
    assert page.headers["content-security-policy"] == CSP
