"""Checks on training data before the forge: loop injection, source-name leaks, format mismatch,
eval contamination; each runs its controls every time and needs no model.

The names below are imported when first used (numpy and pyahocorasick load with the audits that use them),
so that a light submodule such as ``forgegate.audit.format_audit``'s categories serve an eval without them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forgegate.audit.battery_source import BatteryPrompt, load_battery_prompts
    from forgegate.audit.contamination import ContaminationReport, normalise_words, run_contamination_audit
    from forgegate.audit.corpus import CorpusRow, read_corpus
    from forgegate.audit.format_audit import FormatReport, run_format_audit
    from forgegate.audit.format_shape import compare_shapes, speaker_prefix
    from forgegate.audit.leak import LeakReport, run_leak_audit
    from forgegate.audit.loops import LoopReport, run_loop_audit, with_clean_copy, write_clean
    from forgegate.audit.names import derive_removed_names, load_rename_map
    from forgegate.audit.outcome import AuditFinding, Control
    from forgegate.audit.pairs import Pair, read_pairs
    from forgegate.audit.texts import TextFile, read_tree
    from forgegate.audit.wordmatch import WordMatch, WordMatcher

_HOME: dict[str, str] = {
    "BatteryPrompt": "forgegate.audit.battery_source",
    "load_battery_prompts": "forgegate.audit.battery_source",
    "ContaminationReport": "forgegate.audit.contamination",
    "normalise_words": "forgegate.audit.contamination",
    "run_contamination_audit": "forgegate.audit.contamination",
    "CorpusRow": "forgegate.audit.corpus",
    "read_corpus": "forgegate.audit.corpus",
    "FormatReport": "forgegate.audit.format_audit",
    "run_format_audit": "forgegate.audit.format_audit",
    "compare_shapes": "forgegate.audit.format_shape",
    "speaker_prefix": "forgegate.audit.format_shape",
    "LeakReport": "forgegate.audit.leak",
    "run_leak_audit": "forgegate.audit.leak",
    "LoopReport": "forgegate.audit.loops",
    "run_loop_audit": "forgegate.audit.loops",
    "with_clean_copy": "forgegate.audit.loops",
    "write_clean": "forgegate.audit.loops",
    "derive_removed_names": "forgegate.audit.names",
    "load_rename_map": "forgegate.audit.names",
    "AuditFinding": "forgegate.audit.outcome",
    "Control": "forgegate.audit.outcome",
    "Pair": "forgegate.audit.pairs",
    "read_pairs": "forgegate.audit.pairs",
    "TextFile": "forgegate.audit.texts",
    "read_tree": "forgegate.audit.texts",
    "WordMatch": "forgegate.audit.wordmatch",
    "WordMatcher": "forgegate.audit.wordmatch",
}

__all__ = [
    "AuditFinding",
    "BatteryPrompt",
    "ContaminationReport",
    "Control",
    "CorpusRow",
    "FormatReport",
    "LeakReport",
    "LoopReport",
    "Pair",
    "TextFile",
    "WordMatch",
    "WordMatcher",
    "compare_shapes",
    "derive_removed_names",
    "load_battery_prompts",
    "load_rename_map",
    "normalise_words",
    "read_corpus",
    "read_pairs",
    "read_tree",
    "run_contamination_audit",
    "run_format_audit",
    "run_leak_audit",
    "run_loop_audit",
    "speaker_prefix",
    "with_clean_copy",
    "write_clean",
]


def __getattr__(name: str) -> Any:
    """Import a re-exported name from its module on first use."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
