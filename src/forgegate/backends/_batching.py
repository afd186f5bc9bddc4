"""Batched decoding for the transformers backend: requests for one base model decoded together.

One worker thread per loaded base takes the requests waiting for it (up to ``batch_size``),
left-pads their prompts, and decodes them step by step with one KV cache. Each row keeps its
own seeded ``torch.Generator`` and samples only from its own logits, so a request's text does
not depend on which requests share its batch (up to the floating-point numerics of a larger
matrix product, which do not change on CPU float32 in our tests; ``batch_size = 1`` is the strict
mode). A row that finishes is answered at once and leaves the batch; requests that arrived meanwhile
join it while there is room (``backends/_decode.py`` decodes a batch). Rows
over different adapters share a batch: each row's adapter is applied to that row alone
(``backends/_row_lora.py``), none for the base arm.

Per row: temperature 0 is greedy, top-p nucleus sampling otherwise; the cap is ``max_tokens``
new tokens; an end-of-sequence token ends the row and is not counted; a stop string ends it
with the text cut before the stop. Detokenisation is incremental (each step decodes a window
of a few tokens, never the whole sequence).
"""

from __future__ import annotations

import asyncio
import atexit
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any, TypeVar

from forgegate.core.records import Completion, FinishReason, GenerationRequest, StreamStop

T = TypeVar("T")
GATHER_S = 0.02
"""How long the worker waits for more requests to arrive before starting a batch that is not full."""


class IncrementalDetokenizer:
    """Text of a growing token list without re-decoding it all: decode a window, keep what is settled.

    Each step decodes ``ids[prefix:]`` and ``ids[prefix:read]``; the difference is the new text,
    held back while it ends in a partial UTF-8 character (U+FFFD).
    """

    def __init__(self, decode: Callable[[list[int]], str]) -> None:
        self._decode = decode
        self.ids: list[int] = []
        self._prefix = 0
        self._read = 0
        self.text = ""

    def push(self, token: int) -> str:
        """Add one token; return the text it settled (possibly empty)."""
        self.ids.append(token)
        before = self._decode(self.ids[self._prefix:self._read])
        now = self._decode(self.ids[self._prefix:])
        if len(now) > len(before) and not now.endswith("\ufffd"):
            piece = now[len(before):]
            self._prefix, self._read = self._read, len(self.ids)
            self.text += piece
            return piece
        return ""

    def flush(self) -> str:
        """The text still held back at the end (a trailing partial character is kept as decoded)."""
        rest = self._decode(self.ids[self._prefix:])[len(self._decode(self.ids[self._prefix:self._read])):]
        self.text += rest
        self._prefix = self._read = len(self.ids)
        return rest


@dataclass
class Job:
    """One request waiting for (or in) a batch, and how to hand its answer back to its event loop."""

    request: GenerationRequest
    adapter: str | None
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[Completion]
    make_completion: Callable[[Row], Completion]
    queued: float = field(default_factory=time.perf_counter)
    stop: StreamStop | None = None
    """The loop cut-off: when it fires, this row (only) ends with finish 'loop'."""

    def resolve(self, completion: Completion | None, error: BaseException | None = None) -> None:
        def settle() -> None:
            if self.future.done():
                return
            if error is not None:
                self.future.set_exception(error)
            else:
                self.future.set_result(completion)  # type: ignore[arg-type]

        try:
            self.loop.call_soon_threadsafe(settle)
        except RuntimeError:  # the caller's event loop is closed (an interrupted run): nobody is left to hear it
            return


@dataclass
class Row:
    """One row's decoding state."""

    job: Job
    prompt_ids: list[int]
    generator: Any
    detok: IncrementalDetokenizer
    pieces: list[str] = field(default_factory=list)
    finish: FinishReason = "length"
    ttft_s: float | None = None
    done: bool = False
    cut: bool = False
    """Ended by a stop string (the text was cut there)."""

    def step(self, token: int, eos: set[int]) -> None:
        """Take the row's next token: EOS or a stop string finishes it 'stop', the cap 'length', the job's
        stop predicate (the loop cut-off) 'loop'."""
        request = self.job.request
        if self.ttft_s is None:
            self.ttft_s = time.perf_counter() - self.job.queued
        if token in eos:
            self.finish, self.done = "stop", True
        else:
            before = len(self.detok.text)
            self.pieces.append(self.detok.push(token))
            cut = first_stop(self.detok.text, request.stop, before)
            if cut is not None:
                self.detok.text = self.detok.text[:cut]
                self.pieces = trim_pieces(self.pieces, cut)
                self.finish, self.done, self.cut = "stop", True, True
                return
            self.done = len(self.detok.ids) >= request.max_tokens
            stop = self.job.stop
            if not self.done and stop is not None and stop.due(len(self.detok.ids)) and stop(self.detok.text,
                                                                                            self.pieces):
                self.finish, self.done = "loop", True
                return  # kept as checked: a character still held back stays out of text and pieces alike
        if self.done and self.pieces:
            self.pieces[-1] += self.detok.flush()  # a trailing partial character is kept as decoded

    @property
    def tokens(self) -> int:
        return len(self.detok.ids)


def trim_pieces(pieces: list[str], length: int) -> list[str]:
    """Cut per-token texts so that they join to the first ``length`` characters (one entry per token)."""
    out: list[str] = []
    used = 0
    for piece in pieces:
        keep = piece[: max(0, length - used)]
        out.append(keep)
        used += len(keep)
    return out


def first_stop(text: str, stops: tuple[str, ...], already: int) -> int | None:
    """Where the earliest stop string begins, if one ends inside the newly decoded text."""
    best: int | None = None
    for stop in stops:
        if not stop:
            continue
        index = text.find(stop, max(0, already - len(stop) + 1))
        if index != -1 and (best is None or index < best):
            best = index
    return best


NUCLEUS_FIRST_K = 64
"""Tokens looked at first for a row's nucleus: the whole vocabulary is sorted only when these hold less than top_p."""


def pick_rows(logits: Any, settings: list[tuple[float, float]], generators: list[Any]) -> list[int]:
    """The next token of every row of ``logits`` ([rows, vocab]): greedy at temperature 0, otherwise temperature
    then nucleus (top-p) sampling with the row's own ``generator`` (one uniform draw a token).

    The whole batch is scaled, soft-maxed and cut to its nuclei at once: sampling row by row (a sort of the
    49,152-token vocabulary and a draw over all of it for every row) took 28% of a batch's time at 16 rows.
    A row's token depends only on its logits, settings and generator, never on the other rows.
    """
    import torch

    tokens = [int(t) for t in torch.argmax(logits, dim=-1).tolist()]
    sampled = [i for i, (temperature, _) in enumerate(settings) if temperature > 0]
    if not sampled:
        return tokens
    index = torch.tensor(sampled)
    temperatures = torch.tensor([settings[i][0] for i in sampled], dtype=logits.dtype)
    top_ps = torch.tensor([settings[i][1] for i in sampled], dtype=logits.dtype)
    probs = torch.softmax(logits[index] / temperatures[:, None], dim=-1)
    width = min(NUCLEUS_FIRST_K, probs.shape[-1])
    values, order = torch.topk(probs, width, dim=-1)
    short = (values.sum(-1) < top_ps) | (top_ps >= 1.0)
    for row, (value, place) in enumerate(zip(values, order, strict=True)):
        if short[row]:  # the nucleus reaches past the first k (or is the whole vocabulary): sort all of it
            value, place = torch.sort(probs[row], descending=True)
        keep = (torch.cumsum(value, dim=-1) - value < top_ps[row]) | (top_ps[row] >= 1.0)
        keep[0] = True
        mass = torch.cumsum(value * keep, dim=-1)
        draw = torch.rand((), generator=generators[sampled[row]], dtype=mass.dtype) * mass[-1]
        at = min(int(torch.searchsorted(mass, draw, right=True)), int(keep.sum()) - 1)
        tokens[sampled[row]] = int(place[at])
    return tokens


class Batcher:
    """The worker thread of one loaded base: gathers waiting jobs into batches and decodes them.

    The thread also runs, between batches, whatever :meth:`call` hands it (loading the model, loading and
    unloading adapters), so that one thread does every torch operation on the model. torch's CPU runtime
    (libgomp) keeps a team of threads per calling thread; once two threads have teams, there are more of
    them than cores and every parallel region waits passively: loading in the caller's thread and decoding
    here made a 32-row step of SmolLM2 on 2 cores 330-480 ms, against 275-305 ms with both here.
    """

    def __init__(self, decode_batch: Callable[[list[Job], Callable[[int], list[Job]]], None],
                 batch_size: int) -> None:
        self._decode_batch = decode_batch
        self.batch_size = batch_size
        self._cond = threading.Condition()
        self._queue: list[Job] = []
        self._thread: threading.Thread | None = None
        self._closed = False
        self.abandoned = False
        """Set at interpreter exit: the rows in flight are dropped at the next step (nobody will read them)."""
        self.batches: list[int] = []
        """Sizes of the batches run so far, as they started (what the tests and the benchmark read)."""
        self.joined = 0
        """Requests that joined a batch already running."""
        self.widest = 0
        """The most cache columns a decoding step attended over (the tests check that joining keeps it bounded)."""
        self._current: list[Job] = []
        self._calls: list[tuple[Callable[[], Any], Future[Any]]] = []

    def submit(self, job: Job) -> None:
        with self._cond:
            if self._closed:
                raise RuntimeError("the model was closed")
            self._queue.append(job)
            self._start()
            self._cond.notify()

    def call(self, work: Callable[[], T]) -> T:
        """Run ``work`` on the worker thread between batches and return its result (or raise its error)."""
        if threading.current_thread() is self._thread:
            return work()
        future: Future[T] = Future()
        with self._cond:
            if self._closed:
                raise RuntimeError("the model was closed")
            self._calls.append((work, future))
            self._start()
            self._cond.notify()
        return future.result()

    def _start(self) -> None:
        """Under the condition: start the worker thread if it is not running."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="forgegate-batcher", daemon=True)
            self._thread.start()
            _RUNNING.add(self)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify()

    def abandon(self, timeout_s: float) -> None:
        """At exit: drop what is queued and in flight, and wait (at most ``timeout_s``) for the step running now.

        The worker is a daemon thread; left inside a torch forward while the interpreter finalizes, the C++
        runtime aborts the process ("terminate called without an active exception", exit -6), which turned a
        Ctrl-C during a probe into a crash instead of exit 130.
        """
        with self._cond:
            self.abandoned, self._closed, self._queue = True, True, []
            self._cond.notify()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout_s)

    def _run_calls(self) -> None:
        """Run the waiting calls in order, each answer or error to its caller's future."""
        with self._cond:
            calls, self._calls = self._calls, []
        for work, future in calls:
            try:
                future.set_result(work())
            except BaseException as exc:  # noqa: BLE001  (the caller re-raises it)
                future.set_exception(exc)

    def _take(self) -> list[Job] | None:
        """The next batch's jobs (waiting a moment for more to arrive); [] when only calls are waiting;
        None once closed with nothing left."""
        with self._cond:
            while not self._queue and not self._calls and not self._closed:
                self._cond.wait()
            if self._calls or not self._queue:
                return [] if self._calls else None
            deadline = time.monotonic() + GATHER_S
            while len(self._queue) < self.batch_size and not self._closed:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            jobs, self._queue = self._queue[: self.batch_size], self._queue[self.batch_size:]
            return jobs

    def _take_now(self, room: int) -> list[Job]:
        """Up to ``room`` waiting jobs, without waiting (they join the running batch)."""
        with self._cond:
            jobs, self._queue = self._queue[:room], self._queue[room:]
        self.joined += len(jobs)
        self._current += jobs
        return jobs

    def _run(self) -> None:
        while (jobs := self._take()) is not None:
            if not jobs:
                self._run_calls()
                continue
            self.batches.append(len(jobs))
            self._current = list(jobs)
            try:
                self._decode_batch(jobs, self._take_now)
            except BaseException as exc:  # noqa: BLE001  (every request of the batch must hear of it)
                for job in self._current:
                    job.resolve(None, exc)


_RUNNING: weakref.WeakSet[Batcher] = weakref.WeakSet()
"""Batchers whose worker thread was started: abandoned at interpreter exit (:func:`_abandon_all`)."""


@atexit.register
def _abandon_all() -> None:
    """Let every worker finish its current step before the interpreter finalizes (see :meth:`Batcher.abandon`)."""
    for batcher in list(_RUNNING):
        batcher.abandon(timeout_s=60.0)
