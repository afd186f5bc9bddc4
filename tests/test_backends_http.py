"""Shared HTTP plumbing of the server backends: SSE framing, the capped reader, replica choice."""

from __future__ import annotations

import asyncio
import gzip
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


def test_sse_reader_splits_lines_only_on_cr_lf_even_across_chunks() -> None:
    """Lines end at \\r\\n, \\n or \\r, wherever the chunks break (a \\r\\n split over two chunks is one line end,
    a character's UTF-8 bytes split over two chunks are one character); U+2028 inside a JSON string is text."""
    body = 'data: {"t": "a\u2028b ι"}\r\n\r\ndata: 1\rdata: 2\r\rdata: [DONE]\n\n'.encode()
    expected = ['{"t": "a\u2028b ι"}', "1\n2", "[DONE]"]

    async def read(chunks: list[bytes]) -> list[str]:
        async def stream() -> AsyncIterator[bytes]:
            for chunk in chunks:
                yield chunk

        response = httpx.Response(200, content=stream())
        return [d async for d in iter_sse_data(response)]

    for size in (1, 2, 3, 5, len(body)):
        chunks = [body[i : i + size] for i in range(0, len(body), size)]
        assert asyncio.run(read(chunks)) == expected, size
    assert asyncio.run(read([b"data: last"])) == ["last"]  # a body ending without a blank line still gives its event


def test_sse_reader_decodes_a_compressed_stream() -> None:
    """An unencoded stream is read as its raw chunks (issue 33's client CPU); a gzip-encoded one must still be
    decoded before it is split into lines."""
    body = b'data: {"t": "a"}\n\ndata: [DONE]\n\n'

    async def read(headers: dict[str, str], content: bytes) -> list[str]:
        async def stream() -> AsyncIterator[bytes]:  # a body still to be read, as a streamed response's
            yield content

        response = httpx.Response(200, headers=headers, content=stream())
        return [d async for d in iter_sse_data(response)]

    assert asyncio.run(read({}, body)) == ['{"t": "a"}', "[DONE]"]
    assert asyncio.run(read({"Content-Encoding": "gzip"}, gzip.compress(body))) == ['{"t": "a"}', "[DONE]"]


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
