"""mkdocs-gen-files script: the pages made at build time only (never into git).

The reference pages (command line, exit codes, failure modes, file formats, result files, capabilities) are
committed under docs/reference/ by ``python docs/gen/write_reference.py`` so that links resolve on a checkout;
here: the root files' copies (CONTRIBUTING, CHANGELOG) and the examples' READMEs.
"""

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

for path, name in reference.ROOT_FILES.items():
    if (reference.ROOT / name).exists():
        with mkdocs_gen_files.open(path, "w") as handle:
            handle.write(reference.root_file_page(name))

# The examples' READMEs on the site (issue 39): one page each, their links into docs/ made relative to the page.
EXAMPLES = HERE.parents[1] / "examples"
for readme in sorted(EXAMPLES.glob("*/README.md")):
    with mkdocs_gen_files.open(f"examples/{readme.parent.name}.md", "w") as handle:
        handle.write(readme.read_text(encoding="utf-8").replace("](../../docs/", "](../"))
