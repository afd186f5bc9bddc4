"""mkdocs-gen-files script: writes the generated reference pages into the build (never into git)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import mkdocs_gen_files

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "src"))  # document this checkout's code, not an installed copy
spec = importlib.util.spec_from_file_location("forgegate_docs_reference", HERE / "reference.py")
assert spec is not None and spec.loader is not None
reference = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = reference  # dataclasses look their module up while the class is built
spec.loader.exec_module(reference)

capabilities_spec = importlib.util.spec_from_file_location("forgegate_docs_capabilities", HERE / "capabilities.py")
assert capabilities_spec is not None and capabilities_spec.loader is not None
capabilities = importlib.util.module_from_spec(capabilities_spec)
capabilities_spec.loader.exec_module(capabilities)

for path, text in {**reference.pages(), "reference/capabilities.md": capabilities.capabilities_page()}.items():
    with mkdocs_gen_files.open(path, "w") as handle:
        handle.write(text)

# The examples' READMEs on the site (issue 39): one page each, their links into docs/ made relative to the page.
EXAMPLES = HERE.parents[1] / "examples"
for readme in sorted(EXAMPLES.glob("*/README.md")):
    with mkdocs_gen_files.open(f"examples/{readme.parent.name}.md", "w") as handle:
        handle.write(readme.read_text(encoding="utf-8").replace("](../../docs/", "](../"))
