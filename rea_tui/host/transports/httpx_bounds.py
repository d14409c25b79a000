"""The reply size limit for httpx2: a response hook that every httpx2 client of rea-tui carries.

httpx2 decodes gzip and deflate in bounded pieces but then keeps all of them
(`aread`), with no limit on a reply's size. `ReplyBound.on_response` runs
before any body is read (httpx2 calls response hooks with the headers only):
it takes the compressed body's decoding over (`BoundedBody`, so httpx2 sees an
identity body) and swaps the response's stream for one that counts. Past the
limit the stream raises `ReplyOverLimit`, which the SDK handles like a broken
body (an SSE failure or an unreadable JSON reply resolves the request), and
the `ReplyTooLarge` it carries is kept in the connection's `HttpStatusLog`,
where the request's error is looked up (`error_for`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable

import httpx2

from rea_tui.host.transports.reply_limit import BodyUndecodable, BoundedBody, ReplyTooLarge

# Headers that describe the body as sent, not as decoded here.
_ENCODED_BODY_HEADERS = ("content-encoding", "content-length")

ResponseHook = Callable[[httpx2.Response], Awaitable[None]]


class ReplyOverLimit(httpx2.SSEError, httpx2.StreamError):
    """Reading stopped at the reply size limit.

    Both an `SSEError` (the SDK ends the request's stream with it) and a `StreamError` (the SDK's JSON
    reply reader reports it as an unreadable reply) so every reader of the SDK stops, not retries.
    """

    def __init__(self, error: ReplyTooLarge) -> None:
        super().__init__(str(error))
        self.error = error


class _BoundedStream(httpx2.AsyncByteStream):
    def __init__(
        self, inner: httpx2.AsyncByteStream, body: BoundedBody, on_exceeded: Callable[[ReplyTooLarge], None]
    ) -> None:
        self._inner = inner
        self._body = body
        self._on_exceeded = on_exceeded

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for raw in self._inner:
                for piece in self._body.feed(raw):
                    yield piece
            for piece in self._body.finish():
                yield piece
        except ReplyTooLarge as exc:
            self._on_exceeded(exc)
            raise ReplyOverLimit(exc) from None
        except BodyUndecodable as exc:
            raise httpx2.DecodingError(str(exc)) from None

    async def aclose(self) -> None:
        await self._inner.aclose()


class ReplyBound:
    """httpx2 response hook: every body read through this client is held to the reply size limit."""

    def __init__(self, on_exceeded: Callable[[ReplyTooLarge], None]) -> None:
        self._on_exceeded = on_exceeded

    async def on_response(self, response: httpx2.Response) -> None:
        stream = response.stream
        if not isinstance(stream, httpx2.AsyncByteStream):  # pragma: no cover - rea-tui's clients are async
            raise TypeError("the reply size limit is for async httpx2 clients")
        try:
            body = BoundedBody(response.headers.get("content-encoding"), response.headers.get("content-type", ""))
        except BodyUndecodable as exc:
            raise httpx2.DecodingError(str(exc), request=response.request) from None
        if body.decodes:
            for name in _ENCODED_BODY_HEADERS:
                response.headers.pop(name, None)
        response.stream = _BoundedStream(stream, body, self._on_exceeded)


def bounded_client(
    *,
    on_exceeded: Callable[[ReplyTooLarge], None],
    headers: dict[str, str],
    auth: httpx2.Auth | None,
    timeout: httpx2.Timeout,
    response_hooks: list[ResponseHook],
) -> httpx2.AsyncClient:
    """An httpx2 client whose every reply is held to the reply size limit (the one way rea-tui makes one).

    `response_hooks` run before the bound's (they see the headers; no body is read by then).
    """
    hooks = [*response_hooks, ReplyBound(on_exceeded).on_response]
    return httpx2.AsyncClient(headers=headers, auth=auth, timeout=timeout, event_hooks={"response": hooks})
