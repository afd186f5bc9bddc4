"""Issue 39 item 5: the README's picture (docs/report.png) is a run of today's code. The screenshot script
(docs/report-demo/make-screenshot.sh) writes into the PNG the sha256 of the eval result schema the run was made
under; this fails once the schema moves on (a field added, renamed), until the picture is made again. The picture
it replaced (a 2026-11-29 run) titled a non-GLOSS gate "GLOSS eval" and carried no such record.

The issue asked for a test that fails "when the picture's run is older than the result schema it shows". The schema
(docs/schema/eval.json) carries no date of its own, only its content, so the picture records that content's sha256
and the comparison is "made under this schema or not", which is what "older than" means here."""

from __future__ import annotations

import hashlib
from pathlib import Path

from PIL import Image

REPO = Path(__file__).resolve().parents[1]
REGENERATE = ("make it again from the repository root with `bash docs/report-demo/make-screenshot.sh` (a real run "
              "of the embedded model, then a headless Chromium screenshot: `apt-get install -y chromium` on Debian) "
              "and commit docs/report.png")


def test_the_readme_picture_was_made_under_todays_eval_schema() -> None:
    assert "](docs/report.png)" in (REPO / "README.md").read_text(encoding="utf-8")
    with Image.open(REPO / "docs" / "report.png") as picture:
        text = dict(getattr(picture, "text", {}))
    assert "forgegate:eval-schema-sha256" in text, f"docs/report.png has no record of its run: {REGENERATE}"
    schema = hashlib.sha256((REPO / "docs" / "schema" / "eval.json").read_bytes()).hexdigest()  # kept current by
    assert text["forgegate:eval-schema-sha256"] == schema, (  # tests/test_results_models.py
        f"docs/report.png shows a run older than the eval result schema (docs/schema/eval.json): {REGENERATE}")
