"""A legacy HTTP+SSE MCP server that numbers its events and drops its stream, written without the SDK.

`python -m tests.support.resumable_sse_server` listens on 127.0.0.1 and prints
`resumable-sse listening on http://127.0.0.1:PORT/sse`. Every event on the stream has an `id:` and a
`retry: 200`. After each reply it sends, it ends the stream (a proxy timing out, say); a client that
opens the stream again with `Last-Event-ID` gets the same session back (the same `endpoint`) and every
event after that id. `GET /seen` answers the `Last-Event-ID` headers it was sent, as JSON.
"""

from __future__ import annotations

import json
import queue
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

events: list[tuple[int, str]] = []  # (id, data) of every message event sent
pending: queue.Queue[int] = queue.Queue()
seen: list[str] = []
lock = threading.Lock()


def reply(message: dict[str, Any]) -> dict[str, Any] | None:
    method, request_id = message.get("method"), message.get("id")
    if request_id is None:
        return None
    if method == "initialize":
        result: dict[str, Any] = {
            "protocolVersion": message["params"]["protocolVersion"],
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "resumable-sse", "version": "1"},
        }
    elif method == "tools/list":
        result = {"tools": [{"name": "noop", "inputSchema": {"type": "object"}}]}
    else:
        return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": "Method not found"}}
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        if self.path == "/seen":
            body = json.dumps(seen).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        last = self.headers.get("Last-Event-ID")
        if last is not None:
            seen.append(last)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(b"retry: 200\nevent: endpoint\ndata: /messages?session_id=one\n\n")
        with lock:
            backlog = [e for e in events if last is not None and e[0] > int(last)]
        for event_id, data in backlog:
            self.wfile.write(f"id: {event_id}\nevent: message\ndata: {data}\n\n".encode())
        self.wfile.flush()
        replayed = {event_id for event_id, _ in backlog}
        while True:
            try:
                event_id = pending.get(timeout=30)
            except queue.Empty:
                return
            if event_id in replayed:
                continue
            with lock:
                data = dict(events)[event_id]
            self.wfile.write(f"id: {event_id}\nevent: message\ndata: {data}\n\n".encode())
            self.wfile.flush()
            if '"tools": [' in data:
                return  # drop the stream after a tools/list reply: the client must come back for the next ones

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        self.send_response(202)
        self.send_header("Content-Length", "0")
        self.end_headers()
        answer = reply(message)
        if answer is not None:
            with lock:
                events.append((len(events) + 1, json.dumps(answer)))
                pending.put(len(events))

    def log_message(self, format: str, *args: object) -> None:
        pass


def main() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"resumable-sse listening on http://127.0.0.1:{server.server_address[1]}/sse", file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
