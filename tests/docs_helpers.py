"""The docs' reference generator (docs/gen/reference.py), imported by path: it is not part of the package."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
UNDESCRIBED = REPO / "tests" / "data" / "docs_undescribed_fields.txt"


def reference_module() -> ModuleType:
    name = "forgegate_docs_reference"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO / "docs" / "gen" / "reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def undescribed_now() -> set[str]:
    """``kind:Model.field`` (results) and ``format:Model.field`` (user files) with no description today."""
    ref = reference_module()
    out = {f"{kind}:{f}" for kind, schema in ref.result_schemas().items()
           for f in ref.undescribed_fields(schema, schema.get("title", kind))}
    for key, (_, cls, _) in ref.FILE_FORMATS.items():
        out |= {f"{key}:{f}" for f in ref.undescribed_fields(ref.file_format_schema(key), cls)}
    return out


def undescribed_known() -> set[str]:
    lines = UNDESCRIBED.read_text(encoding="utf-8").splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


if __name__ == "__main__":  # `PYTHONPATH=src python -m tests.docs_helpers`: the baseline at a merge, printed
    for line in sorted(undescribed_now()):
        print(line)
