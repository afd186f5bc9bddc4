"""The Python API: the same road as the CLI, for scripts and notebooks.

Every function here is wiring: it builds the options the CLI would build and calls the pipeline.
Bad input raises `forgegate.ForgegateError` (its subclasses ``InputError``, ``UsageError``)
with the message the CLI prints. The ``*_async`` functions run inside an event loop; the plain
ones work from a script and from inside a running loop (Jupyter): there they run the work on a
helper thread with its own loop, because ``asyncio.run`` cannot nest.
"""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Unpack

from forgegate.core.limits import DEFAULT_BOOTSTRAP_RESAMPLES, bootstrap_problem, whole_number_problem
from forgegate.core.sampling import shown
from forgegate.core.sync import run_sync
from forgegate.errors import UsageError
from forgegate.lineage import compare_runs
from forgegate.pipeline.plan.generate import generate_plan_async
from forgegate.pipeline.plan.score import score_plan
from forgegate.pipeline.session.eval_session import run_session_async
from forgegate.pipeline.session.fields import Declared, declared, keyword_type
from forgegate.pipeline.session.keywords import SessionKeywords
from forgegate.pipeline.session.options import SessionOptions
from forgegate.pipeline.session.sources import eval_run_scores
from forgegate.results import ComparisonResult, EvalResult, PlanRunResult


async def evaluate_async(battery: str | Path | None = None, *, live: bool = False,
                         **options: Unpack[SessionKeywords]) -> EvalResult:
    """Run a battery (default: the bundled GLOSS v2) against a model and gate it, as ``forgegate eval`` does.

    The keywords are the CLI's options, generated from the one declaration of the session options
    (``forgegate.pipeline.session.fields``), and checked by the same options model with the same words
    (``base_urls`` is ``--base-url`` repeated, ``wait=False`` is ``--no-wait``, ``loop_cutoff=False`` is
    ``--no-loop-cutoff``); an unknown keyword is refused naming the known ones. ``live=True`` runs the 10-task
    live test instead (``forgegate live``); ``training_corpus`` runs the format audit when LX-B, LX-G or LX-X fail
    (``--training-corpus``). The run resumes from the store like the CLI's. The result's ``.gate`` is the verdict
    word; ``.model_dump()`` is the JSON contract. A type checker checks each keyword's type too
    (``SessionKeywords``, PEP 692: ``concurrency="4"`` is flagged before the call runs).
    """
    _SESSION_SIGNATURE.bind(battery, live=live, **options)  # an unknown keyword: a TypeError, as for any function
    session = SessionOptions.model_validate({"kind": _live_kind(live), "battery": battery, **options})
    return (await run_session_async(session)).result


def _live_kind(live: object) -> str:
    if not isinstance(live, bool):
        raise UsageError(f"live takes True or False, not {shown(live)}")
    return "live" if live else "eval"


def evaluate(battery: str | Path | None = None, *, live: bool = False,
             **options: Unpack[SessionKeywords]) -> EvalResult:
    """`evaluate_async` from synchronous code (a script, or a notebook cell whose loop is running): the same
    keywords, the same typed result."""
    return run_sync(evaluate_async(battery, live=live, **options))


def _keyword(option: Declared) -> inspect.Parameter:
    """One session option as an API keyword: a path may be text, a list of URLs any sequence."""
    return inspect.Parameter(option.name, inspect.Parameter.KEYWORD_ONLY, default=option.default,
                             annotation=keyword_type(option))


def _session_signature() -> inspect.Signature:
    """``evaluate``'s signature as help(), IDEs and the API page show it: ``battery``, every declared session
    option (``kind`` is ``live``), then ``live``: generated, so a new option needs no edit here."""
    keywords = [_keyword(option) for option in declared() if option.name not in ("kind", "battery")]
    battery = inspect.Parameter("battery", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None,
                                annotation=str | Path | None)
    live = inspect.Parameter("live", inspect.Parameter.KEYWORD_ONLY, default=False, annotation=bool)
    return inspect.Signature([battery, *keywords, live], return_annotation=EvalResult)


_SESSION_SIGNATURE = _session_signature()
evaluate_async.__signature__ = evaluate.__signature__ = _SESSION_SIGNATURE  # type: ignore[attr-defined]


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
    # Written out (mkdocstrings reads the source); tests/test_docs_api_page.py holds it equal to run_plan_async's.
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
