"""The client side of a warm session: send a command line to the host, relay what it says.

With `REA_TUI_SESSION` set, `rea-tui ARGS` comes here before anything else
is imported (`rea_tui.__main__`): the command line goes to the session's host,
its output comes back to this terminal, and its questions are answered here.
The socket must be this user's, in a private folder of this user's, and the
process listening on it must run as this user (SO_PEERCRED), or nothing is
sent. Text from the host passes the egress guard like any output.
"""

from __future__ import annotations

import os
import socket
import sys

from rea_tui.cli import session_wire as wire
from rea_tui.cli.session_place import SESSION_ENV, UnsafePlace, check_socket, peer_uid

# Not `typing.TYPE_CHECKING`: this module is what a relayed command imports, and typing costs it more than the rest.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Final

# Exit codes, as `rea_tui.cli.exit_codes` has them (not imported: this path stays small).
OK: Final = 0
USAGE: Final = 2
UNAVAILABLE: Final = 3
INTERRUPTED: Final = 130


class SessionUnreachable(OSError):
    """The session named by REA_TUI_SESSION cannot be used (gone, not this user's, or broken)."""


def session_path() -> str | None:
    return os.environ.get(SESSION_ENV) or None


def connect(path: str) -> socket.socket:
    try:
        check_socket(path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(path)
    except UnsafePlace as exc:
        raise SessionUnreachable(f"the session socket is not safe to use: {exc}") from None
    except OSError as exc:
        raise SessionUnreachable(f"no session answers at {path} ({exc.strerror or exc})") from None
    if peer_uid(sock) != os.getuid():
        sock.close()
        raise SessionUnreachable(f"the process at {path} runs as another user; nothing was sent")
    return sock


def relay(argv: list[str]) -> int | None:
    """Run `argv` in the warm session; its exit code, or None when it is not a session command (run it here)."""
    path = session_path()
    assert path is not None
    request = wire.encode("run", argv=argv, cwd=os.getcwd(), stdin_tty=sys.stdin.isatty())
    return exchange(path, request)


def exchange(
    path: str,
    request: bytes,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    *,
    relay_resizes: bool = False,
) -> int | None:
    """Send one request and relay the host's messages until its `exit` (or `local`: None).

    `relay_resizes`: tell the host each time this terminal's size changes (an attached TUI).
    """
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    try:
        sock = connect(path)
    except SessionUnreachable as exc:
        stderr.write(f'rea-tui: {exc}; unset {SESSION_ENV} or start one: eval "$(rea-tui session start)"\n')
        return UNAVAILABLE
    if relay_resizes:
        import signal

        previous = signal.signal(signal.SIGWINCH, lambda _signum, _frame: sock.sendall(wire.encode("resize")))
    try:
        with sock, sock.makefile("rb") as incoming:
            sock.sendall(request)
            while True:
                line = incoming.readline(wire.LINE_LIMIT + 1)
                if not line:
                    stderr.write("rea-tui: the session ended before the command did\n")
                    return UNAVAILABLE
                message = wire.decode(line, wire.REPLIES)
                kind = message["type"]
                if kind == "exit":
                    return int(message["code"])
                if kind == "local":
                    return None
                if kind == "ask":
                    stderr.write(shown(message["question"]) + " ")
                    stderr.flush()
                    sock.sendall(wire.encode("answer", text=sys.stdin.readline()[: wire.ANSWER_LIMIT]))
                    continue
                stream = stdout if kind == "out" else stderr
                try:
                    stream.write(shown(message["text"]))
                    stream.flush()
                except BrokenPipeError:
                    # The reader went away (`rea-tui tools | head`): stop quietly, as one-shot output does.
                    os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
                    return OK
    except wire.WireError as exc:
        stderr.write(f"rea-tui: the session sent something this rea-tui does not understand ({exc})\n")
        return UNAVAILABLE
    except OSError as exc:
        stderr.write(f"rea-tui: the connection to the session broke ({exc})\n")
        return UNAVAILABLE
    except KeyboardInterrupt:
        return INTERRUPTED
    finally:
        if relay_resizes:
            signal.signal(signal.SIGWINCH, previous)


def attach(path: str) -> int:
    """Open the session's TUI on this terminal (`rea-tui session attach`); the TUI's exit code.

    The host runs the TUI on this terminal (named by its device path); this process only waits, relays
    the terminal's size changes, and prints what the host says before the TUI starts (why it could not).
    """
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        sys.stderr.write("rea-tui: session attach needs a terminal (stdin and stdout)\n")
        return USAGE
    request = wire.encode(
        "attach",
        tty=os.ttyname(sys.stdin.fileno()),
        term=os.environ.get("TERM", "")[: wire.ANSWER_LIMIT],
        colorterm=os.environ.get("COLORTERM", "")[: wire.ANSWER_LIMIT],
    )
    code = exchange(path, request, relay_resizes=True)
    return UNAVAILABLE if code is None else code


def shown(text: str) -> str:
    """Text for this terminal: the host guarded it already; anything unusual passes the guard again here."""
    # Printable ASCII, tabs and newlines need no closer look.
    if text.isascii() and text.replace("\n", "").replace("\t", "").isprintable():
        return text
    from rea_tui.host import guard

    return guard(text, "session output")
