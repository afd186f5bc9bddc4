"""Shared inputs for the instrument tests: real novels from data/texts, gens files, the spec's loss curve."""

from __future__ import annotations

import io
import json
import sys
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from unittest.mock import patch

import numpy as np

from forgegate.metrics import Generation, read_text

REPO = Path(__file__).resolve().parents[1]
TEXTS = REPO / "data" / "texts"
SEEDS = (1234, 5678, 9012, 3456)


@cache
def novel(name: str) -> str:
    """A novel's body (Gutenberg header and footer cut)."""
    return read_text(TEXTS / name).text


def beats(text: str, rng: np.random.Generator, count: int, words: int = 120) -> list[str]:
    """``count`` windows of ``words`` whitespace words from random places in ``text``."""
    tokens = text.split()
    starts = rng.integers(0, len(tokens) - words, count)
    return [" ".join(tokens[s:s + words]) for s in starts]


def arm_from_novel(arm: str, name: str, rng: np.random.Generator, per_seed: int = 30) -> list[Generation]:
    """Four seeds of beat-sized windows of one novel, standing in for one arm's generations."""
    return [Generation(arm=arm, seed=seed, text=t) for seed in SEEDS for t in beats(novel(name), rng, per_seed)]


def write_gens(path: Path, rows: list[Generation] | list[dict[str, object]]) -> Path:
    lines = [r.model_dump_json(exclude_none=True) if isinstance(r, Generation) else json.dumps(r) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@dataclass(frozen=True)
class CliResult:
    returncode: int
    stdout: str
    stderr: str


def run_cli(*args: str | Path) -> CliResult:
    """The real console entry point ``main()`` (so InputError -> exit 2 is exercised), in-process."""
    from forgegate.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    code: int | str | None = 0
    with redirect_stdout(out), redirect_stderr(err), patch.object(sys, "argv", ["forgegate", *map(str, args)]):
        try:
            main()
        except SystemExit as exc:
            code = exc.code
    return CliResult(code if isinstance(code, int) else (0 if code is None else 1), out.getvalue(), err.getvalue())


JITTER = 0.00438


def spec_loss_curve() -> dict[int, float]:
    """The lv-hemingway curve's shape: 54 eval points, median neighbour jitter 0.00438 (prints 0.0044),
    minimum 2.2783 at step 1750, step 850 at 2.2823 (+0.0040), step 1700 inside one jitter, and the
    end of the run (step 2661) at 2.3546 (+0.0763, 17.4x the jitter)."""
    loss = {50 * k: 2.60 - 0.02 * (k - 1) for k in range(1, 16)}
    high, low = 2.2913, 2.2913 - JITTER
    for i, k in enumerate(range(16, 38)):
        loss[50 * k] = high if i % 2 == 0 else low
    loss.update({850: 2.2823, 1700: 2.2800, 1750: 2.2783})
    value = loss[1850]
    for k in range(38, 54):
        value += JITTER
        loss[50 * k] = value
    loss[2650] = 2.3516
    loss[2661] = 2.3546
    return loss


def write_trainer_state(path: Path, loss: dict[int, float]) -> Path:
    history: list[dict[str, object]] = []
    for step, value in sorted(loss.items()):
        history.append({"loss": value + 0.3, "learning_rate": 1e-4, "epoch": round(step / 887, 3), "step": step})
        history.append({"eval_loss": value, "eval_runtime": 12.5, "epoch": round(step / 887, 3), "step": step})
    path.write_text(json.dumps({"global_step": max(loss), "log_history": history}), encoding="utf-8")
    return path
