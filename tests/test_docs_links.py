"""Issue 45: every relative link in the README and docs/ resolves to a file on a plain checkout.

A built site is not where a reader who cloned the repository reads; five reference pages the docs linked to
existed only there. Links inside code blocks are text, not links; a link with a scheme (https:, mailto:) or to an
anchor on the same page is not a file. (Anchors within files are checked by the strict site build,
tests/test_docs_site.py.)
"""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)


def pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def broken_links(page: Path) -> list[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)  # inline code: `[x](y)` there is an example, not a link
    out = []
    for target in LINK.findall(text):
        if re.match(r"[A-Za-z][A-Za-z0-9+.-]*:", target) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0].split("?", 1)[0]
        if path and not (page.parent / path).exists():
            out.append(target)
    return out


def test_every_relative_link_in_the_readme_and_docs_resolves_to_a_file() -> None:
    broken = {str(page.relative_to(REPO)): found for page in pages() if (found := broken_links(page))}
    assert not broken, broken


def test_a_link_to_a_page_that_is_not_there_is_found(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("x", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("[a](there.md) [b](missing.md#x) [c](https://example.org) [d](#top)\n"
                    "```\n[e](in-a-block.md)\n```\n`[f](inline.md)`\n![g](gone.png)\n", encoding="utf-8")
    assert broken_links(page) == ["missing.md#x", "gone.png"]


def test_the_starter_files_name_pages_that_exist() -> None:
    """``forgegate init``'s gate.toml pointed to "https://forgegate docs", a placeholder; it names a page of the
    repository now, and that page must be there."""
    starter = REPO / "src" / "forgegate" / "data" / "starter"
    named = {(f.name, ref) for f in starter.iterdir() if f.is_file()
             for ref in re.findall(r"\bdocs/[\w./-]+\.md\b", f.read_text(encoding="utf-8"))}
    assert ("gate.toml", "docs/reference/formats/gate-config.md") in named
    assert [ref for _, ref in named if not (REPO / ref).is_file()] == []
    assert "https://forgegate docs" not in (starter / "gate.toml").read_text(encoding="utf-8")
