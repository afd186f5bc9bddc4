"""``forgegate checkpoints``: the loss curve's ties as their result (``results/checkpoints.py``), built here once.

``metrics/checkpoints.py`` measures the ties; the result model is plain fields and names no instrument, so the one
place the measurement becomes those fields is the pipeline (docs/architecture.md, Report -> Instruments).
"""

from __future__ import annotations

from pathlib import Path

from forgegate.metrics.checkpoints import CheckpointTies, Ranked, checkpoint_ties, read_trainer_state
from forgegate.results.base import SCHEMA_VERSION
from forgegate.results.checkpoints import CheckpointPoint, CheckpointTiesResult, RankedPoint


def ranked_point(ranked: Ranked) -> RankedPoint:
    """An eval point beside the minimum, as the result carries it."""
    point = ranked.point
    return RankedPoint(step=point.step, epoch=point.epoch, eval_loss=point.eval_loss, above_min=ranked.above_min,
                       jitters=ranked.jitters)


def ties_result(ties: CheckpointTies) -> CheckpointTiesResult:
    """The measured ties as ``forgegate checkpoints --json`` writes them."""
    best = ties.best
    return CheckpointTiesResult(
        kind="checkpoint_ties", schema_version=SCHEMA_VERSION, eval_points=len(ties.points),
        median_neighbour_jitter=ties.jitter,
        minimum=CheckpointPoint(step=best.step, epoch=best.epoch, eval_loss=best.eval_loss),
        ties=[ranked_point(r) for r in ties.ties], others=[ranked_point(r) for r in ties.others])


def checkpoint_ties_of(trainer_state: Path) -> CheckpointTiesResult:
    """The ties of a Trainer's ``trainer_state.json`` loss curve."""
    return ties_result(checkpoint_ties(read_trainer_state(trainer_state)))
