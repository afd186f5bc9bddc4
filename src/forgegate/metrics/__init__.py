"""Per-arm statistics: Burrows's Delta (voice), verbatim n-gram memorisation, damage rates, seed floors.

``forgegate run`` and the standalone instrument commands call the same functions:
``voice_report``, ``memorization_report`` (each returns a report with its ``.verdict``, still decided here
through ``gate/``: issue 34 moves them next) and ``damage_report`` (measurements only: the pipeline hands them to
``gate.damage.damage_verdict``, ``pipeline/axes.py``); the JSON is the results model built from both, then
``forgegate.gate.arms.arms_verdict``.
"""

from forgegate.metrics.checkpoints import CheckpointTies, EvalPoint, checkpoint_ties, read_trainer_state
from forgegate.metrics.damage import DamageReport, damage_report
from forgegate.metrics.delta import DeltaModel, fit_delta_model, normalise_for_voice, reference_segments
from forgegate.metrics.generations import Generation, arms_in, by_arm_seed, load_generations, require_arms
from forgegate.metrics.memorization import MemorizationReport, memorization_report
from forgegate.metrics.ngram_index import NgramIndex, words_of
from forgegate.metrics.noise_floor import ArmSeeds, FloorComparison, compare_arms, seed_problem
from forgegate.metrics.texts import LoadedText, read_text, strip_gutenberg
from forgegate.metrics.voice import VoiceReport, floors_disagree, voice_report, voice_rule

__all__ = [
    "ArmSeeds", "CheckpointTies", "DamageReport", "DeltaModel", "EvalPoint",
    "FloorComparison", "Generation", "LoadedText", "MemorizationReport", "NgramIndex", "VoiceReport",
    "arms_in", "by_arm_seed", "checkpoint_ties", "compare_arms", "damage_report", "fit_delta_model",
    "floors_disagree", "load_generations", "memorization_report", "normalise_for_voice",
    "read_text", "read_trainer_state", "reference_segments", "require_arms", "seed_problem",
    "strip_gutenberg", "voice_report", "voice_rule", "words_of",
]
