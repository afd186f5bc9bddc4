"""Spreading a backend's requests over its endpoints (replica base URLs), with a per-endpoint limit.

The limit exists for servers that cut a running stream when another request arrives (llama-cpp-python's
``interrupt_requests``, issue 33): such an endpoint is lowered step by step to the concurrency it serves.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass


@dataclass(frozen=True)
class Slot:
    """One request's hold on an endpoint (``EndpointPool.slot``): the URL, and what the pool looked like then."""

    url: str
    alone: bool
    """No other request was in flight at this endpoint when this one started."""
    arrivals: int
    """The endpoint's count of started requests, this one included: another one started since when it grew."""
    limit: int | None


class EndpointPool:
    """Spreads requests over replica base URLs: least requests in flight, ties broken round-robin; an endpoint
    found to cut streams while several are in flight gets a limit (``lower``) that ``slot`` waits for."""

    def __init__(self, urls: tuple[str, ...]) -> None:
        if not urls:
            raise ValueError("EndpointPool needs at least one URL")
        self.urls = urls
        self._in_flight = dict.fromkeys(urls, 0)
        self._arrivals = dict.fromkeys(urls, 0)
        self.limits: dict[str, int] = {}
        """Endpoints serving fewer requests at once than the run's concurrency, and how many."""
        self._freed = asyncio.Condition()
        self._next = 0

    def _open(self, url: str) -> bool:
        limit = self.limits.get(url)
        return limit is None or self._in_flight[url] < limit

    def _pick(self) -> str:
        n = len(self.urls)
        order = [self.urls[(self._next + i) % n] for i in range(n)]
        url = min(order, key=lambda u: (not self._open(u), self._in_flight[u]))
        self._next = (self.urls.index(url) + 1) % n
        return url

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[Slot]:
        """Reserve the least-busy endpoint that is under its limit, waiting while every one is at it."""
        async with self._freed:
            await self._freed.wait_for(lambda: any(self._open(u) for u in self.urls))
            url = self._pick()
            self._in_flight[url] += 1
            self._arrivals[url] += 1
            held = Slot(url, self._in_flight[url] == 1, self._arrivals[url], self.limits.get(url))
        try:
            yield held
        finally:
            async with self._freed:
                self._in_flight[url] -= 1
                self._freed.notify_all()

    def overlapped(self, held: Slot) -> bool:
        """Whether another request was in flight at ``held``'s endpoint at some time during it."""
        return not held.alone or self._arrivals[held.url] != held.arrivals or self._in_flight[held.url] > 1

    def lower(self, held: Slot) -> int | None:
        """After a stream cut at ``held``'s endpoint while others were in flight there: halve the requests it
        gets at once (down to 1), unless another cut already lowered it since ``held`` began. Returns the new
        limit when this call set it, None when it was lowered already (the caller just retries)."""
        current = self.limits.get(held.url)
        if current is not None and (held.limit is None or current < held.limit):
            return None
        seen = max(self._in_flight[held.url], 2)
        new = max(1, min(current or seen, seen) // 2)
        self.limits[held.url] = new
        return new

    @contextmanager
    def acquire(self) -> Iterator[str]:
        """Reserve the least-busy endpoint for one request (asyncio is single-threaded: no lock)."""
        url = self._pick()
        self._in_flight[url] += 1
        try:
            yield url
        finally:
            self._in_flight[url] -= 1

    def in_flight(self) -> dict[str, int]:
        return dict(self._in_flight)
