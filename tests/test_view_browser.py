"""`forgegate view` in a real browser: headless Chromium driven by Playwright, against the real server (uvicorn).

Chromium is Debian's ``chromium`` package and Playwright for Python drives it (its own browser
download is never used); without either these tests are skipped, saying why. Set
FORGEGATE_VIEW_SHOTS=DIR to keep screenshots of the run page, the review queue and the compare page.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from backend_servers import Behaviour, FakeOllamaServer
from slow import starts_something
from view_helpers import GOOD, LOOPING, MODEL, A, B, blank_sheet, make_run, options, write_inputs

from forgegate.pipeline.session.eval_session import run_session
from forgegate.store import RunStore, list_runs, run_path
from forgegate.view import ViewConfig, create_app
from forgegate.view.serve import bind

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("chromium not installed: `apt-get install -y chromium` (Debian) to run the browser checks")
    return found


@contextmanager
def serving(store: Path, **config: Any) -> Iterator[str]:
    """The view on a free loopback port, in a thread, for as long as the block runs."""
    import uvicorn

    sock = bind("127.0.0.1", 0)
    app = create_app(ViewConfig(store, **config))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


@pytest.fixture(scope="module")
@starts_something
def browser() -> Iterator[Any]:
    path = chromium()
    sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (the browser checks)")
    with sync_api.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=path, args=ARGS)
        yield launched
        launched.close()


@pytest.fixture()
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    opened = context.new_page()
    opened.dialogs = []  # every alert() that fires lands here
    opened.on("dialog", lambda dialog: (opened.dialogs.append(dialog.message), dialog.dismiss()))
    yield opened
    context.close()


def made(folder: Path, store: Path, script: dict[str, str], **kw: str) -> str:
    """``make_run`` off the main thread: Playwright's sync driver keeps an event loop running on it."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(make_run, folder, store, script, **kw).result()


def shot(page: Any, name: str) -> None:
    folder = os.environ.get("FORGEGATE_VIEW_SHOTS")
    if folder:
        page.screenshot(path=str(Path(folder) / name), full_page=True)


def test_runs_page_and_a_hostile_answer_execute_nothing(tmp_path: Path, page: Any) -> None:
    store = tmp_path / "store"
    run_id = made(tmp_path / "in", store, GOOD)
    with serving(store) as url:
        page.goto(url + "/")
        assert page.locator("#runs tbody tr").count() == 1
        page.click(f"a[href='/runs/{run_id}']")
        page.wait_for_selector("#verdict-word")
        assert page.inner_text("#verdict-word") == "INCOMPLETE"
        row = page.inner_text("tr[data-item='iota']")
        assert "<script>window.__owned = 1; alert('owned')</script>␛[31mAION␛[0m <img src=x" in row
        assert page.evaluate("window.__owned === undefined") and page.dialogs == []
        assert page.locator("main img").count() == 0 and page.locator("main script").count() == 0
        page.select_option("#f-outcome", "pending")
        page.click("form.filters button")
        page.wait_for_url("**outcome=pending**")
        assert page.locator("#items tbody tr").count() == 2
        page.goto(f"{url}/runs/{run_id}")
        shot(page, "view-run.png")


def test_two_reviews_through_the_form_reach_the_store_and_pass_the_gate(tmp_path: Path, page: Any) -> None:
    store = tmp_path / "store"
    run_id = made(tmp_path / "in", store, GOOD)
    with serving(store) as url:
        page.goto(f"{url}/runs/{run_id}/review")
        assert page.inner_text("#pending-count") == "2 pending of 2"
        shot(page, "view-review.png")
        for item in ("cold", "warm"):
            form = page.locator(f"section[data-review='{item}'] form")
            form.locator("input[name=reviewer]").fill("ana")
            form.locator("button[value=pass]").click()
            page.wait_for_selector("#review-ok")
        assert page.inner_text("#pending-count") == "0 pending of 2"
        assert page.inner_text("#verdict-word") == "PASS"
    with RunStore.open(run_path(run_id, store), create=False) as opened:
        assert opened.reviews() == {"model/cold/0": ("pass", "ana"), "model/warm/0": ("pass", "ana")}


def test_compare_page_is_chosen_by_form_and_shows_the_flip(tmp_path: Path, page: Any) -> None:
    store = tmp_path / "store"
    old = made(tmp_path / "in", store, GOOD)
    new = made(tmp_path / "in", store, LOOPING, model="gloss:v11")
    with serving(store) as url:
        page.goto(f"{url}/compare")
        page.select_option("#old", old)
        page.select_option("#new", new)
        page.click("form.filters button")
        page.wait_for_selector("#verdict-word")
        assert page.inner_text("#verdict-word") == "FAIL"
        assert "ο = οοοο" in page.inner_text("section[data-flip='omicron']")
        shot(page, "view-compare.png")


def test_progress_moves_without_a_reload_while_the_engine_generates(tmp_path: Path, page: Any) -> None:
    store = tmp_path / "store"
    battery, config = write_inputs(tmp_path / "in")
    slow = Behaviour(script=GOOD, models={MODEL: "e" * 64}, chunk_delay_s=0.35)
    with FakeOllamaServer(slow) as model_server, serving(store) as url:
        worker = threading.Thread(target=run_session, args=(options(model_server.url, battery, config, store,
                                                                    concurrency=1),))
        worker.start()
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not _generating(store):
                time.sleep(0.05)
            page.goto(url + "/")
            cell = page.locator("[data-progress]")
            assert cell.count() == 1, "the generating run has no live progress cell"
            start = int(cell.locator(".p-answered").inner_text())
            assert start < 5
            page.evaluate("window.__sameDocument = 42")
            page.wait_for_function("(start) => Number(document.querySelector('[data-progress] .p-answered')"
                                   ".textContent) > start", arg=start, timeout=30_000)
            page.wait_for_function("() => document.querySelector('[data-progress] .p-state').textContent"
                                   ".startsWith('finished')", timeout=60_000)
            assert cell.locator(".p-answered").inner_text() == "5"
            assert page.evaluate("window.__sameDocument") == 42  # updated in place: never reloaded
        finally:
            worker.join(timeout=120)


def _generating(store: Path) -> bool:
    for path in list_runs(store):
        with RunStore.open(path, create=False) as opened:
            if opened.meta().generating:
                return True
    return False


def test_relevance_annotated_by_two_people_refuses_the_author_and_shows_kappa(tmp_path: Path, page: Any) -> None:
    sheet = blank_sheet(tmp_path / "relevance_sheet.csv")
    with serving(tmp_path / "store", sheets=(sheet,), author="Carol") as url:
        page.goto(f"{url}/sheets/0")
        page.fill("#annotator", "carol")
        page.click("form.filters button")
        assert "wrote the plan and may not be a primary annotator" in page.inner_text("#error-message")
        for name, labels in (("ana", A), ("bo", B)):
            page.goto(f"{url}/sheets/0")
            page.fill("#annotator", name)
            page.click("form.filters button")
            for position, value in enumerate(labels.values()):
                page.check(f"tr[data-row='{position}'] input[value='{value}']")
            page.click("#annotate button[type=submit]")
            page.wait_for_selector("#sheet-saved")
        assert page.inner_text("#kappa").startswith("Cohen's kappa 0.250")
        assert "2 disagreement(s), 2 open" in page.inner_text("#kappa")
