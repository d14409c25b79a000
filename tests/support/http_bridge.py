"""A stdio MCP server served over streamable HTTP, with ways to misbehave, for comparing the CLI's two HTTP paths.

`python -m tests.support.http_bridge MODE -- COMMAND ARGS` starts the stdio server and prints
`http-bridge listening on http://127.0.0.1:PORT/mcp`. Each POSTed request gets an SSE stream
carrying what the server writes until the reply to it (server requests included; the client's
answers are POSTed back and passed on). MODE changes how `tools/call` is answered:

- `plain`: as above;
- `json`: every reply as one `application/json` body (no stream);
- `garbage`: the call's reply is not JSON;
- `early`: the call's stream closes before its reply;
- `status500`: the call gets HTTP 500 with a text body;
- `hang`: the call is never answered;
- `resume`: the call's stream closes after a priming event with an id, before the reply; a GET
  with `Last-Event-ID` gets the reply (the SDK's resumption);
- `cut`: as `resume`, but the GET is refused (405), so the resumption gives up;
- `asks`: before the call's reply, the bridge asks the client requests with malformed
  parameters (and an unknown method) itself, and adds the answers it got to the result;
- `input_required`: the call's result is a malformed `input_required` one.
"""

from __future__ import annotations

import itertools
import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

SESSION = "bridge-session-1"
# Seconds a hung call is held open (longer than any test's timeout).
HANG_SECONDS = 60.0
# The ids of the bridge's own requests (`asks`), and what it asks.
BRIDGE_ID = "bridge-"
MALFORMED: tuple[tuple[str, Any], ...] = (
    ("roots/list", {"_meta": 5}),
    ("ping", {"_meta": "x"}),
    ("elicitation/create", {"message": 7}),
    ("sampling/createMessage", {"messages": "no"}),
    ("no/such-method", {}),
)


# Seconds a bridge is given to stop when its test is done.
STOP_TIMEOUT_SECONDS = 10


@contextmanager
def bridged(mode: str, command: Sequence[str]) -> Iterator[str]:
    """A bridge to the stdio server `command`, for one session: its MCP endpoint's URL."""
    from tests.conftest import start_http_server

    process, url = start_http_server(
        ["-m", "tests.support.http_bridge", mode, "--", *command], r"listening on (http://\S+)"
    )
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=STOP_TIMEOUT_SECONDS)


def main() -> None:
    mode = sys.argv[1]
    command = sys.argv[sys.argv.index("--") + 1 :]
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert child.stdin is not None and child.stdout is not None
    outgoing: queue.Queue[dict[str, Any]] = queue.Queue()
    lock = threading.Lock()

    def read_child() -> None:
        assert child.stdout is not None
        for line in child.stdout:
            try:
                outgoing.put(json.loads(line))
            except ValueError:
                continue

    threading.Thread(target=read_child, daemon=True).start()
    events = itertools.count(1)
    # The call's reply held back by `resume` and `cut`, for the GET that resumes the stream.
    held: queue.Queue[dict[str, Any]] = queue.Queue()
    # The client's answers to the bridge's own requests (`asks`).
    answers: queue.Queue[dict[str, Any]] = queue.Queue()

    def write_child(message: Any) -> None:
        assert child.stdin is not None
        with lock:
            child.stdin.write((json.dumps(message) + "\n").encode())
            child.stdin.flush()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _send(self, status: int, content_type: str, body: bytes, *, session: bool = True) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            if session:
                self.send_header("Mcp-Session-Id", SESSION)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_DELETE(self) -> None:
            self._send(200, "text/plain", b"")

        def do_GET(self) -> None:
            if mode != "resume" or not self.headers.get("Last-Event-ID"):
                self._send(405, "text/plain", b"")
                return
            reply = held.get()
            body = f"event: message\nid: {next(events)}\ndata: {json.dumps(reply)}\n\n".encode()
            self._send(200, "text/event-stream", body)

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            message = json.loads(self.rfile.read(length))
            if str(message.get("id")).startswith(BRIDGE_ID) and "method" not in message:
                answers.put(message)
                self._send(202, "text/plain", b"")
                return
            write_child(message)
            if "method" not in message or "id" not in message:
                self._send(202, "text/plain", b"")
                return
            calling = message["method"] == "tools/call"
            if calling and mode == "status500":
                self._send(500, "text/plain", b"upstream broke\n")
                return
            if calling and mode == "hang":
                threading.Event().wait(HANG_SECONDS)
                return
            if mode == "json":
                while True:
                    reply = outgoing.get()
                    if reply.get("id") == message["id"] and "method" not in reply:
                        self._send(200, "application/json", json.dumps(reply).encode())
                        return
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Mcp-Session-Id", SESSION)
            self.send_header("Connection", "close")
            self.end_headers()
            resumable = calling and mode in ("resume", "cut")
            if resumable:
                self.wfile.write(f"id: {next(events)}\ndata: \n\n".encode())
                self.wfile.flush()
            while True:
                reply = outgoing.get()
                done = reply.get("id") == message["id"] and "method" not in reply
                if calling and done and mode == "garbage":
                    self.wfile.write(b"event: message\ndata: {not json\n\n")
                    break
                if calling and done and mode == "early":
                    break
                if done and resumable:
                    held.put(reply)
                    break
                if calling and done and mode == "asks":
                    reply["result"]["content"].append({"type": "text", "text": json.dumps(self._ask())})
                if calling and done and mode == "input_required":
                    reply["result"] = {"resultType": "input_required", "inputRequests": {"q": {"method": 5}}}
                # No event ids when the stream closes early: a stream with ids would be resumed (GET, Last-Event-ID).
                event_id = "" if mode == "early" else f"id: {next(events)}\n"
                self.wfile.write(f"event: message\n{event_id}data: {json.dumps(reply)}\n\n".encode())
                self.wfile.flush()
                if done:
                    break
            self.close_connection = True

        def _ask(self) -> list[dict[str, Any]]:
            """Each of MALFORMED asked on this stream, and what the client answered, in order."""
            for index, (method, params) in enumerate(MALFORMED):
                request = {"jsonrpc": "2.0", "id": f"{BRIDGE_ID}{index}", "method": method, "params": params}
                self.wfile.write(f"event: message\ndata: {json.dumps(request)}\n\n".encode())
                self.wfile.flush()
            got = [answers.get(timeout=HANG_SECONDS) for _ in MALFORMED]
            return sorted(got, key=lambda answer: str(answer.get("id")))

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"http-bridge listening on http://127.0.0.1:{server.server_address[1]}/mcp", file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    finally:
        child.kill()


if __name__ == "__main__":
    main()
