"""`BoundedBody`: what both HTTP paths read a body through, decoded in pieces and held to the reply size limit.

Fuzzed: any payload under any stack of gzip/deflate codings, fed in any split, comes out whole when it
fits and stops with `ReplyTooLarge` (having inflated at most one piece past the limit) when it does not;
in an event stream the limit holds per event. And one place per library: no other httpx2 client is
made, and the fast path reads no body except through `Reply`.
"""

from __future__ import annotations

import re
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rea_tui.host.transports.reply_limit import (
    DECODE_CHUNK_BYTES,
    MIB,
    BodyUndecodable,
    BoundedBody,
    ReplyTooLarge,
    format_size,
    parse_size,
)

PACKAGE = Path(__file__).resolve().parents[2] / "rea_tui"
JSON = "application/json"
SSE = "text/event-stream"


def encode(payload: bytes, codings: list[str]) -> bytes:
    for coding in codings:
        if coding == "gzip":
            compressor = zlib.compressobj(6, zlib.DEFLATED, zlib.MAX_WBITS | 16)
        elif coding == "deflate":
            compressor = zlib.compressobj(6, zlib.DEFLATED, zlib.MAX_WBITS)
        else:  # a raw deflate stream, which HTTP's `deflate` also takes
            compressor = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS)
        payload = compressor.compress(payload) + compressor.flush()
    return payload


def header(codings: list[str]) -> str:
    return ", ".join("deflate" if c == "raw" else c for c in codings)


def read(body: BoundedBody, wire: bytes, cuts: list[int]) -> bytes:
    pieces: list[bytes] = []
    start = 0
    for cut in [*sorted(c % (len(wire) + 1) for c in cuts), len(wire)]:
        pieces += body.feed(wire[start:cut])
        start = max(start, cut)
    pieces += body.finish()
    return b"".join(pieces)


codings_strategy = st.lists(st.sampled_from(["gzip", "deflate", "raw"]), max_size=3).filter(
    lambda c: "raw" not in c[1:]  # a raw stream is told from a zlib one only at the start of the body
)


@settings(max_examples=150, deadline=None)
@given(
    payload=st.one_of(st.binary(max_size=20_000), st.integers(0, 300_000).map(lambda n: b"a" * n)),
    codings=codings_strategy,
    cuts=st.lists(st.integers(0, 10**6), max_size=6),
    slack=st.integers(-5_000, 5_000),
)
def test_a_body_comes_out_whole_under_the_limit_and_stops_past_it(
    payload: bytes, codings: list[str], cuts: list[int], slack: int
) -> None:
    limit = max(len(payload) + slack, 1)
    body = BoundedBody(header(codings), JSON, limit=limit)
    wire = encode(payload, codings)
    if len(payload) <= limit:
        assert read(body, wire, cuts) == payload
    else:
        with pytest.raises(ReplyTooLarge, match="the reply exceeded the reply size limit"):
            read(body, wire, cuts)
        assert body.decoded <= limit + DECODE_CHUNK_BYTES


def test_a_bomb_inflates_one_piece_past_the_limit_not_whole() -> None:
    bomb = encode(b"\0" * (256 * MIB), ["gzip"])
    assert len(bomb) < MIB
    body = BoundedBody("gzip", JSON, limit=MIB)
    with pytest.raises(ReplyTooLarge):
        list(body.feed(bomb))
    assert body.decoded <= MIB + DECODE_CHUNK_BYTES


@settings(max_examples=100, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 3_000), min_size=1, max_size=8),
    line_end=st.sampled_from([b"\n", b"\r", b"\r\n"]),
    cuts=st.lists(st.integers(0, 10**5), max_size=6),
)
def test_in_an_event_stream_the_limit_holds_per_event(sizes: list[int], line_end: bytes, cuts: list[int]) -> None:
    events = [b"event: message" + line_end + b"data: " + b"x" * size + line_end + line_end for size in sizes]
    stream = b"".join(events)
    largest = max(len(e) for e in events)
    # Every event fits, however long the stream: it is read whole.
    assert read(BoundedBody(None, SSE, limit=largest), stream, cuts) == stream
    # One event past the limit stops it.
    with pytest.raises(ReplyTooLarge, match="one server-sent event exceeded"):
        read(BoundedBody(None, SSE, limit=largest - len(line_end) * 2 - 1), stream, cuts)


def test_a_body_that_does_not_decompress_and_too_many_codings_are_refused() -> None:
    with pytest.raises(BodyUndecodable):
        list(BoundedBody("gzip", JSON).feed(b"not gzip at all"))
    with pytest.raises(BodyUndecodable):
        BoundedBody(", ".join(["gzip"] * 6), JSON)
    # An unknown coding is passed through as it is, as httpx2 does.
    assert read(BoundedBody("br", JSON, limit=10), b"abc", []) == b"abc"


@pytest.mark.parametrize(
    ("text", "size"),
    [("64MiB", 64 * MIB), ("512k", 512 * 1024), ("1G", 1024 * MIB), ("1048576", MIB), (" 2 mb ", 2 * MIB)],
)
def test_sizes_are_read_in_powers_of_1024(text: str, size: int) -> None:
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["", "lots", "0", "-1MiB", "1.5MiB", "1TB"])
def test_a_malformed_size_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_size(text)


def test_sizes_are_shown_in_the_unit_they_were_given_in() -> None:
    assert format_size(64 * MIB) == "64 MiB" and format_size(1536) == "1,536 bytes" and format_size(2048) == "2 KiB"


def sources() -> dict[str, str]:
    return {str(p.relative_to(PACKAGE)): p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py")}


def test_every_httpx2_client_is_made_in_one_place() -> None:
    made = {
        path for path, text in sources().items() if re.search(r"httpx2\.(Async)?Client\(|create_mcp_http_client", text)
    }
    assert made == {"host/transports/httpx_bounds.py"}


def test_the_fast_path_reads_bodies_only_through_reply() -> None:
    readers = {path for path, text in sources().items() if re.search(r"\.read1?\(|\.readinto\(", text)}
    lean = {path for path in readers if path.startswith("host/fastpath/lean_")}
    assert lean == {"host/fastpath/lean_wire.py"}, lean
