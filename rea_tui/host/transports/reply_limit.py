"""How much of a reply rea-tui reads: one size limit, counted after decompression, on every HTTP path.

A reply body (a JSON-RPC reply, an error page, an OAuth metadata document)
may be at most `max_reply_bytes()` once decoded, and one server-sent event
the same. `BoundedBody` decodes gzip and deflate in pieces of
`DECODE_CHUNK_BYTES` (zlib's `max_length`), counts what comes out and raises
`ReplyTooLarge` the moment the count passes the limit, so a compressed bomb
never inflates whole and a huge plain reply is never buffered whole.

It knows no HTTP library: `http_transport.BoundedTransport` feeds it for
httpx2 (the SDK's streamable HTTP, the legacy SSE transport, the OAuth
requests) and `lean_wire.Reply` for http.client (the fast path), so both
paths stop at the same byte with the same error.

The limit is one per process: the CLI's `--max-reply-size` or the TUI's
`max_reply_size` setting sets it before any connection opens.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator

from rea_tui.host.protocol.errors import MALFORMED_RESULT, ProtocolError

KIB = 1024
MIB = 1024 * KIB
GIB = 1024 * MIB
# Generous for any real reply (a listing of thousands of tools is a few MiB), small next to memory.
DEFAULT_MAX_REPLY_BYTES = 64 * MIB
# How much one zlib call may inflate before its output is counted.
DECODE_CHUNK_BYTES = 256 * KIB
# Stacked content codings taken at most (httpx2's MultiDecoder takes five too).
MAX_ENCODING_LAYERS = 5
# A zlib stream's header, checked before any output: what tells it from a raw deflate stream.
ZLIB_HEADER_BYTES = 2
# The codings decoded here; httpx2 without brotli/zstandard offers only these, and passes others through.
_GZIP = ("gzip", "x-gzip")
_DEFLATE = "deflate"
# Two line ends in a row end a server-sent event (CR, LF and CRLF end lines).
_EVENT_END = re.compile(rb"\n\n|\r\r|\n\r")
_SIZE = re.compile(r"\s*(\d+)\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?\s*", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": KIB, "kb": KIB, "kib": KIB, "m": MIB, "mb": MIB, "mib": MIB}
_UNITS |= {"g": GIB, "gb": GIB, "gib": GIB}
HOW_TO_RAISE = "raise it with --max-reply-size SIZE, or max_reply_size (bytes) in the TUI's settings.json"

_max_reply_bytes = DEFAULT_MAX_REPLY_BYTES


def max_reply_bytes() -> int:
    """The limit every HTTP reply and every server-sent event is held to, in bytes."""
    return _max_reply_bytes


def set_max_reply_bytes(limit: int) -> None:
    """Set the process's reply size limit (before connections open: a client reads it when it is made)."""
    global _max_reply_bytes
    if limit <= 0:
        raise ValueError("the reply size limit must be at least one byte")
    _max_reply_bytes = limit


def parse_size(text: str) -> int:
    """`64MiB`, `512k`, `1G`, `1048576` as bytes (K, M, G are powers of 1024); ValueError otherwise."""
    match = _SIZE.fullmatch(text)
    if match is None:
        raise ValueError(f"not a size: {text!r} (e.g. 64MiB, 512KiB, 1GiB, or bytes)")
    size = int(match.group(1)) * _UNITS[(match.group(2) or "").lower()]
    if size <= 0:
        raise ValueError("the size must be at least one byte")
    return size


def format_size(size: int) -> str:
    for unit, name in ((GIB, "GiB"), (MIB, "MiB"), (KIB, "KiB")):
        if size >= unit and size % unit == 0:
            return f"{size // unit} {name}"
    return f"{size:,} bytes"


def is_event_stream(content_type: str) -> bool:
    """The exact check httpx2's SSE reader makes before reading a stream."""
    return content_type.partition(";")[0].strip().lower() == "text/event-stream"


class ReplyTooLarge(ProtocolError):
    """A reply (or one server-sent event) passed the reply size limit; reading it stopped there."""

    def __str__(self) -> str:
        return self.message


def reply_too_large(limit: int, *, event: bool) -> ReplyTooLarge:
    what = "one server-sent event" if event else "the reply"
    text = f"{what} exceeded the reply size limit of {format_size(limit)} (after decompression); {HOW_TO_RAISE}"
    return ReplyTooLarge(code=MALFORMED_RESULT, message=text)


class BodyUndecodable(Exception):
    """A compressed body that does not decompress."""


class _Inflater:
    """One gzip or deflate layer, inflated at most `DECODE_CHUNK_BYTES` per zlib call.

    As httpx2 does, `deflate` is tried as a zlib stream first and as a raw one if its first bytes are not.
    """

    def __init__(self, encoding: str) -> None:
        self._raw_fallback = encoding == _DEFLATE
        # While a raw stream may still be what this is: the bytes so far, to read again as one.
        self._head = b""
        self._zlib = zlib.decompressobj(zlib.MAX_WBITS if self._raw_fallback else zlib.MAX_WBITS | 16)

    def feed(self, data: bytes) -> Iterator[bytes]:
        piece = self._decompress(data)
        while piece:
            yield piece
            piece = self._decompress(self._zlib.unconsumed_tail)

    def _decompress(self, data: bytes) -> bytes:
        if self._raw_fallback:
            self._head += data
        try:
            piece = self._zlib.decompress(data, DECODE_CHUNK_BYTES)
        except zlib.error as exc:
            if not self._raw_fallback:
                raise BodyUndecodable(str(exc)) from None
            self._raw_fallback = False
            self._zlib = zlib.decompressobj(-zlib.MAX_WBITS)
            head, self._head = self._head, b""
            return self._decompress(head)
        if self._raw_fallback and len(self._head) >= ZLIB_HEADER_BYTES:
            self._raw_fallback, self._head = False, b""  # the header checked out: a zlib stream
        return piece

    def finish(self) -> bytes:
        try:
            return self._zlib.flush()
        except zlib.error as exc:
            raise BodyUndecodable(str(exc)) from None


class BoundedBody:
    """The decoded bytes of one HTTP body, counted: `ReplyTooLarge` once they pass the limit.

    `content_encoding` and `content_type`: the response's headers (codings in the order applied). In a
    `text/event-stream` the limit holds for each event rather than the whole stream (a stream lives
    as long as the session).
    """

    def __init__(self, content_encoding: str | None, content_type: str, *, limit: int | None = None) -> None:
        codings = [c.strip().lower() for c in (content_encoding or "").split(",") if c.strip()]
        known = [c for c in codings if c in (*_GZIP, _DEFLATE)]
        if len(known) > MAX_ENCODING_LAYERS:
            raise BodyUndecodable(f"more than {MAX_ENCODING_LAYERS} content encodings")
        self._layers = [_Inflater(c) for c in reversed(known)]
        self.limit = max_reply_bytes() if limit is None else limit
        self.event_stream = is_event_stream(content_type)
        self.decoded = 0
        self._event = 0
        self._last = b""

    @property
    def decodes(self) -> bool:
        """Whether the body is compressed (a client must not decode it again)."""
        return bool(self._layers)

    def feed(self, raw: bytes) -> Iterator[bytes]:
        """The decoded pieces of the next raw bytes."""
        for piece in self._through(raw, 0):
            yield self._counted(piece)

    def finish(self) -> Iterator[bytes]:
        """What the decoders still hold at the end of the body."""
        for depth, layer in enumerate(self._layers):
            rest = layer.finish()
            if rest:
                for piece in self._through(rest, depth + 1):
                    yield self._counted(piece)

    def _through(self, data: bytes, depth: int) -> Iterator[bytes]:
        if depth == len(self._layers):
            if data:
                yield data
            return
        for piece in self._layers[depth].feed(data):
            yield from self._through(piece, depth + 1)

    def _counted(self, piece: bytes) -> bytes:
        self.decoded += len(piece)
        if not self.event_stream:
            if self.decoded > self.limit:
                raise reply_too_large(self.limit, event=False)
            return piece
        # The bytes between blank lines: each event (a bit more than its fields). The last byte of the
        # piece before is looked at again, for a blank line that the two pieces share.
        joined = self._last + piece
        carried, start = self._event, len(self._last)
        for end in _EVENT_END.finditer(joined):
            if carried + max(end.start() - start, 0) > self.limit:
                raise reply_too_large(self.limit, event=True)
            carried, start = 0, end.end()
        self._event = carried + max(len(joined) - start, 0)
        self._last = piece[-1:]
        if self._event > self.limit:
            raise reply_too_large(self.limit, event=True)
        return piece
