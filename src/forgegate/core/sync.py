"""Running a coroutine to the end from synchronous code, whether or not the thread already runs a loop."""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` where it can; inside a running loop (Jupyter, a training loop started from a notebook)
    the work runs on a helper thread with its own loop, because ``asyncio.run`` cannot nest."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="forgegate") as pool:
        return pool.submit(asyncio.run, coroutine).result()
