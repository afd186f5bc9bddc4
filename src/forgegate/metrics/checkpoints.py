"""Checkpoint ties from the loss curve: which eval points the curve cannot separate from its minimum.

Reads a Hugging Face Trainer ``trainer_state.json`` (``log_history`` entries with
``eval_loss``). The jitter is the median absolute difference between neighbouring
eval points. Every point within one jitter of the minimum is a tie the curve cannot
separate (those need a gate); every other point's distance from the minimum is given
in jitters (far ones are resolved by the curve alone).
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from pathlib import Path

from forgegate.errors import InputError
from forgegate.jsonio import JsonProblem, parse_json_strict, read_text_or_input_error

LOG_EVAL_LOSS = ("log eval_loss during training: give the Trainer an eval_dataset and "
                 "TrainingArguments(eval_strategy=\"steps\", eval_steps=N), with save_steps a multiple of "
                 "eval_steps so that every eval point has its checkpoint")
"""How to get a curve this module can read."""
MAX_ABS_EVAL_LOSS = 1e12
"""No loss a Trainer logs comes near this; ±1e308 would make every difference (the jitter) infinite."""
MAX_STEP = 2**53
"""A step is a count of optimizer steps; beyond this a float would no longer hold it."""


@dataclass(frozen=True)
class EvalPoint:
    step: int
    epoch: float | None
    eval_loss: float


@dataclass(frozen=True)
class Ranked:
    point: EvalPoint
    above_min: float
    jitters: float | None


@dataclass(frozen=True)
class CheckpointTies:
    """The curve's jitter, its minimum, the ties and everyone else's distance."""

    points: tuple[EvalPoint, ...]
    jitter: float
    best: EvalPoint
    ties: tuple[Ranked, ...]
    others: tuple[Ranked, ...]
    """Its JSON is ``results.checkpoints.CheckpointTiesResult``, built from it in one place."""


def _entry_problem(loss: object, step: object, epoch: object) -> str | None:
    """Why one eval entry of ``log_history`` cannot be a point on the curve, or None.

    Refused rather than skipped: a NaN or -Infinity loss would become the minimum, or drop it, and a
    ``true`` step (JSON's bool is Python's int) would name a ``checkpoint-True/``: a wrong checkpoint choice.
    """
    if isinstance(step, bool) or not isinstance(step, int):
        return f"'step' must be a whole number, not {json.dumps(step)}"
    if not 0 <= step <= MAX_STEP:
        return f"'step' {step} is out of range (0 to {MAX_STEP})"
    if isinstance(loss, bool) or not isinstance(loss, int | float):
        return f"'eval_loss' must be a number, not {json.dumps(loss)}"
    if not math.isfinite(loss) or abs(loss) > MAX_ABS_EVAL_LOSS:
        return f"'eval_loss' {loss} at step {step} is not a finite loss (at most {MAX_ABS_EVAL_LOSS:g} in size)"
    if epoch is not None and (isinstance(epoch, bool) or not isinstance(epoch, int | float)
                              or not math.isfinite(epoch)):
        return f"'epoch' must be a finite number, not {json.dumps(epoch)}"
    return None


def read_trainer_state(path: Path) -> list[EvalPoint]:
    """The eval points of a Trainer state, in step order; file errors name the file and entry.

    Read with the project's strict JSON reader (no deep nesting, no 5,000-digit numbers, no repeated key);
    a non-finite or wrongly typed ``eval_loss``, ``step`` or ``epoch`` is an InputError naming the entry.
    """
    path = Path(path)
    try:
        state = parse_json_strict(read_text_or_input_error(path, hint="pass a checkpoint's trainer_state.json"))
    except json.JSONDecodeError as exc:
        raise InputError(path, f"not a JSON file: {exc}", line=exc.lineno) from None
    except JsonProblem as exc:
        raise InputError(path, exc.message, field=exc.field, hint=exc.hint) from None
    history = state.get("log_history") if isinstance(state, dict) else None
    if not isinstance(history, list):
        raise InputError(path, "no 'log_history' list", field="log_history",
                         hint="this is not a Hugging Face Trainer state")
    points: dict[int, EvalPoint] = {}
    for number, entry in enumerate(history):
        if not isinstance(entry, dict) or "eval_loss" not in entry:
            continue
        loss, step, epoch = entry.get("eval_loss"), entry.get("step"), entry.get("epoch")
        problem = _entry_problem(loss, step, epoch)
        if problem is not None:
            raise InputError(path, f"eval entry: {problem}", field=f"log_history.{number}",
                             hint="an eval entry needs a finite numeric 'eval_loss' and a whole 'step'; fix or "
                                  "delete that entry")
        assert isinstance(step, int) and isinstance(loss, int | float)
        points[step] = EvalPoint(step, float(epoch) if isinstance(epoch, int | float) else None, float(loss))
    if len(points) < 3:
        raise InputError(path, f"{len(points)} eval point(s) with 'eval_loss': no jitter can be measured (the "
                         "median neighbour jitter needs at least 3 eval points)", field="log_history",
                         hint=LOG_EVAL_LOSS)
    return [points[s] for s in sorted(points)]


def checkpoint_ties(points: list[EvalPoint]) -> CheckpointTies:
    """Median neighbour jitter, the minimum, the ties within one jitter, and the rest in jitters."""
    if len(points) < 3:
        raise ValueError("at least 3 eval points are needed")
    jitter = statistics.median(abs(b.eval_loss - a.eval_loss) for a, b in zip(points, points[1:], strict=False))
    best = min(points, key=lambda p: (p.eval_loss, p.step))
    ranked = [Ranked(p, p.eval_loss - best.eval_loss,
                     (p.eval_loss - best.eval_loss) / jitter if jitter > 0 else None) for p in points]
    ties = tuple(r for r in ranked if r.above_min <= jitter)
    others = tuple(sorted((r for r in ranked if r.above_min > jitter), key=lambda r: r.above_min))
    return CheckpointTies(tuple(points), jitter, best, ties, others)
