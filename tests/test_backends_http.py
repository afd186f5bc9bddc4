"""Shared HTTP plumbing of the server backends: SSE framing, the capped reader, replica choice."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import httpx

from forgegate.backends._http import EndpointPool, StreamEvent, collect_capped, iter_sse_data


def test_sse_reader_joins_multiline_data_and_skips_comments() -> None:
    body = b': keep-alive\n\ndata: {"a":\ndata: 1}\n\nevent: x\ndata:[DONE]\n\n'

    async def main() -> list[str]:
        response = httpx.Response(200, content=body)
        return [d async for d in iter_sse_data(response)]

    assert asyncio.run(main()) == ['{"a":\n1}', "[DONE]"]


def test_capped_reader_drops_the_token_past_the_cap_but_reads_a_final_finish() -> None:
    async def events(n: int, finish: bool) -> AsyncIterator[StreamEvent]:
        for i in range(n):
            yield StreamEvent(token=f"t{i} ")
        if finish:
            yield StreamEvent(finish="stop", done=True)

    capped = asyncio.run(collect_capped(events(10, False), 3, time.perf_counter()))
    exact = asyncio.run(collect_capped(events(3, True), 3, time.perf_counter()))
    cut = asyncio.run(collect_capped(events(2, False), 3, time.perf_counter()))
    assert (capped.capped, capped.text) == (True, "t0 t1 t2 ")
    assert (exact.capped, exact.ended, exact.server_finish) == (False, True, "stop")
    assert (cut.capped, cut.ended) == (False, False)


def test_endpoint_pool_prefers_the_least_busy_replica() -> None:
    pool = EndpointPool(("a", "b", "c"))
    with pool.acquire() as first, pool.acquire() as second:
        assert (first, second) == ("a", "b")
        with pool.acquire() as third:
            assert third == "c"
        with pool.acquire() as fourth:
            assert fourth == "c"  # a and b still busy
    assert pool.in_flight() == {"a": 0, "b": 0, "c": 0}
