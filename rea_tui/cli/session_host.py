"""A warm session's background host: one host `Session` behind a private Unix socket.

`rea-tui session start` runs `python -m rea_tui.cli.session_host` in a new
process session with the resolved servers on stdin (pickled by the parent
rea-tui, its own pipe), and waits for one JSON line on the ready pipe: the
socket's path, or why the host could not start. The host connects the
servers, serves command lines (`rea_tui.cli.session_wire`) one at a time
through `LiveSession`, runs the TUI on the terminal of `session attach`
(`rea_tui.ui.attached`), and ends on `stop`, SIGTERM/SIGINT/SIGHUP, when none
of its servers is left, or after `idle` seconds with no command. Its
transcript is written a line at a time, flushed (`TranscriptWriter`), so a
kill loses no line already written.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import json
import os
import pickle
import signal
import sys
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final, cast

from rea_tui.cli import session_wire as wire
from rea_tui.cli.exit_codes import ExitCode
from rea_tui.cli.output import Output
from rea_tui.cli.session_exec import LiveSession
from rea_tui.cli.session_place import bind_private, peer_allowed, sessions_folder

if TYPE_CHECKING:
    from rea_tui.host import HostEvent, ServerSpec, Session
    from rea_tui.ui.app import ReaApp

# How often the host looks whether it is idle or has lost its last server.
WATCH_SECONDS: Final = 0.5
# A relayed write is cut into messages of at most this many characters (JSON-escaped, well under LINE_LIMIT).
CHUNK_CHARACTERS: Final = 256 * 1024
# Server states that still count as the session having that server.
LIVE_STATES: Final = frozenset({"ready", "connecting"})
# How long an attached TUI may take to leave (and restore its terminal) when the session ends under it.
DETACH_SECONDS: Final = 10.0


class RelayedStream(io.TextIOBase):
    """A text stream whose writes go to the client as `out` or `err` messages."""

    def __init__(self, writer: asyncio.StreamWriter, kind: str) -> None:
        self.writer = writer
        self.kind = kind

    def write(self, text: str) -> int:
        if self.writer.is_closing():
            return len(text)  # the client went away: the command finishes, its output goes nowhere
        for start in range(0, len(text), CHUNK_CHARACTERS):
            self.writer.write(wire.encode(self.kind, text=text[start : start + CHUNK_CHARACTERS]))
        return len(text)

    def isatty(self) -> bool:
        return False


class RelayedQuestions:
    """Questions asked on the client's terminal; no terminal there, no question."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, terminal: bool) -> None:
        self.reader = reader
        self.writer = writer
        self._terminal = terminal

    @property
    def terminal(self) -> bool:
        return self._terminal

    async def ask(self, question: str) -> str:
        self.writer.write(wire.encode("ask", question=question))
        await self.writer.drain()
        line = await self.reader.readline()
        if not line:
            return ""  # the client went away: no answer is a no
        try:
            return str(wire.decode(line, {"answer": wire.REQUESTS["answer"]})["text"])
        except wire.WireError:
            return ""


class SessionHost:
    """Serves one `Session` to the CLI commands of its user."""

    def __init__(self, session: Session, socket_path: Path, *, idle: float, owner_uid: int | None = None) -> None:
        from rea_tui.cli.main import COMMAND_LINES

        self.live = LiveSession(session, COMMAND_LINES)
        self.session = session
        self.socket_path = socket_path
        self.idle = idle
        self.owner_uid = os.getuid() if owner_uid is None else owner_uid
        self.started = time.time()
        self.last_used = time.monotonic()
        self.busy = 0
        self.stopping = asyncio.Event()
        self.refused = 0
        self._server: asyncio.Server | None = None
        # The TUI attached to this session (`rea-tui session attach`), while it runs; at most one.
        self.attached: ReaApp | None = None
        self._detached = asyncio.Event()

    async def listen(self) -> None:
        sock = bind_private(self.socket_path)
        self._server = await asyncio.start_unix_server(self.handle, sock=sock, limit=wire.LINE_LIMIT)
        self.last_used = time.monotonic()  # idle from when commands can come, not from the servers' start

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        if self.attached is not None:
            # The session ends under an attached TUI: it leaves first, so its terminal is given back whole.
            self.attached.exit()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._detached.wait(), DETACH_SECONDS)
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()

    async def watch(self) -> str:
        """Wait until the session should end; why it ended."""
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopping.wait(), WATCH_SECONDS)
            if self.stopping.is_set():
                return "stopped"
            if not any(self.session.state(name).status in LIVE_STATES for name in self.session.names):
                return "no server left"
            if not self.busy and time.monotonic() - self.last_used >= self.idle:
                return f"idle for {self.idle:g} s"

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            sock = writer.get_extra_info("socket")
            if sock is None or not peer_allowed(sock, self.owner_uid):
                self.refused += 1
                return  # another user: not a word
            line = await reader.readline()
            request = wire.decode(line, wire.REQUESTS)
            self.busy += 1
            try:
                await self.answer(request, reader, writer)
            finally:
                self.busy -= 1
                self.last_used = time.monotonic()
            await writer.drain()
        except (wire.WireError, ValueError, ConnectionError):
            pass  # a malformed or broken exchange ends it; the session goes on
        finally:
            writer.close()

    async def answer(self, request: dict[str, Any], reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        kind = request["type"]
        # A text stream as far as Output uses one (write, flush, isatty); typeshed's IO wants every method.
        out = Output(cast("IO[str]", RelayedStream(writer, "out")), cast("IO[str]", RelayedStream(writer, "err")))
        if kind == "status":
            if request["json"]:
                out.json(self.status())
            else:
                self.print_status(out)
            writer.write(wire.encode("exit", code=int(ExitCode.OK)))
        elif kind == "stop":
            out.note(f"rea-tui: session {os.getpid()} stopped")
            writer.write(wire.encode("exit", code=int(ExitCode.OK)))
            self.stopping.set()
        elif kind == "attach":
            writer.write(wire.encode("exit", code=await self.attach(request, reader, out) & 0xFF))
        elif kind == "run":
            code = await self.run(request, reader, writer, out)
            writer.write(wire.encode("local") if code is None else wire.encode("exit", code=int(code) & 0xFF))
        else:
            raise wire.WireError(f"{kind} is not a request")

    async def run(
        self, request: dict[str, Any], reader: asyncio.StreamReader, writer: asyncio.StreamWriter, out: Output
    ) -> int | None:
        questions = RelayedQuestions(reader, writer, bool(request["stdin_tty"]))
        return await self.live.execute(list(request["argv"]), out, questions, cwd=request["cwd"])

    async def attach(self, request: dict[str, Any], reader: asyncio.StreamReader, out: Output) -> int:
        """The TUI on this session, on the attaching command's terminal, until it quits or that command ends."""
        from rea_tui.ui.attached import NotATerminal, attached_app, on_terminal, open_terminal
        from rea_tui.ui.settings import SettingsError

        if self.attached is not None:
            out.error("rea-tui: this session is open in a TUI already; quit that one first")
            return ExitCode.UNAVAILABLE
        try:
            terminal = open_terminal(request["tty"])
        except NotATerminal as exc:
            out.error(f"rea-tui: cannot attach: {exc}")
            return ExitCode.UNAVAILABLE
        try:
            app = attached_app(self.session, term=request["term"], colorterm=request["colorterm"])
        except SettingsError as error:
            os.close(terminal)
            out.error(f"rea-tui: {error}")
            return ExitCode.USAGE
        self.attached = app
        self._detached.clear()
        follow = asyncio.create_task(self.follow_terminal(reader, app))
        try:
            with on_terminal(terminal):
                await app.run_async()
        finally:
            follow.cancel()
            os.close(terminal)
            self.attached = None
            self._detached.set()
        return app.return_code or 0

    async def follow_terminal(self, reader: asyncio.StreamReader, app: ReaApp) -> None:
        """Relay the attaching terminal's size changes; when that command is gone, the TUI leaves."""
        while True:
            line = await reader.readline()
            if not line:
                app.exit()
                return
            with contextlib.suppress(wire.WireError):
                wire.decode(line, {"resize": wire.REQUESTS["resize"]})
                # Textual's driver reads the new size from the terminal when it gets SIGWINCH.
                os.kill(os.getpid(), signal.SIGWINCH)

    def status(self) -> dict[str, Any]:
        return {
            "pid": os.getpid(),
            "socket": str(self.socket_path),
            "started": self.started,
            "idleTimeout": self.idle,
            "idleFor": round(time.monotonic() - self.last_used, 1),
            "transcript": str(self.session.recorder.path) if self.session.recorder.path else None,
            "evidence": self.session.ledger.refs(),
            "commands": self.live.commands_run,
            "servers": self.live.server_rows(),
        }

    def print_status(self, out: Output) -> None:
        from rea_tui.host import sanitize

        status = self.status()
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(status["started"]))
        out.line(f"session {status['pid']}  socket {sanitize(status['socket'])}")
        out.line(f"started {started}, {status['commands']} commands, idle {status['idleFor']:g} s of {self.idle:g} s")
        out.line(f"transcript: {sanitize(status['transcript'] or '(none)')}")
        evidence = status["evidence"]
        out.line(f"evidence: {', '.join(sanitize(e) for e in evidence) if evidence else 'none yet'}")
        for row in status["servers"]:
            where = f"{row['transport']}: {sanitize(row['target'])}"
            out.line(f"server {sanitize(row['name'])}  ({where})  {row['status']}")


async def serve(specs: list[ServerSpec], *, timeout: float, idle: float, ready: int) -> int:
    from rea_tui.host import Session, new_transcript_path

    folder = sessions_folder()
    socket_path = folder / f"{os.getpid()}.sock"
    # Left by a killed host that had this pid: no live process can be serving it.
    socket_path.unlink(missing_ok=True)
    session = Session(specs, timeout=timeout, transcript=new_transcript_path())
    host = SessionHost(session, socket_path, idle=idle)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(signum, host.stopping.set)
    session.events.subscribe(lambda event: refresh_soon(session, event))
    why = "ended by an error of the host"
    try:
        results = await asyncio.gather(*(session.connect(name) for name in session.names), return_exceptions=True)
        failures = {
            name: (r.describe() if hasattr(r, "describe") else f"{type(r).__name__}: {r}")
            for name, r in zip(session.names, results, strict=True)
            if isinstance(r, BaseException)
        }
        if len(failures) == len(session.names):
            why = "no server could be connected"
            report_ready(ready, {"error": "no server could be connected", "servers": failures})
            return ExitCode.UNAVAILABLE
        await host.listen()
        report_ready(ready, {"socket": str(socket_path), "pid": os.getpid(), "failed": failures})
        why = await host.watch()
        return ExitCode.OK
    finally:
        await host.close()
        await session.close(why)


def refresh_soon(session: Session, event: HostEvent) -> None:
    """A server's list changed: its catalogs are read again (and allowances it no longer matches withdrawn)."""
    from rea_tui.host import ListChanged

    if isinstance(event, ListChanged):
        asyncio.get_running_loop().create_task(session.refresh(event.server, event))


def report_ready(fd: int, message: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        os.write(fd, json.dumps(message).encode() + b"\n")
        os.close(fd)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rea_tui.cli.session_host")
    parser.add_argument("--ready-fd", type=int, required=True)
    parser.add_argument("--timeout", type=float, required=True)
    parser.add_argument("--idle", type=float, required=True)
    args = parser.parse_args(argv)
    # The servers, as the parent rea-tui resolved them (with the values it asked for): its own pipe.
    specs = pickle.loads(sys.stdin.buffer.read())
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    return asyncio.run(serve(specs, timeout=args.timeout, idle=args.idle, ready=args.ready_fd))


if __name__ == "__main__":
    raise SystemExit(main())
