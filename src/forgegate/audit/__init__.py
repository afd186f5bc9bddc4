"""Checks on training data before the forge: loop injection, source-name leaks, format mismatch,
eval contamination; each runs its controls every time and needs no model."""

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
