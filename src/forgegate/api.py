"""The Python API: the same road as the CLI, for scripts and notebooks.

Every function here is wiring: it builds the options the CLI would build and calls the pipeline.
Bad input raises :class:`forgegate.ForgegateError` (its subclasses ``InputError``, ``UsageError``)
with the message the CLI prints. The ``*_async`` functions run inside an event loop; the plain
ones work from a script and from inside a running loop (Jupyter): there they run the work on a
helper thread with its own loop, because ``asyncio.run`` cannot nest.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from forgegate.backends import BACKENDS, BackendConfig
from forgegate.backends.adapters import adapter_refusal
from forgegate.core.limits import DEFAULT_TIMEOUT_S
from forgegate.core.sync import run_sync
from forgegate.errors import UsageError
from forgegate.lineage import compare_runs
from forgegate.pipeline.eval_session import SessionOptions, run_session_async
from forgegate.pipeline.gloss_scoring import eval_result
from forgegate.pipeline.plan_generate import generate_plan_async
from forgegate.pipeline.plan_score import score_plan
from forgegate.pipeline.sources import eval_run_scores
from forgegate.results import ComparisonResult, EvalResult, PlanRunResult

T = TypeVar("T")
P = ParamSpec("P")

DEFAULT_CONCURRENCY = 4
DEFAULT_SEED = 0


def _session_options(kind: str, battery: str | Path | None, *, backend: str, model: str | None,
                     base_urls: Sequence[str], adapter: str | None, gate_config: str | Path | None,
                     store: str | Path | None, concurrency: int, seed: int, temperature: float, top_p: float,
                     system: str | None, retries: int, timeout: float, api_key_env: str | None,
                     check_failure_modes: bool, quiet: bool) -> SessionOptions:
    BACKENDS.get(backend)  # an unknown name raises with a did-you-mean
    if adapter is not None and (why := adapter_refusal(backend)) is not None:
        raise UsageError(f"adapter: {why}")
    if isinstance(base_urls, str):
        raise UsageError("base_urls takes a sequence of URLs, not one string: base_urls=[url]")
    config = BackendConfig(model=model, base_urls=tuple(base_urls), adapter=adapter, timeout_s=timeout,
                           api_key_env=api_key_env)
    return SessionOptions(kind=kind, backend=backend, config=config,
                          battery_path=Path(battery) if battery is not None else None,
                          gate_config_path=Path(gate_config) if gate_config is not None else None,
                          seed=seed, temperature=temperature, top_p=top_p, system=system, concurrency=concurrency,
                          retries=retries, store_dir=Path(store) if store is not None else None, quiet=quiet,
                          check_failure_modes=check_failure_modes)


async def evaluate_async(
    battery: str | Path | None = None, *, backend: str = "embedded", model: str | None = None,
    base_urls: Sequence[str] = (), adapter: str | None = None, gate_config: str | Path | None = None,
    store: str | Path | None = None, concurrency: int = DEFAULT_CONCURRENCY, seed: int = DEFAULT_SEED,
    temperature: float = 0.0, top_p: float = 1.0, system: str | None = None, retries: int = 4,
    timeout: float = DEFAULT_TIMEOUT_S, api_key_env: str | None = None, check_failure_modes: bool = False,
    quiet: bool = True, live: bool = False,
) -> EvalResult:
    """Run a battery (default: the bundled GLOSS v2) against a model and gate it, as ``forgegate eval`` does.

    ``live=True`` runs the 10-task live test instead (``forgegate live``). The run resumes from the store
    like the CLI's. The result's ``.gate`` is the verdict word; ``.model_dump()`` is the JSON contract.
    """
    options = _session_options(
        "live" if live else "eval", battery, backend=backend, model=model, base_urls=base_urls, adapter=adapter,
        gate_config=gate_config, store=store, concurrency=concurrency, seed=seed, temperature=temperature,
        top_p=top_p, system=system, retries=retries, timeout=timeout, api_key_env=api_key_env,
        check_failure_modes=check_failure_modes, quiet=quiet)
    scored, _payload, _summary = await run_session_async(options)
    return eval_result(scored)


def _synchronous(async_function: Callable[P, Coroutine[Any, Any, T]], doc: str) -> Callable[P, T]:
    """The same call with the same keywords, for synchronous code (one signature, written once)."""

    @functools.wraps(async_function)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        return run_sync(async_function(*args, **kwargs))

    run.__doc__ = doc
    return run


evaluate = _synchronous(evaluate_async, ":func:`evaluate_async` from synchronous code (a script, or a notebook "
                        "cell with its loop running): same keywords, same typed result.")
evaluate.__name__ = evaluate.__qualname__ = "evaluate"


async def run_plan_async(path: str | Path, *, store: str | Path | None = None, concurrency: int = 1,
                         quiet: bool = True) -> PlanRunResult:
    """A locked plan end to end, as ``forgegate run`` does: lock check, generation (resuming), every instrument,
    the gate. The result's ``.gate`` is the word; ``.model_dump(mode="json")`` the JSON contract."""
    generations = await generate_plan_async(path, store_dir=Path(store) if store is not None else None,
                                            concurrency=concurrency, quiet=quiet)
    scored = await asyncio.to_thread(score_plan, generations)
    return scored.model()


run_plan = _synchronous(run_plan_async, ":func:`run_plan_async` from synchronous code.")
run_plan.__name__ = run_plan.__qualname__ = "run_plan"


def compare(old: str | Path, new: str | Path, *, store: str | Path | None = None, seed: int = 0,
            n_resamples: int = 9999) -> ComparisonResult:
    """Paired regression check of two eval results (JSON files or stored run ids), as ``forgegate compare``:
    per category the paired difference with a bootstrap CI, McNemar's exact test and Holm's correction."""
    store_dir = Path(store) if store is not None else None
    comparison = compare_runs(eval_run_scores(old, store_dir), eval_run_scores(new, store_dir), seed=seed,
                              n_resamples=n_resamples, old_label=str(old), new_label=str(new))
    return comparison.model()
