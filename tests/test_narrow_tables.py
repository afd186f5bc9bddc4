"""Issue 39: tables stay readable at 80 columns (CI logs): they fold cells or drop columns, never cut an id.

Before, ``compare`` at 80 columns printed "cate…" and "reg…", and ``runs`` cut run ids.
"""

from __future__ import annotations

import io
from pathlib import Path

from eval_helpers import run_cli
from lineage_helpers import category, passes, result
from report_helpers import ADVERSARIAL, stored_run
from rich.console import Console

from forgegate.lineage import compare_runs, parse_run_scores, print_comparison
from forgegate.lineage.render_compare import NARROW

NAMES = ("LX-LIVE-GEN", "LX-NEGATIVE", "LX-SEMANTIC")


def rendered(width: int) -> str:
    old = sum((category(name, passes(36, 4)) for name in NAMES), [])
    new = category(NAMES[0], passes(20, 20)) + sum((category(name, passes(36, 4)) for name in NAMES[1:]), [])
    comparison = compare_runs(parse_run_scores(result(old, run_id="old"), "old.json"),
                              parse_run_scores(result(new, run_id="new"), "new.json"), seed=0, n_resamples=200,
                              old_label="eval-0123456789ab", new_label="eval-ba9876543210")
    out = io.StringIO()
    print_comparison(Console(file=out, width=width, no_color=True), comparison)
    return out.getvalue()


def test_compare_at_80_columns_shows_every_category_and_call_whole() -> None:
    text = rendered(80)
    assert "…" not in text
    assert all(len(line) <= 80 for line in text.splitlines())
    for word in (*NAMES, "category", "regressed", "unchanged", "eval-0123456789ab"):
        assert word in text, word
    header = next(line for line in text.splitlines() if line.startswith("category"))
    assert "McNemar" not in header and "lost/gained" not in header  # dropped when narrow; the JSON keeps them
    assert "McNemar p" in rendered(NARROW).split("bootstrap:")[0]


def test_runs_at_80_columns_never_cuts_a_run_id(tmp_path: Path) -> None:
    long_id = "eval-report0test-with-a-long-name-0123456789"
    stored_run(tmp_path, ADVERSARIAL, run_id=long_id)
    proc = run_cli("runs", "--store", str(tmp_path / "runs"), env={"COLUMNS": "80"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert long_id in proc.stdout and "…" not in proc.stdout
    assert all(len(line) <= 80 for line in proc.stdout.splitlines())
