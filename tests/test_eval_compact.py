"""Issue 39: a verdict that fits on a screen. A failing GLOSS eval printed 404-454 lines and ended mid-item with no
closing verdict; now it fits in about 60 lines at 80 columns and ends on one summary line, and ``--verbose`` keeps
the full report.

The model is the local Ollama fake (tests/backend_servers.py) answering the bundled battery with "ok" or a loop,
so every category fails, as a real untrained model's do; the command runs in a subprocess at ``COLUMNS=80``.
``--quiet`` prints the summary line alone (issue 39: it used to hide only the progress bar).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from backend_servers import Behaviour, FakeOllamaServer
from eval_helpers import read_json, run_cli

from forgegate.battery import bundled_battery_path, load_battery
from forgegate.report.eval_compact import PROMPTS_PER_CATEGORY, SCREEN_LINES, prompts_per_category

BATTERY = load_battery(bundled_battery_path())
LOOP = "the the the the the the the the the the"
SCRIPT = {item.prompt: (LOOP if n % 7 == 0 else "ok") for n, item in enumerate(BATTERY.items)}


@pytest.fixture(scope="module")
def failing(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str, str, str]:
    """(folder, compact stdout, compact stderr, --verbose stdout, --quiet stdout) of one failing eval, the later
    ones from the store. (No progress bar either way: stderr is not a terminal here.)"""
    folder = tmp_path_factory.mktemp("compact")
    args = ["eval", "--backend", "ollama", "--model", "m", "--store", str(folder / "store"),
            "--concurrency", "8", "--json", str(folder / "result.json")]
    with FakeOllamaServer(Behaviour(script=SCRIPT, models={"m:latest": "f" * 64})) as server:
        compact = run_cli(*args, "--base-url", server.url, env={"COLUMNS": "80"})
        verbose = run_cli(*args, "--base-url", server.url, "--verbose", env={"COLUMNS": "80"})
        quiet = run_cli(*args, "--base-url", server.url, "--quiet", env={"COLUMNS": "80"})
    assert compact.returncode == verbose.returncode == quiet.returncode == 1, compact.stdout + compact.stderr
    return folder, compact.stdout, compact.stderr, verbose.stdout, quiet.stdout


def test_a_failing_gloss_eval_fits_a_screen_at_80_columns(failing: tuple[Path, str, str, str, str]) -> None:
    _folder, out, err, full, _quiet = failing
    lines = (out + err).splitlines()
    assert len(lines) <= SCREEN_LINES + 3, out
    assert all(len(line) <= 80 for line in lines)
    assert len(full.splitlines()) > 3 * len(out.splitlines())  # the full report is still there, behind --verbose


def test_it_ends_on_one_summary_line_with_the_word_categories_loops_walls_and_exit_code(
        failing: tuple[Path, str, str, str, str]) -> None:
    folder, out, _err, _full, _quiet = failing
    result = read_json(folder / "result.json")
    loops = next(r["numbers"]["loops"] for r in result["reasons"] if "loops" in r["numbers"])
    walls = next(r["numbers"]["broken"] for r in result["reasons"] if "broken" in r["numbers"])
    summary = " ".join(out.rstrip().splitlines()[-2:])  # one line, wrapped at 80 columns
    n = len(result["categories"])
    assert summary.startswith(f"FAIL: {len(result['failed_categories'])}/{n} categories failed (LX-A")
    assert f"{loops} loop(s), {walls} wall(s) broken; exit 1; more: --verbose" in summary
    assert loops > 0 and walls > 0


def test_each_failed_category_shows_its_score_and_a_failing_prompts_observed_text_and_mode(
        failing: tuple[Path, str, str, str, str]) -> None:
    folder, out, _err, _full, _quiet = failing
    result = read_json(folder / "result.json")
    shown = prompts_per_category(len(result["categories"]), len(result["failed_categories"]))
    for name in result["failed_categories"]:
        score = result["categories"][name]["score"]
        assert re.search(rf"^{re.escape(name)}: score {score:.2f} \[FAIL\] — \d+ failing$", out, re.M), name
        failing_items = [i for i in result["items"] if i["category"] == name and not i["passed"]]
        for item in failing_items[:shown]:
            line = next(x for x in out.splitlines() if x.startswith(f"  • {item['id']}  "))
            assert repr(item["response"])[:10] in line and "→" in line
        for item in failing_items[shown:]:
            assert not any(x.startswith(f"  • {item['id']}  ") for x in out.splitlines())
    looped = BATTERY.items[0].item_id  # answered with a loop by the script, and its category's first item
    assert any(x.startswith(f"  • {looped}  ") and x.endswith("→ RUNAWAY_LOOP") for x in out.splitlines())
    assert f"forgegate show {result['run_id']} " in out


def test_the_spec_layout_stays_on_top(failing: tuple[Path, str, str, str, str]) -> None:
    _folder, out, _err, _full, _quiet = failing
    for heading in ("GLOSS EVAL v2 — Model: m", "Category scores:", "σ_total: ", "GATE: FAIL",
                    "Failed categories: [", "Failure modes detected: ["):
        assert heading in out


def test_quiet_prints_only_the_summary_line_the_full_output_ends_on(
        failing: tuple[Path, str, str, str, str]) -> None:
    folder, out, _err, _full, quiet = failing
    result = read_json(folder / "result.json")
    assert quiet.strip() and "GATE:" not in quiet and "FAILURE REPORT" not in quiet
    assert " ".join(out.split()).endswith(" ".join(quiet.split()))  # the line the compact report ends on
    assert len(quiet.splitlines()) <= 2  # one line, wrapped at 80 columns
    assert " ".join(quiet.split()).startswith(f"FAIL: {len(result['failed_categories'])}/")


def test_quiet_and_verbose_together_are_refused_before_anything_runs(tmp_path: Path) -> None:
    proc = run_cli("eval", "--quiet", "--verbose", "--store", str(tmp_path / "store"))
    assert proc.returncode == 2 and "--quiet" in proc.stderr and "--verbose" in proc.stderr, proc.stderr
    assert proc.stdout == "" and not (tmp_path / "store").exists()


def test_three_prompts_when_few_categories_fail_fewer_when_all_do() -> None:
    assert prompts_per_category(13, 2) == PROMPTS_PER_CATEGORY
    assert 1 <= prompts_per_category(13, 13) < PROMPTS_PER_CATEGORY
