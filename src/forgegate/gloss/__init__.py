"""The GLOSS workflow: one arm, a battery, one seed: generate into the store, score, gate, re-score."""

from forgegate.gloss.runner import EvalSpec, generate_eval, plan_requests
from forgegate.gloss.scoring import EvalResult, result_json, score_store
from forgegate.gloss.session import SessionOptions, rescore_stored_run, run_session

__all__ = [
    "EvalResult",
    "EvalSpec",
    "SessionOptions",
    "generate_eval",
    "plan_requests",
    "rescore_stored_run",
    "result_json",
    "run_session",
    "score_store",
]
