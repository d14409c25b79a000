"""A stdio relay in front of a real server that holds back the SDK session's opening request.

`python -m tests.support.slow_opening SECONDS [--garbage] -- COMMAND...` starts
COMMAND and relays every line both ways, except that the SDK's `server/discover`
(its ids are integers; the host's early requests have string ids) reaches the
server SECONDS late, while every other line goes through. So a test sees, every time, what a
host does while its session is still coming up. `--garbage` writes one line
that is not JSON before anything else (it must reach the session, in order).
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
from typing import IO

from rea_tui.host.config.config import ServerSpec

# How long the SDK's opening is held back: time enough, even on a loaded machine, for the server to
# answer the host's early lists and for a test to look at what the host does with them meanwhile.
HOLD_SECONDS = 4.0


def slow_reference_spec(name: str, *, garbage: bool = False, hold: float = HOLD_SECONDS) -> ServerSpec:
    """The bundled server (synthetic target, open before it answers) behind this relay."""
    relay = ("-m", "tests.support.slow_opening", str(hold)) + (("--garbage",) if garbage else ())
    server = (sys.executable, "-m", "rea_tui.server", "--synthetic", "2000", "--seed", "0", "--open-first")
    return ServerSpec(name=name, transport="stdio", command=sys.executable, args=(*relay, "--", *server))


def _pump(source: IO[bytes], sink: IO[bytes], hold: float) -> None:
    lock = threading.Lock()

    def write(line: bytes) -> None:
        with lock, contextlib.suppress(OSError, ValueError):
            sink.write(line)
            sink.flush()

    for line in iter(source.readline, b""):
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if (
            isinstance(message, dict)
            and message.get("method") == "server/discover"
            and isinstance(message.get("id"), int)
        ):
            # Held on its own: what the host sends meanwhile goes through.
            threading.Timer(hold, write, (line,)).start()
        else:
            write(line)


def main(argv: list[str]) -> int:
    separator = argv.index("--")
    hold = float(argv[0])
    garbage = "--garbage" in argv[1:separator]
    child = subprocess.Popen(argv[separator + 1 :], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    out = sys.stdout.buffer
    if garbage:
        out.write(b"this line is not JSON\n")
        out.flush()
    threading.Thread(target=_pump, args=(sys.stdin.buffer, child.stdin, hold), daemon=True).start()
    for line in iter(child.stdout.readline, b""):
        out.write(line)
        out.flush()
    return child.wait()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
