"""Issue 39: tables stay readable at 80 columns (CI logs): they fold cells or drop columns, never cut an id.

Before, ``compare`` at 80 columns printed "cate…" and "reg…", and ``runs`` cut run ids. Issue 45: ``runs`` took
about 15 lines a run at 80 columns and named no backend; now a run takes a line or three, with its backend, and a
model given by path by its file name.
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


def test_runs_at_80_columns_names_the_backend_and_a_model_path_by_its_file_name(tmp_path: Path) -> None:
    # the model a llama.cpp server lists: its GGUF's path
    stored_run(tmp_path, ADVERSARIAL, run_id="eval-0123456789ab",
               model="/home/someone/models/q4/SmolLM2-135M-Instruct.Q4_1.gguf")
    proc = run_cli("runs", "--store", str(tmp_path / "runs"), env={"COLUMNS": "80"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    header = lines[0].split()
    assert header[:2] == ["run", "kind"] and "backend" in header and "verdict" in header, lines[0]
    row = [line for line in lines if line.strip() and not line.startswith(("run ", "─"))]
    assert row[0].split()[:2] == ["eval-0123456789ab", "eval"] and " scripted " in row[0], proc.stdout
    assert len(row) <= 3, proc.stdout  # one run, a few lines (about 15 before)
    assert "home" not in proc.stdout and "someone" not in proc.stdout and "SmolLM2" in proc.stdout  # its file name


def test_a_model_is_shortened_only_when_it_is_a_path() -> None:
    from forgegate.report.fmt import model_shown

    for path in ("/home/u/models/q4/smollm2.gguf", "~/models/smollm2.gguf", "./ckpt/merged", "models/m.safetensors",
                 "C:\\models\\smollm2.gguf"):
        assert model_shown(path) == path.replace("\\", "/").rsplit("/", 1)[1], path
    for name in ("llama3:8b", "meta-llama/Llama-3.1-8B-Instruct", "smollm2", "hf.co/org/name:Q4_K_M"):
        assert model_shown(name) == name
