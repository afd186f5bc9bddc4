"""The documentation site builds with ``mkdocs build --strict``: a broken link, a link to a missing heading, a nav
entry without its page or a generator that raises fails here. Needs the test extra (mkdocs and its plugins)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_docs_api_page import api_page_problems

REPO = Path(__file__).resolve().parents[1]

for plugin in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python", "mkdocs_gen_files"):
    pytest.importorskip(plugin, reason=f"{plugin} is in the test extra: pip install -e '.[test]'")


def build(site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "DISABLE_MKDOCS_2_WARNING": "true"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(site)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_the_site_builds_strict_offline_with_its_generated_references(tmp_path: Path) -> None:
    site = tmp_path / "site"
    done = build(site)
    assert done.returncode == 0, done.stdout + done.stderr
    cli = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    assert "forgegate eval" in cli and "--gate-config" in cli
    assert "schema_version" in (site / "reference" / "results" / "eval" / "index.html").read_text(encoding="utf-8")
    assert "RUNAWAY_LOOP" in (site / "reference" / "failure-modes" / "index.html").read_text(encoding="utf-8")
    api_page = (site / "reference" / "python-api" / "index.html").read_text(encoding="utf-8")
    assert api_page_problems(api_page) == []
    remote = re.compile(r"<(?:script|link|img)[^>]*(?:src|href)=\"(?:https?:)?//", re.I)
    pages = list(site.rglob("*.html"))
    assert len(pages) > 30
    offenders = [str(p.relative_to(site)) for p in pages if remote.search(p.read_text(encoding="utf-8"))]
    assert offenders == [], f"pages that load something from the network: {offenders}"
