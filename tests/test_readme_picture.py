"""Issue 39 item 5: the README's picture (docs/report.png) is a run of today's code. The screenshot script
(docs/report-demo/make-screenshot.sh) writes into the PNG the sha256 of the eval result schema the run was made
under; this fails once the schema moves on (a field added, renamed), until the picture is made again. The picture
it replaced (a 2026-11-29 run) titled a non-GLOSS gate "GLOSS eval" and carried no such record."""

from __future__ import annotations

import hashlib
from pathlib import Path

from PIL import Image

REPO = Path(__file__).resolve().parents[1]


def test_the_readme_picture_was_made_under_todays_eval_schema() -> None:
    assert "](docs/report.png)" in (REPO / "README.md").read_text(encoding="utf-8")
    with Image.open(REPO / "docs" / "report.png") as picture:
        text = dict(getattr(picture, "text", {}))
    assert "forgegate:eval-schema-sha256" in text, "docs/report.png has no record of its run: run " \
        "docs/report-demo/make-screenshot.sh"
    schema = hashlib.sha256((REPO / "docs" / "schema" / "eval.json").read_bytes()).hexdigest()  # kept current by
    assert text["forgegate:eval-schema-sha256"] == schema, (  # tests/test_results_models.py
        "docs/report.png shows a run older than the eval result schema: run docs/report-demo/make-screenshot.sh")
