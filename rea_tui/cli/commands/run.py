"""`rea-tui run FILE`: a list of commands, one a line, run in one session.

Each line is a `rea-tui` command line (shell quoting, `#` comments, a leading
`rea-tui` is allowed), run in order; the first that fails stops the rest
(`--keep-going`: run them all; the exit code is the first failure's). In a
warm session (REA_TUI_SESSION set) the lines go to it; otherwise the server
options name the servers of a session that lasts as long as the run, with
its own transcript, which `rea-tui replay` walks like a TUI session's.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shlex
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path

from rea_tui.cli.command import Command, Context, UsageError
from rea_tui.cli.exit_codes import ExitCode

# Lines that cannot run inside a run: another run, or a session's own management.
NOT_IN_A_RUN = ("run", "session")
SCRIPT_LIMIT = 1024 * 1024

Line = tuple[int, list[str]]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", help="the commands, one a line ('-': read them from stdin)")
    parser.add_argument("--keep-going", action="store_true", help="run every line, even after one failed")


def read_lines(name: str) -> list[Line]:
    """The command lines of the script, split as a shell splits them; a line that cannot be split stops it all."""
    try:
        text = sys.stdin.read(SCRIPT_LIMIT + 1) if name == "-" else Path(name).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {name}: {exc}") from None
    if len(text) > SCRIPT_LIMIT:
        raise UsageError(f"{name} is over {SCRIPT_LIMIT // 1024} KiB")
    lines: list[Line] = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            argv = shlex.split(line, comments=True)
        except ValueError as exc:
            raise UsageError(f"{name}, line {number}: {exc}") from None
        if argv and argv[0] == "rea-tui":
            argv = argv[1:]
        if not argv:
            continue
        if argv[0] in NOT_IN_A_RUN:
            raise UsageError(f"{name}, line {number}: `{argv[0]}` cannot run inside a run")
        lines.append((number, argv))
    return lines


def run(context: Context) -> int:
    from rea_tui.cli.session_client import session_path

    lines = read_lines(context.args.file)
    path = session_path()
    if path is None:
        return asyncio.run(run_here(context, lines))
    selection = context.selection
    if selection.url or selection.stdio or selection.config or selection.server:
        raise UsageError("the lines run in the warm session (REA_TUI_SESSION); name a server on each line")

    async def relayed(argv: list[str]) -> int:
        return relay_line(context, path, argv)

    return asyncio.run(run_all(context, lines, relayed))


def relay_line(context: Context, path: str, argv: list[str]) -> int:
    """One line in the warm session; a line it does not run (no server needed) runs here, one-shot."""
    from rea_tui.cli import session_wire as wire
    from rea_tui.cli.session_client import exchange

    out, lines = context.out, context.lines
    assert lines is not None, "run is started by rea_tui.cli.main"
    # A script read from stdin leaves no terminal to answer on.
    terminal = sys.stdin.isatty() and context.args.file != "-"
    request = wire.encode("run", argv=argv, cwd=os.getcwd(), stdin_tty=terminal)
    code = exchange(path, request, out.stdout, out.stderr)
    return lines.one_shot(argv, out) if code is None else code


async def run_all(context: Context, lines: list[Line], execute: Callable[[list[str]], Awaitable[int]]) -> int:
    """Each line in turn; the first failure's exit code (after it, nothing more unless --keep-going)."""
    out = context.out
    failed: int = ExitCode.OK
    for number, argv in lines:
        out.note(f"$ {shlex.join(argv)}")
        code = await execute(argv)
        if code != ExitCode.OK:
            stop = "" if context.args.keep_going else "; stopped"
            out.error(f"line {number} failed (exit code {code}){stop}")
            failed = failed or code
            if not context.args.keep_going:
                break
    return int(failed)


async def run_here(context: Context, lines: list[Line]) -> int:
    """The lines in a session of this process, on the servers of the command line."""
    from rea_tui.cli.session_exec import LiveSession, NoTerminal, TerminalQuestions
    from rea_tui.host import Session, new_transcript_path, sanitize

    out, command_lines = context.out, context.lines
    assert command_lines is not None, "run is started by rea_tui.cli.main"
    session = Session(context.specs, timeout=context.args.timeout, transcript=new_transcript_path())
    try:
        results = await asyncio.gather(*(session.connect(n) for n in session.names), return_exceptions=True)
        if all(isinstance(r, BaseException) for r in results):
            for name, result in zip(session.names, results, strict=True):
                out.error(f"{sanitize(name)}: {sanitize(str(result))}")
            return ExitCode.UNAVAILABLE
        live = LiveSession(session, command_lines)
        questions = NoTerminal() if context.args.file == "-" else TerminalQuestions(out)

        async def here(argv: list[str]) -> int:
            code = await live.execute(argv, out, questions)
            return await asyncio.to_thread(command_lines.one_shot, argv, out) if code is None else code

        return await run_all(context, lines, here)
    finally:
        await session.close()
        if session.recorder.path is not None and session.recorder.path.exists():
            out.note(f"transcript: {sanitize(str(session.recorder.path))}")


COMMAND = Command(
    "run",
    "run a file of commands (one a line, '-' for stdin) in one session; stop at the first failure",
    configure,
    run,
)
