"""The Python API: the same road as the CLI, for scripts and notebooks.

Every function here is wiring: it builds the options the CLI would build and calls the pipeline.
Bad input raises `forgegate.ForgegateError` (its subclasses ``InputError``, ``UsageError``)
with the message the CLI prints. The ``*_async`` functions run inside an event loop; the plain
ones work from a script and from inside a running loop (Jupyter): there they run the work on a
helper thread with its own loop, because ``asyncio.run`` cannot nest.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from forgegate.core.limits import (
    DEFAULT_BOOTSTRAP_RESAMPLES,
    DEFAULT_CONCURRENCY,
    DEFAULT_RETRIES,
    DEFAULT_TIMEOUT_S,
    bootstrap_problem,
    whole_number_problem,
)
from forgegate.core.sampling import DEFAULT_SEED, DEFAULT_TEMPERATURE, DEFAULT_TOP_P, shown
from forgegate.core.sync import run_sync
from forgegate.errors import UsageError
from forgegate.lineage import compare_runs
from forgegate.pipeline.eval_session import run_session_async
from forgegate.pipeline.plan_generate import generate_plan_async
from forgegate.pipeline.plan_score import score_plan
from forgegate.pipeline.session_options import SessionOptions
from forgegate.pipeline.sources import eval_run_scores
from forgegate.results import ComparisonResult, EvalResult, PlanRunResult


async def evaluate_async(
    battery: str | Path | None = None, *, backend: str = "embedded", model: str | None = None,
    base_urls: Sequence[str] = (), adapter: str | None = None, device: str = "auto", dtype: str = "auto",
    batch_size: int | None = None, gate_config: str | Path | None = None, store: str | Path | None = None,
    concurrency: int = DEFAULT_CONCURRENCY, seed: int = DEFAULT_SEED, temperature: float = DEFAULT_TEMPERATURE,
    top_p: float = DEFAULT_TOP_P, system: str | None = None, retries: int = DEFAULT_RETRIES,
    timeout: float = DEFAULT_TIMEOUT_S, idle_timeout: float | None = None, api_key_env: str | None = None,
    check_failure_modes: bool = False, quiet: bool = True, wait: bool = True, live: bool = False,
    loop_cutoff: bool = True, training_corpus: str | Path | None = None,
) -> EvalResult:
    """Run a battery (default: the bundled GLOSS v2) against a model and gate it, as ``forgegate eval`` does.

    The keywords are the CLI's options (``base_urls`` is ``--base-url`` repeated, ``wait=False`` is
    ``--no-wait``), checked by the same options model with the same words. ``live=True`` runs the 10-task live
    test instead (``forgegate live``); ``loop_cutoff=False`` lets a looping answer run to its cap
    (``--no-loop-cutoff``); ``training_corpus`` runs the format audit when LX-B, LX-G or LX-X fail
    (``--training-corpus``). The run resumes from the store like the CLI's. The result's ``.gate`` is
    the verdict word; ``.model_dump()`` is the JSON contract.
    """
    keywords = dict(locals())  # every keyword but ``live`` is a SessionOptions field of the same name
    del keywords["live"]
    options = SessionOptions.model_validate({"kind": _live_kind(live), **keywords})
    return (await run_session_async(options)).result


def _live_kind(live: object) -> str:
    if not isinstance(live, bool):
        raise UsageError(f"live takes True or False, not {shown(live)}")
    return "live" if live else "eval"


def evaluate(
    battery: str | Path | None = None, *, backend: str = "embedded", model: str | None = None,
    base_urls: Sequence[str] = (), adapter: str | None = None, device: str = "auto", dtype: str = "auto",
    batch_size: int | None = None, gate_config: str | Path | None = None, store: str | Path | None = None,
    concurrency: int = DEFAULT_CONCURRENCY, seed: int = DEFAULT_SEED, temperature: float = DEFAULT_TEMPERATURE,
    top_p: float = DEFAULT_TOP_P, system: str | None = None, retries: int = DEFAULT_RETRIES,
    timeout: float = DEFAULT_TIMEOUT_S, idle_timeout: float | None = None, api_key_env: str | None = None,
    check_failure_modes: bool = False, quiet: bool = True, wait: bool = True, live: bool = False,
    loop_cutoff: bool = True, training_corpus: str | Path | None = None,
) -> EvalResult:
    """`evaluate_async` from synchronous code (a script, or a notebook cell whose loop is running): the same
    keywords, the same typed result."""
    # The signature is written out, not copied from evaluate_async's at import time, so that help(), IDEs and the
    # API page (mkdocstrings reads the source) show it; tests/test_docs_api_page.py holds the two equal.
    return run_sync(evaluate_async(**locals()))


async def run_plan_async(path: str | Path, *, store: str | Path | None = None, concurrency: int = 1,
                         quiet: bool = True) -> PlanRunResult:
    """A locked plan end to end, as ``forgegate run`` does: lock check, generation (resuming), every instrument,
    the gate. The result's ``.gate`` is the word; ``.model_dump(mode="json")`` the JSON contract."""
    _refuse(_flagged("--concurrency", whole_number_problem(concurrency, 1)))
    generations = await generate_plan_async(_path("plan", path), store_dir=_store(store), concurrency=concurrency,
                                            quiet=bool(quiet))
    scored = await asyncio.to_thread(score_plan, generations)
    return scored.model()


def run_plan(path: str | Path, *, store: str | Path | None = None, concurrency: int = 1,
             quiet: bool = True) -> PlanRunResult:
    """`run_plan_async` from synchronous code (a script, or a notebook cell whose loop is running): the same
    keywords, the same typed result."""
    # Written out for the same reason as evaluate's; the same test holds it equal to run_plan_async's.
    return run_sync(run_plan_async(**locals()))


def compare(old: str | Path, new: str | Path, *, store: str | Path | None = None, seed: int = 0,
            n_resamples: int = DEFAULT_BOOTSTRAP_RESAMPLES) -> ComparisonResult:
    """Paired regression check of two eval results (JSON files or stored run ids), as ``forgegate compare``:
    per category the paired difference with a bootstrap CI, McNemar's exact test and Holm's correction."""
    _refuse(bootstrap_problem(seed, n_resamples))
    store_dir = _store(store)
    comparison = compare_runs(eval_run_scores(_path("old", old), store_dir),
                              eval_run_scores(_path("new", new), store_dir), seed=seed,
                              n_resamples=n_resamples, old_label=str(old), new_label=str(new))
    return comparison.model()


def _flagged(flag: str, problem: str | None) -> str | None:
    return None if problem is None else f"{flag} {problem}"


def _refuse(problem: str | None) -> None:
    if problem is not None:
        raise UsageError(problem)


def _path(name: str, value: object) -> str:
    """A path or run id given as text or a ``Path``; anything else is refused in words, not a TypeError."""
    if not isinstance(value, str | Path):
        raise UsageError(f"{name} takes a path (text or a pathlib.Path), not {shown(value)}")
    return str(value)


def _store(store: object) -> Path | None:
    return None if store is None else Path(_path("--store", store))
