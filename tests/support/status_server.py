"""An HTTP server that answers every request with one status and no JSON-RPC body.

`python -m tests.support.status_server STATUS` listens on 127.0.0.1 (an ephemeral port) and prints
`status-server listening on http://127.0.0.1:PORT/mcp`; it stands for a gateway in front of a broken or
missing MCP server (a 502/503), or a URL with nothing behind it. A second argument is sent as the
`WWW-Authenticate` header (a 401 that names metadata URLs), and every path asked is printed to stderr
(`status-server asked GET /path`).
"""

from __future__ import annotations

import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def main() -> None:
    status = int(sys.argv[1])
    challenge = sys.argv[2] if len(sys.argv) > 2 else None

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            self.rfile.read(length)
            print(f"status-server asked {self.command} {self.path}", file=sys.stderr, flush=True)
            body = b"upstream is down\n"
            self.send_response(status)
            if challenge is not None:
                self.send_header("WWW-Authenticate", challenge)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_DELETE = _answer

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    print(f"status-server listening on http://127.0.0.1:{server.server_address[1]}/mcp", file=sys.stderr, flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
