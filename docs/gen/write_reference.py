"""Write the generated reference pages into docs/, where they are committed: ``python docs/gen/write_reference.py``.

The command line, exit codes, failure modes, file formats, result files and capabilities pages are made from the
code (``reference.py``, ``capabilities.py``) and kept in git, so that every link to them resolves on a plain
checkout, not only in a built site (issue 45). ``tests/test_docs_reference_committed.py`` fails, naming this
command, when one of them no longer matches the code. The root files' copies (CONTRIBUTING, CHANGELOG) and the
examples' pages are still made at build time only (``gen_pages.py``): nothing in docs/ links to them.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
DOCS = HERE.parent
COMMAND = "python docs/gen/write_reference.py"
HEADER = f"<!-- Generated from the code by `{COMMAND}`: edit the code or docs/gen/, not this page. -->\n"
GENERATED_FOLDERS = ("reference/results", "reference/formats")
"""Folders that hold generated pages only: a page there that the code no longer makes is stale."""


def _load(name: str, file: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, HERE / file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def committed_pages() -> dict[str, str]:
    """Path under docs/ -> the page as committed (with the header that says how it is made)."""
    reference = _load("forgegate_docs_reference", "reference.py")
    capabilities = _load("forgegate_docs_capabilities", "capabilities.py")
    pages = {path: text for path, text in reference.pages().items() if path not in reference.ROOT_FILES}
    pages["reference/capabilities.md"] = capabilities.capabilities_page()
    return {path: HEADER + text for path, text in pages.items()}


def stale_files(pages: dict[str, str]) -> list[str]:
    """Committed pages that differ from ``pages``, are missing, or are no longer made (paths under docs/)."""
    out = [path for path, text in pages.items()
           if not (DOCS / path).is_file() or (DOCS / path).read_text(encoding="utf-8") != text]
    for folder in GENERATED_FOLDERS:
        out += [str(p.relative_to(DOCS)) for p in sorted((DOCS / folder).glob("*.md"))
                if str(p.relative_to(DOCS)) not in pages]
    return sorted(out)


def main() -> None:
    pages = committed_pages()
    for folder in GENERATED_FOLDERS:
        for page in (DOCS / folder).glob("*.md"):
            if str(page.relative_to(DOCS)) not in pages:
                page.unlink()
    for path, text in pages.items():
        target = DOCS / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    print(f"wrote {len(pages)} pages under {DOCS}")


if __name__ == "__main__":
    sys.path.insert(0, str(DOCS.parent / "src"))  # document this checkout's code, not an installed copy
    main()
