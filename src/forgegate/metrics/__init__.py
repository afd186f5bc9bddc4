"""Per-arm statistics: Burrows's Delta (voice), verbatim n-gram memorisation, damage rates, seed noise floors,
checkpoint ties from the loss curve, and pass rates over K samples per item.

``forgegate run`` and the standalone instrument commands call the same functions: ``voice_report``,
``memorization_report`` and ``damage_report`` each return measurements only, with their controls, and never a
verdict (the contracts keep ``gate/`` out of this package). The pipeline hands each report to its rule in
``gate/`` (``pipeline/axes.py``: ``gate_voice``, ``gate_memorization``, ``gate_damage``) and builds the result
model from both; ``gate.arms.arms_verdict`` combines the three axes.

The names below are imported when first used (numpy and the n-gram index load with the statistics that
use them), so that forgegate.metrics.generations serves a server eval's store alone.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from forgegate.metrics.checkpoints import CheckpointTies, EvalPoint, checkpoint_ties, read_trainer_state
    from forgegate.metrics.damage import DamageReport, damage_report
    from forgegate.metrics.delta import DeltaModel, fit_delta_model, normalise_for_voice, reference_segments
    from forgegate.metrics.generations import Generation, arms_in, by_arm_seed, load_generations, require_arms
    from forgegate.metrics.memorization import MemorizationReport, memorization_report
    from forgegate.metrics.ngram_index import NgramIndex, words_of
    from forgegate.metrics.noise_floor import ArmSeeds, FloorComparison, compare_arms, seed_problem
    from forgegate.metrics.texts import LoadedText, read_text, strip_gutenberg
    from forgegate.metrics.voice import VoiceReport, floors_disagree, voice_report, voice_rule

_HOME: dict[str, str] = {
    "CheckpointTies": "forgegate.metrics.checkpoints",
    "EvalPoint": "forgegate.metrics.checkpoints",
    "checkpoint_ties": "forgegate.metrics.checkpoints",
    "read_trainer_state": "forgegate.metrics.checkpoints",
    "DamageReport": "forgegate.metrics.damage",
    "damage_report": "forgegate.metrics.damage",
    "DeltaModel": "forgegate.metrics.delta",
    "fit_delta_model": "forgegate.metrics.delta",
    "normalise_for_voice": "forgegate.metrics.delta",
    "reference_segments": "forgegate.metrics.delta",
    "Generation": "forgegate.metrics.generations",
    "arms_in": "forgegate.metrics.generations",
    "by_arm_seed": "forgegate.metrics.generations",
    "load_generations": "forgegate.metrics.generations",
    "require_arms": "forgegate.metrics.generations",
    "MemorizationReport": "forgegate.metrics.memorization",
    "memorization_report": "forgegate.metrics.memorization",
    "NgramIndex": "forgegate.metrics.ngram_index",
    "words_of": "forgegate.metrics.ngram_index",
    "ArmSeeds": "forgegate.metrics.noise_floor",
    "FloorComparison": "forgegate.metrics.noise_floor",
    "compare_arms": "forgegate.metrics.noise_floor",
    "seed_problem": "forgegate.metrics.noise_floor",
    "LoadedText": "forgegate.metrics.texts",
    "read_text": "forgegate.metrics.texts",
    "strip_gutenberg": "forgegate.metrics.texts",
    "VoiceReport": "forgegate.metrics.voice",
    "floors_disagree": "forgegate.metrics.voice",
    "voice_report": "forgegate.metrics.voice",
    "voice_rule": "forgegate.metrics.voice",
}

__all__ = [
    "ArmSeeds", "CheckpointTies", "DamageReport", "DeltaModel", "EvalPoint",
    "FloorComparison", "Generation", "LoadedText", "MemorizationReport", "NgramIndex", "VoiceReport",
    "arms_in", "by_arm_seed", "checkpoint_ties", "compare_arms", "damage_report", "fit_delta_model",
    "floors_disagree", "load_generations", "memorization_report", "normalise_for_voice",
    "read_text", "read_trainer_state", "reference_segments", "require_arms", "seed_problem",
    "strip_gutenberg", "voice_report", "voice_rule", "words_of",
]


def __getattr__(name: str) -> Any:
    """Import a re-exported name from its module on first use."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
