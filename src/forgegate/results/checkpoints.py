"""``forgegate checkpoints --json``: the loss curve's ties, as a registered result kind (no verdict: it measures).

Built from :class:`forgegate.metrics.checkpoints.CheckpointTies` in one place (``pipeline/checkpoints.py``);
the JSON is this model's dump, the fields the command wrote before it had a kind, plus ``kind`` and
``schema_version``.
"""

from __future__ import annotations

from typing import Literal

from forgegate.results.base import SchemaVersion, Strict


class CheckpointPoint(Strict):
    """One eval point of the curve."""

    step: int
    """The Trainer's optimizer step of this eval point (its checkpoint is ``checkpoint-STEP``)."""
    epoch: float | None
    """The Trainer's epoch at this point; None when the log does not say."""
    eval_loss: float
    """The evaluation loss logged at this step."""


class RankedPoint(CheckpointPoint):
    """An eval point beside the minimum: how far above it, in loss and in jitters (None: a zero jitter)."""

    above_min: float
    """``eval_loss`` minus the minimum's."""
    jitters: float | None
    """``above_min`` in median neighbour jitters; None when the jitter is zero."""


class CheckpointTiesResult(Strict):
    """The curve's median neighbour jitter, its minimum, the points inside one jitter of it, and the others."""

    kind: Literal["checkpoint_ties"]
    """Always ``checkpoint_ties``."""
    schema_version: SchemaVersion
    """The version of this kind's JSON contract."""
    eval_points: int
    """How many eval points the curve has."""
    median_neighbour_jitter: float
    """The median absolute difference of eval_loss between neighbouring eval points."""
    minimum: CheckpointPoint
    """The eval point with the lowest eval_loss."""
    ties: list[RankedPoint]
    """Points within one jitter of the minimum (the minimum included): the curve cannot separate them."""
    others: list[RankedPoint]
    """Every other point, with its distance from the minimum."""
