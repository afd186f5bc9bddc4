"""Executing planned requests: bounded async concurrency, retries with backoff, the hard cap, resume.

The engine never decides pass or fail. It writes every outcome to the run store as
it arrives, so a killed process loses at most the requests in flight, and running
the same command again generates only what is missing.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, replace

from forgegate.backends.base import Backend, BackendError
from forgegate.core.records import Completion, GenerationRequest, StreamStop
from forgegate.errors import UsageError
from forgegate.run.progress import RunProgress
from forgegate.store.run_meta import RunMeta
from forgegate.store.runstore import RunStore


@dataclass(frozen=True)
class PlannedRequest:
    """One request of a run: an arm, an item, a seed, and exactly what is sent."""

    arm: str
    item_id: str
    seed: int | None
    request: GenerationRequest

    @property
    def key(self) -> str:
        return f"{self.arm}/{self.item_id}/{self.seed if self.seed is not None else '-'}"


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter for transient failures (5xx, connection, cut streams)."""

    attempts: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 8.0
    max_retry_after_s: float = 60.0
    """The longest a server's ``Retry-After`` is waited for before a retry; one asking for more ends the request
    (recorded as an error that says so) rather than holding the run."""

    def delay(self, attempt: int, rng: random.Random) -> float:
        return float(min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1)) * (0.5 + rng.random()))

    def wait(self, attempt: int, rng: random.Random, asked_s: float | None) -> float | None:
        """The pause before retry ``attempt + 1``: the backoff, or the server's ``Retry-After`` (``asked_s``)
        when that is longer (issue 46: it was ignored); None when the server asks for more than
        ``max_retry_after_s``."""
        backoff = self.delay(attempt, rng)
        if asked_s is None:
            return backoff
        return None if asked_s > self.max_retry_after_s else max(backoff, asked_s)


StopFor = Callable[[PlannedRequest], StreamStop | None]
"""The pipeline's stop predicate for a request (the loop detector over its item's prompt), or None."""


@dataclass(frozen=True)
class ExecutionSummary:
    planned: int
    skipped_finished: int
    generated: int
    failed: int
    tokens: int
    wall_s: float
    loops_cut: int = 0
    """Answers this execution cut off as loops (finish ``loop``)."""
    tokens_saved: int = 0
    """An estimate: for each cut-off answer, its cap minus the tokens it generated (what running to the cap,
    the longest it could have run, would have cost more)."""


async def record_model_digest(backend: Backend, store: RunStore, arm: str | None = None) -> str | None:
    """Store the model's digest (as arm ``arm``'s, or the run's one model's when None), before anything is
    generated; a digest is provenance, not an answer, so a failure to get one is recorded beside it rather than
    ending the run. A digest that differs from the one the store's answers were generated with is refused
    (:func:`refuse_other_weights`): a resume never crosses a change of weights (issue 46)."""
    try:
        digest = await backend.model_digest()
    except (BackendError, OSError) as exc:
        digest = None
        why = f"{type(exc).__name__}: {exc}"
        store.update_meta(RunMeta(model_digest_error=why) if arm is None else RunMeta(arm_digest_errors={arm: why}))
    if digest is None:  # nothing to compare, and a digest the store holds is not erased by a failed look-up
        held = store.meta()
        if (held.model_digest if arm is None else held.arm_digests.get(arm)) is None:
            store.update_meta(RunMeta(model_digest=None) if arm is None else RunMeta(arm_digests={arm: None}))
        return None
    refuse_other_weights(store, arm, digest)
    store.update_meta(RunMeta(model_digest=digest) if arm is None else RunMeta(arm_digests={arm: digest}))
    return digest


def refuse_other_weights(store: RunStore, arm: str | None, digest: str) -> None:
    """Raise UsageError (one line) when the store holds answers of ``arm`` (every arm's when None) generated from
    weights with another digest than ``digest``, by its record or by the answers' own."""
    meta = store.meta()
    held = meta.model_digest if arm is None else meta.arm_digests.get(arm)
    seen = {held} if held else set()
    seen |= {row.model_digest for row in store.latest()
             if row.ok and row.model_digest and (arm is None or row.arm == arm)}
    other = sorted(seen - {digest})
    if other:
        who = "the model" if arm is None else f"arm '{arm}'"
        raise UsageError(f"run store {store.path} holds answers of {who} from weights with digest {other[0]}, and "
                         f"the backend now serves digest {digest} under the same name: new weights are not resumed; "
                         "pass another --store (or remove that file) to generate them anew")


def enforce_cap(completion: Completion, cap: int) -> Completion:
    """The client-side hard cap, whatever the backend did: keep at most ``cap`` tokens, finish 'length'."""
    if completion.tokens <= cap:
        return completion
    if completion.token_texts is None:
        raise BackendError(
            f"backend returned {completion.tokens} tokens over a cap of {cap} without token boundaries",
            transient=False,
        )
    kept = completion.token_texts[:cap]
    return replace(completion, text="".join(kept), tokens=cap, token_texts=kept, finish="length")


async def _attempt(backend: Backend, request: GenerationRequest, stop: StreamStop | None) -> Completion:
    """One attempt, under the cap. An answer the backend cut off as a loop is kept only when the predicate
    holds on it as stored (the backend checked exactly that text, so it does; a backend that stored other
    token boundaries than it checked would break it): otherwise it is generated again without a cut-off."""
    if stop is None:
        return enforce_cap(await backend.generate(request), request.max_tokens)
    completion = enforce_cap(await backend.generate(request, stop.fresh()), request.max_tokens)
    if completion.finish == "loop" and not stop.confirms(completion.text, completion.token_texts):
        completion = enforce_cap(await backend.generate(request), request.max_tokens)
        return replace(completion, extra={**completion.extra, "loop_cutoff": "unconfirmed: generated again whole"})
    return completion


@dataclass
class _Refusals:
    """Per arm: answers this execution got, and the requests a server refused for good with an HTTP 4xx."""

    answered: dict[str, int]
    refused: dict[str, list[str]]

    def check(self, todo: Sequence[PlannedRequest]) -> None:
        """Raise UsageError when a server refused every request of an arm with a permanent 4xx (issue 46: a
        server that lists the model but answers each generation 404 or 400 ended INCOMPLETE, as if a retry
        could help): bad input, exit 2, the first refusal quoted. The refusals are in the store already."""
        for arm in dict.fromkeys(p.arm for p in todo):
            planned = sum(1 for p in todo if p.arm == arm)
            refused = self.refused.get(arm, [])
            if not self.answered.get(arm) and len(refused) == planned:
                raise UsageError(f"the server refused all {planned} request(s) of arm '{arm}' for good (first: "
                                 f"{refused[0][:300]}): retrying cannot help; fix what it names (--model, "
                                 "--base-url, the request) and run again")


async def _generate_with_retries(
    backend: Backend, planned: PlannedRequest, policy: RetryPolicy, rng: random.Random,
    stop: StreamStop | None = None, refusals: _Refusals | None = None,
) -> tuple[Completion | None, str | None, int]:
    last_error = "no attempt made"
    for attempt in range(1, policy.attempts + 1):
        asked: float | None = None
        try:
            return await _attempt(backend, planned.request, stop), None, attempt
        except BackendError as exc:
            last_error, asked = str(exc), exc.retry_after_s
            if refusals is not None and not exc.transient and exc.status is not None and 400 <= exc.status < 500:
                refusals.refused.setdefault(planned.arm, []).append(last_error)
            if not exc.transient or attempt == policy.attempts:
                return None, last_error, attempt
        except (TimeoutError, OSError) as exc:  # a backend bug must not lose the run
            last_error = f"{type(exc).__name__}: {exc}"
            if attempt == policy.attempts:
                return None, last_error, attempt
        pause = policy.wait(attempt, rng, asked)
        if pause is None:
            return None, (f"{last_error} (the server asked to be retried after {asked:g} s, Retry-After, longer than "
                          f"forgegate waits between retries, {policy.max_retry_after_s:g} s: run again later)"), attempt
        await asyncio.sleep(pause)
    return None, last_error, policy.attempts


async def execute(
    store: RunStore,
    planned: Sequence[PlannedRequest],
    backends: Mapping[str, Backend],
    *,
    concurrency: int = 4,
    retry: RetryPolicy | None = None,
    quiet: bool = True,
    retry_seed: int = 0,
    stop_for: StopFor | None = None,
    finished: Collection[str] | None = None,
    progress: RunProgress | None = None,
) -> ExecutionSummary:
    """Generate every planned request not already finished in ``store``; record each outcome.

    ``stop_for`` gives a request's stop predicate (the pipeline's loop cut-off); None: every answer runs
    until the model stops or its cap. ``finished``: the planned keys the caller has already read as finished
    from ``store`` (None: the whole store is read for them). ``progress``: a display the caller holds open across
    executions (it grows by this one's requests); None: one for this execution."""
    if concurrency < 1:
        raise ValueError("concurrency must be at least 1")
    policy = retry or RetryPolicy()
    rng = random.Random(retry_seed)
    done = store.finished_keys() if finished is None else set(finished)
    todo = [p for p in planned if p.key not in done]
    semaphore = asyncio.Semaphore(concurrency)
    counts = {"generated": 0, "failed": 0, "tokens": 0, "loops_cut": 0, "tokens_saved": 0}
    refusals = _Refusals({}, {})
    started = time.perf_counter()

    if progress is not None:
        progress.extend(len(todo))
    display = progress if progress is not None else RunProgress(total=len(todo), quiet=quiet)
    with display if progress is None else nullcontext(display) as bar:

        async def one(item: PlannedRequest) -> None:
            async with semaphore:
                completion, error, attempts = await _generate_with_retries(
                    backends[item.arm], item, policy, rng, stop_for(item) if stop_for is not None else None,
                    refusals)
            store.record(
                request_key=item.key, arm=item.arm, item_id=item.item_id, seed=item.seed,
                request=item.request, completion=completion, error=error, attempts=attempts,
            )
            if completion is None:
                counts["failed"] += 1
            else:
                counts["generated"] += 1
                refusals.answered[item.arm] = refusals.answered.get(item.arm, 0) + 1
                counts["tokens"] += completion.tokens
                if completion.finish == "loop":
                    counts["loops_cut"] += 1
                    counts["tokens_saved"] += max(0, item.request.max_tokens - completion.tokens)
            bar.advance(tokens=completion.tokens if completion else 0, failed=completion is None)

        await asyncio.gather(*(one(item) for item in todo))
    refusals.check(todo)

    return ExecutionSummary(
        planned=len(planned),
        skipped_finished=len(planned) - len(todo),
        generated=counts["generated"],
        failed=counts["failed"],
        tokens=counts["tokens"],
        wall_s=time.perf_counter() - started,
        loops_cut=counts["loops_cut"],
        tokens_saved=counts["tokens_saved"],
    )
