"""One writer per run: an OS file lock on ``<run>.sqlite.lock`` held while a process generates.

Two processes generating the same run would both send every request (the store only
learns an answer exists once it arrives). The lock is ``flock``: the kernel releases
it when its holder exits however it exits, kill -9 included, so a lock left by a dead
process is taken over at once, never obeyed forever. The holder writes its pid into
the lock file so that the one waiting can say whom it waits for. The lock file is left
in place after use: removing it would let a third process lock a fresh file while a
second still waits on the old one.

Waiting polls (a non-blocking try every ``POLL_S``) rather than blocking in the kernel,
so that a waiting run stays cancellable (Ctrl-C) and never stalls an event loop.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from forgegate.errors import StoreError

try:  # POSIX only; elsewhere generation is not guarded against a second process
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

POLL_S = 0.25


def lock_path(store_path: Path) -> Path:
    return store_path.with_name(store_path.name + ".lock")


def _holder(fd: int) -> str:
    text = os.pread(fd, 64, 0).decode("ascii", "replace").strip()
    return f"pid {text}" if text.isdigit() else "a process that has not written its pid yet"


def _try_lock(fd: int) -> bool:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


@asynccontextmanager
async def run_lock(store_path: Path, *, wait: bool, on_wait: Callable[[str], None]) -> AsyncIterator[None]:
    """Hold the run's write lock for the block; wait for another holder (telling ``on_wait`` once) or,
    with ``wait=False``, raise a StoreError naming it."""
    if fcntl is None:  # pragma: no cover - Windows
        yield
        return
    path = lock_path(store_path)
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StoreError(path, f"cannot create the run's lock file ({exc.strerror or exc})",
                         "give --store a folder you can write to") from exc
    try:
        if not _try_lock(fd):
            holder = _holder(fd)
            if not wait:
                raise StoreError(store_path, f"another forgegate process ({holder}) is generating this run",
                                 "wait for it to finish, or run again without --no-wait to wait for it")
            on_wait(f"waiting for {holder}, which is generating this run ({store_path.name}); this one then "
                    "resumes from its answers (--no-wait exits instead)")
            while not _try_lock(fd):
                await asyncio.sleep(POLL_S)
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode("ascii"), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
