"""An LLM judge's prompts through the one engine: a request key per judge call, every answer in a run store.

The semantic library calls its judge from plain (synchronous) code, one question's pairs at a
time. :class:`StoredJudgeRequests` turns each batch into planned requests of one arm
(:data:`JUDGE_ARM`), runs them through :func:`forgegate.run.engine.execute` (bounded
concurrency, retries with backoff, the one progress display) into a SQLite run store, and reads the
answers back from the store. A judge run killed at any point keeps every answer already written;
the same command asks again only for the rest (a stored answer is never requested twice). A request
that failed for good comes back as ``None``: the judge, not this module, says what that means.
"""

from __future__ import annotations

import asyncio
import hashlib
import tempfile
from collections.abc import Sequence
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

from forgegate.activity import note_store
from forgegate.backends.base import Backend, BackendConfig
from forgegate.backends.preflight import preflight as probe_endpoint
from forgegate.console import notice
from forgegate.core.records import GenerationRequest
from forgegate.errors import InputError
from forgegate.run.engine import PlannedRequest, RetryPolicy, execute
from forgegate.run.progress import RunProgress
from forgegate.store import RunMeta, RunStore, run_lock

JUDGE_ARM = "judge"
"""The one arm of a judge store: every row is a judge call."""
JUDGE_SEED = 0
"""A judge asks at temperature 0 once per prompt; the seed is part of its request, fixed."""


def refuse_legacy_cache(path: Path) -> None:
    """A JSONL judge cache written by an older forgegate is refused by name (it is not a run store), with what
    to do, instead of being reported as a damaged database."""
    if not path.is_file():  # absent, a folder, a pipe: the run store's own check words it (a FIFO is never opened)
        return
    with path.open("rb") as handle:
        head = handle.read(16)
    if head.lstrip()[:1] == b"{":
        raise InputError(path, "is a JSONL judge cache from an older forgegate; --judge-cache is now the run store "
                               "(SQLite) of the judge's requests",
                         hint="give --judge-cache a new path (the old answers are asked again) and keep or delete "
                              "the JSONL file as you wish")


def judge_item_id(request: GenerationRequest) -> str:
    """A judge call's item id: the hash of exactly what is sent (prompt, cap, sampling), so a stored answer is
    reused only for the same request, and a changed prompt or cap is asked afresh."""
    return hashlib.sha256(request.model_dump_json().encode("utf-8")).hexdigest()[:32]


class StoredJudgeRequests:
    """Answers judge prompts through the engine into the store at ``store_path`` (a temporary one when None:
    retries and progress still apply, but nothing survives the process).

    The store's identity is the judge's backend and model: a store written by another judge is refused
    (``RunStore.init_meta``), so one judge's answers are never read as another's. One event loop serves the
    judge's whole life (a backend may hold loop-bound locks); :meth:`close` ends it and the backend.
    """

    def __init__(self, backend: Backend, store_path: Path | None, *, backend_name: str, config: BackendConfig,
                 concurrency: int = 4, retry: RetryPolicy | None = None, quiet: bool = True) -> None:
        if store_path is not None:
            refuse_legacy_cache(store_path)
        self.backend = backend
        self.config = config
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if store_path is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="forgegate-judge-")
            store_path = Path(self._tmp.name) / "judge.sqlite"
        self.store_path = store_path
        self.backend_name = backend_name
        self.model = config.model
        self.base_urls = tuple(config.base_urls)
        self._probed = False
        self._seen: set[str] = set()
        self.concurrency = concurrency
        self.retry = retry
        self.quiet = quiet
        self.generated = 0
        """Answers this object had the backend generate (stored answers reused are not counted)."""
        self.reused = 0
        """Answers read from the store, written by an earlier (perhaps killed) run."""
        self.failed = 0
        """Requests that failed for good (after the engine's retries)."""
        self._loop = asyncio.new_event_loop()
        self._stack = AsyncExitStack()
        self._store: RunStore | None = None
        self._progress: RunProgress | None = None

    def _identity(self) -> RunMeta:
        return RunMeta(backend=self.backend_name, model=self.model)

    def answer(self, requests: Sequence[GenerationRequest]) -> list[str | None]:
        """Each request's answer text, in order; None where the request failed for good."""
        planned = list({p.key: p for p in (PlannedRequest(JUDGE_ARM, judge_item_id(r), JUDGE_SEED, r)
                                           for r in requests)}.values())
        if not planned:
            return []
        rows = self._loop.run_until_complete(self._run(planned))
        return [rows.get(PlannedRequest(JUDGE_ARM, judge_item_id(r), JUDGE_SEED, r).key) for r in requests]

    async def _open(self) -> RunStore:
        """The store, opened and locked once for the judge's life (one writer per judge store; a batch does not
        pay for opening, locking and checking the identity again)."""
        if self._store is None:
            self.store_path.parent.mkdir(parents=True, exist_ok=True)
            await self._stack.enter_async_context(run_lock(self.store_path, wait=True, on_wait=notice))
            store = self._stack.enter_context(RunStore.open(self.store_path))
            store.init_meta(self._identity())
            self._store = store
            # one display for the judge's life, growing as its pairs are learned (not one bar per batch)
            self._progress = self._stack.enter_context(RunProgress(0, quiet=self.quiet, description="judging",
                                                                   growing=True))
        return self._store

    async def _run(self, planned: list[PlannedRequest]) -> dict[str, str | None]:
        """One batch. Only this batch's keys are read (a keyed query), so a long clustering run does not re-read
        its whole store per batch; the store still decides what is finished."""
        self._seen.update(p.key for p in planned)
        store = await self._open()
        before = store.latest_for([p.key for p in planned])
        finished = {key for key, row in before.items() if row.ok and not row.unconfirmed}
        if self._tmp is None:  # a temporary store is gone when the command ends: nothing to resume from
            # on Ctrl-C the CLI says what this store holds, of the judge requests known so far (the judge learns
            # its pairs as it clusters, so the whole count is not known in advance)
            note_store(self.store_path, len(self._seen))
        todo = [p for p in planned if p.key not in finished]
        if todo and not self._probed:
            # a dead server, a wrong URL or an unserved model is bad input (exit 2), as for an eval's model: not
            # a judge whose every request "failed for good" after the retries
            await probe_endpoint(self.backend_name, self.config)
            self._probed = True
            if self.base_urls:
                store.update_meta(RunMeta(base_urls=list(self.base_urls)))
        summary = await execute(store, todo, {JUDGE_ARM: self.backend}, concurrency=self.concurrency,
                                retry=self.retry, quiet=self.quiet, finished=(), progress=self._progress)
        latest = {**before, **store.latest_for([p.key for p in todo])}
        self.generated += summary.generated
        self.reused += len(finished)
        self.failed += summary.failed
        return {key: (row.response if row.ok else None) for key, row in latest.items()}

    def describe(self) -> dict[str, Any]:
        """What a codebook records of the judge's transport: backend, model and the servers it was asked at."""
        return {"backend": self.backend_name, "model": self.model, "base_urls": list(self.base_urls)}

    def close(self) -> None:
        """Close the backend and the loop, finalising its async generators first (a streamed answer's generator
        left open is otherwise collected after the loop closed: "Task was destroyed but it is pending!")."""
        if not self._loop.is_closed():
            self._loop.run_until_complete(self._stack.aclose())  # the store closed, its lock released
            self._store = None
            self._loop.run_until_complete(self.backend.aclose())
            self._loop.run_until_complete(self._loop.shutdown_asyncgens())
            self._loop.close()
        if self._tmp is not None:
            self._tmp.cleanup()
