"""A streamable HTTP MCP server whose replies are too big to hold, for the reply size limit's tests and benchmark.

`python -m tests.support.reply_bomb_server MODE [--size BYTES] [--on METHOD]` prints
`reply-bomb listening on http://127.0.0.1:PORT/mcp`. It answers `initialize` (legacy,
2025-11-25, with a session id), takes notifications (202), refuses the GET stream (405), and
answers METHOD (`tools/list` unless given) with SIZE bytes (after decompression) of:

- `gzip`: one JSON-RPC reply, gzip-encoded: SIZE spaces, then the message (JSON allows the
  whitespace), so a 1 GiB reply is about a megabyte on the wire;
- `deflate`: the same, deflate-encoded (a zlib stream, as HTTP's `deflate` is);
- `plain`: one JSON-RPC reply, not encoded, its `result` padded with a SIZE-byte string,
  generated as it is sent (nothing of that size is ever held);
- `sse-event`: an event stream whose one `message` event carries a SIZE-byte data line;
- `small`: the plain reply with no padding (a control: the same server, a reply that fits);
- `oauth-gzip`: every POST is refused with 401, naming resource metadata on the same origin, and
  that metadata (`GET /.well-known/...`) is a gzip bomb of SIZE bytes;
- `legacy-sse`: the legacy HTTP+SSE transport (`GET /sse`, then `POST /messages`): replies come
  as events on the stream, METHOD's as one event with a SIZE-byte data line.

Other methods get a small, ordinary reply (`tools/list` lists one tool, `echo`, when it is
not the bombed method), so `call echo` reaches a bombed `tools/call`.
"""

from __future__ import annotations

import argparse
import json
import queue
import sys
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MIB = 1024 * 1024
DEFAULT_SIZE = 400 * 1000 * 1000
SESSION = "reply-bomb-1"
LEGACY_VERSION = "2025-11-25"
# Bytes generated and written at a time.
WRITE_BLOCK = MIB
ECHO_TOOL = {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}}


def _compressed_padding(size: int, wbits: int) -> tuple[bytes, Any]:
    """What `size` spaces compress to, and the compressor after them (copied for each reply's message)."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, wbits)
    block = b" " * WRITE_BLOCK
    parts = []
    for start in range(0, size, WRITE_BLOCK):
        parts.append(compressor.compress(block[: min(WRITE_BLOCK, size - start)]))
    return b"".join(parts), compressor


class BombServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, mode: str, size: int, method: str) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.mode = mode
        self.size = size
        self.method = method
        # The legacy transport's stream: replies to send, or the id of the one to send as the giant event.
        self.outbox: queue.Queue[bytes | int | str] = queue.Queue()
        self.compressed: tuple[bytes, Any] | None = None
        if mode in ("gzip", "deflate", "oauth-gzip"):
            self.compressed = _compressed_padding(size, zlib.MAX_WBITS if mode == "deflate" else zlib.MAX_WBITS | 16)


class Handler(BaseHTTPRequestHandler):
    server: BombServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        if self.server.mode == "oauth-gzip" and self.path.startswith("/.well-known/"):
            padding, compressor = self.server.compressed or (b"", None)
            tail = compressor.copy()
            body = padding + tail.compress(b'{"resource": "x"}') + tail.flush()
            self._send(200, body, "application/json", {"content-encoding": "gzip"})
            return
        if self.server.mode != "legacy-sse":
            self._send(405, b"", "text/plain")
            return
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("connection", "close")
        self.end_headers()
        self.close_connection = True
        try:
            self.wfile.write(b"event: endpoint\ndata: /messages\n\n")
            self.wfile.flush()
            while True:
                item = self.server.outbox.get()
                if isinstance(item, bytes):
                    self.wfile.write(b"event: message\ndata: " + item + b"\n\n")
                    self.wfile.flush()
                else:
                    self._padded(item, b"event: message\ndata: ", b"\n\n", "text/event-stream", headers=False)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def do_DELETE(self) -> None:
        self._send(200, b"", "text/plain")

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        message = json.loads(self.rfile.read(length) or b"null")
        if not isinstance(message, dict) or "id" not in message:
            self._send(202, b"", "text/plain")
            return
        method, request_id = message.get("method"), message["id"]
        if self.server.mode == "oauth-gzip":
            port = self.server.server_address[1]
            metadata = f"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp"
            self._send(401, b"", "text/plain", {"www-authenticate": f'Bearer resource_metadata="{metadata}"'})
            return
        if self.server.mode == "legacy-sse":
            self._send(202, b"", "text/plain")
            if method == self.server.method:
                self.server.outbox.put(request_id)
            else:
                reply = {"jsonrpc": "2.0", "id": request_id, "result": self._ordinary(method)}
                self.server.outbox.put(json.dumps(reply).encode())
            return
        try:
            if method == self.server.method:
                self._bomb(request_id)
            else:
                self._reply(request_id, self._ordinary(method))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client stopped reading: what the limit is for

    def _ordinary(self, method: Any) -> dict[str, Any]:
        if method == "initialize":
            return {
                "protocolVersion": LEGACY_VERSION,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "reply-bomb", "version": "1.0"},
            }
        if method == "tools/list":
            return {"tools": [ECHO_TOOL]}
        if method == "tools/call":
            return {"content": [{"type": "text", "text": "hi"}]}
        return {}

    def _reply(self, request_id: Any, result: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).encode()
        self._send(200, body, "application/json")

    def _send(self, status: int, body: bytes, content_type: str, extra: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(body)))
        self.send_header("mcp-session-id", SESSION)
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _bomb(self, request_id: Any) -> None:
        mode = self.server.mode
        reply = {"jsonrpc": "2.0", "id": request_id, "result": self._ordinary(self.server.method)}
        if self.server.compressed is not None:
            padding, compressor = self.server.compressed
            tail = compressor.copy()
            body = padding + tail.compress(json.dumps(reply).encode()) + tail.flush()
            self._send(200, body, "application/json", {"content-encoding": mode})
            return
        if mode == "small":
            self._reply(request_id, reply["result"])
            return
        if mode == "sse-event":
            self._padded(request_id, b"event: message\ndata: ", b"\n\n", "text/event-stream")
        else:
            self._padded(request_id, b"", b"", "application/json")

    def _padded(self, request_id: Any, before: bytes, after: bytes, content_type: str, *, headers: bool = True) -> None:
        """The reply to METHOD with a SIZE-byte string in its result, written as it is made."""
        size = self.server.size
        result = {**self._ordinary(self.server.method), "padding": "<pad>"}
        text = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result})
        head, tail = (part.encode() for part in text.split("<pad>"))
        head, tail = before + head, tail + after
        if headers:
            self.send_response(200)
            self.send_header("content-type", content_type)
            self.send_header("content-length", str(len(head) + size + len(tail)))
            self.send_header("mcp-session-id", SESSION)
            self.end_headers()
        self.wfile.write(head)
        block = b"A" * WRITE_BLOCK
        for start in range(0, size, WRITE_BLOCK):
            self.wfile.write(block[: min(WRITE_BLOCK, size - start)])
        self.wfile.write(tail)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=("gzip", "deflate", "plain", "sse-event", "small", "legacy-sse", "oauth-gzip"))
    parser.add_argument("--size", type=int, default=DEFAULT_SIZE)
    parser.add_argument("--on", default="tools/list", dest="method")
    args = parser.parse_args()
    server = BombServer(args.mode, args.size, args.method)
    path = "/sse" if args.mode == "legacy-sse" else "/mcp"
    print(f"reply-bomb listening on http://127.0.0.1:{server.server_address[1]}{path}", file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
