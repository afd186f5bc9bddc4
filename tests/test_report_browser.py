"""The report in a real browser: headless Chromium loads it offline, shows the verdict and the chart, draws pixels.

Two reports: one of a real run (the embedded SmolLM2 model on a six-item battery, through
``forgegate eval``) and one of a stored run whose answers are written to break a page.
Chromium is Debian's ``chromium`` package; without it these tests are skipped, saying why.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from report_helpers import ADVERSARIAL, gloss_payload, parse, write_small_inputs

from forgegate.report import render_html, write_reports

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
GATE_RED = (0xC6, 0x28, 0x28)


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.skip("chromium not installed: `apt-get install -y chromium` (Debian) to run the browser checks")
    return found


def open_in_chromium(page: Path, work: Path) -> tuple[str, Path]:
    """The DOM Chromium built from ``page`` and a 1200x2000 screenshot of it (fresh empty profile each)."""
    browser = chromium()
    dom = subprocess.run([browser, *FLAGS, f"--user-data-dir={work / 'profile-dom'}", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=180, check=True).stdout
    shot = work / "shot.png"
    subprocess.run([browser, *FLAGS, f"--user-data-dir={work / 'profile-shot'}", f"--screenshot={shot}",
                    "--window-size=1200,2000", page.as_uri()], capture_output=True, timeout=180, check=True)
    return dom, shot


def assert_rendered(dom: str, shot: Path, gate: str) -> None:
    from PIL import Image, ImageStat

    shape = parse(dom)
    assert f'id="verdict-word">{gate}</span>' in dom
    assert "svg" in shape.tags and "script" not in shape.tags
    assert shot.exists()
    image = Image.open(shot).convert("RGB")
    assert image.size == (1200, 2000)
    spread = ImageStat.Stat(image.convert("L")).stddev[0]
    assert spread > 20, f"screenshot looks blank (grey-level stddev {spread:.1f})"
    if gate == "FAIL":  # the verdict banner was painted with the FAIL colour, so the CSS applied
        banner = [image.getpixel((x, y)) for x in range(40, 1160, 40) for y in range(30, 90, 10)]
        assert sum(all(abs(a - b) < 12 for a, b in zip(px, GATE_RED, strict=True)) for px in banner) > 40


@pytest.mark.slow  # it starts a browser (Chromium, twice): not for the fast lane
def test_adversarial_report_renders_in_chromium_unchanged(tmp_path: Path) -> None:
    chromium()
    payload = gloss_payload(tmp_path / "run", ADVERSARIAL)
    page = tmp_path / "adversarial.html"
    page.write_text(render_html(payload), encoding="utf-8")
    dom, shot = open_in_chromium(page, tmp_path)
    assert_rendered(dom, shot, "FAIL")
    text = "".join(parse(dom).text)
    assert "</table></pre></main><script>alert('owned')</script><h1>PASS</h1>" in text
    assert "iframe" not in parse(dom).tags and "img" not in parse(dom).tags


@pytest.mark.slow
def test_report_of_a_real_embedded_model_run_renders_in_chromium(tmp_path: Path) -> None:
    chromium()
    pytest.importorskip("llama_cpp", reason="the embedded backend needs llama-cpp-python")
    battery, gate = write_small_inputs(tmp_path)
    result = tmp_path / "result.json"
    proc = subprocess.run([sys.executable, "-m", "forgegate.cli.main", "eval", "--battery", str(battery),
                           "--gate-config", str(gate), "--store", str(tmp_path / "runs"), "--json", str(result),
                           "--quiet"], capture_output=True, text=True, timeout=900)
    assert proc.returncode in (0, 1, 3), proc.stdout + proc.stderr
    import json

    payload = json.loads(result.read_text(encoding="utf-8"))
    assert payload["backend"] == "embedded" and all(i["response"] is not None for i in payload["items"])
    page, summary = tmp_path / "report.html", tmp_path / "report.md"
    write_reports(payload, page, summary)
    dom, shot = open_in_chromium(page, tmp_path)
    assert_rendered(dom, shot, payload["gate"])
    text = "".join(parse(dom).text)
    for item in payload["items"]:
        if not item["passed"]:
            assert item["response"] in text  # every failing answer the model gave is on the page
    assert summary.read_text(encoding="utf-8").startswith("### ")
