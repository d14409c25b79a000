"""Running CLI command lines in a live host `Session` (a warm session's host, `rea-tui run`).

A command line is parsed by the same parser as a one-shot command and run by
the same command body, on the session's connected server instead of a fresh
one: targets the server opened, its session ids, the evidence ledger (IDs go
on), the allowances given in the session and the transcript are the
session's. Approval is asked as one-shot asks it (`--yes`, or an answer per
call from the client's terminal, never from a client with no terminal); a
read-only tool may be allowed for the session by that answer, and only then
runs unasked. Commands that need no server (sessions, export, replay...) are
not run here: `execute` answers None and the caller runs them one-shot.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol

from rea_tui.cli.command import CommandLines, Context, UsageError, UsageExit
from rea_tui.cli.exit_codes import ExitCode
from rea_tui.cli.output import Output

if TYPE_CHECKING:
    import argparse

    from rea_tui.host import EvidenceLedger, HostedServer, Session, Tool, Workflow

# The commands a warm session runs on its servers; every other one runs one-shot where it was typed.
LIVE_COMMANDS = frozenset({"prompts", "get", "complete", "tools", "call", "tasks", "resources", "read", "servers"})
# The approval label of a call the analyst allowed for the session (as the TUI labels it).
SESSION_APPROVAL = "allowed for the session"
# Exit code of a command that failed inside the host for a reason of its own (a bug, reported, not fatal).
INTERNAL_FAILURE = ExitCode.NOT_RUN
ERROR_MESSAGE_LIMIT = 8_000


class Questions(Protocol):
    """How the analyst is asked: on the terminal of the client that ran the command, if it has one."""

    @property
    def terminal(self) -> bool: ...

    async def ask(self, question: str) -> str: ...


class TerminalQuestions:
    """Asked on this process's own terminal (`rea-tui run` without a warm session)."""

    def __init__(self, out: Output) -> None:
        self.out = out

    @property
    def terminal(self) -> bool:
        return sys.stdin.isatty()

    async def ask(self, question: str) -> str:
        self.out.note(f"{question} ", end="")
        return await asyncio.to_thread(sys.stdin.readline)


class NoTerminal:
    """Nobody to ask: a call not approved otherwise is not sent."""

    terminal = False

    async def ask(self, question: str) -> str:
        return ""


class LiveSession:
    """A host `Session` that runs CLI command lines, one at a time."""

    def __init__(self, session: Session, lines: CommandLines) -> None:
        self.session = session
        self.lines = lines
        self.lock = asyncio.Lock()
        self.commands_run = 0
        # Who answers the questions of the command running now.
        self.questions: Questions = NoTerminal()

    @property
    def ledger(self) -> EvidenceLedger:
        return self.session.ledger

    async def execute(
        self, argv: list[str], out: Output, questions: Questions, *, cwd: str | None = None
    ) -> int | None:
        """The command's exit code; None when it is not a session command (the caller runs it one-shot).

        `cwd`: the folder the command line was typed in (relative paths in it mean what they mean there).
        """
        from rea_tui.cli.shapes import finish_json, wants_json

        mark = out.mark()
        parsed = parse_quietly(self.lines, argv, out)
        if isinstance(parsed, int):
            return parsed
        args, stdio_tail = parsed
        if args.command not in LIVE_COMMANDS:
            return None
        code = await self._execute(args, stdio_tail, argv, out, questions, cwd)
        if wants_json(argv):
            finish_json(out, mark, code)
        return code

    async def _execute(
        self,
        args: argparse.Namespace,
        stdio_tail: list[str],
        argv: list[str],
        out: Output,
        questions: Questions,
        cwd: str | None,
    ) -> int:
        async with self.lock:
            self.commands_run += 1
            try:
                if cwd is not None:
                    os.chdir(cwd)
            except OSError as exc:
                out.error(f"cannot use the working folder {cwd!r}: {exc.strerror}")
                return ExitCode.USAGE
            try:
                return await self._run(args, stdio_tail, argv, out, questions)
            except UsageError as exc:
                out.error(str(exc))
                return ExitCode.USAGE

    async def _run(
        self, args: argparse.Namespace, stdio_tail: list[str], argv: list[str], out: Output, questions: Questions
    ) -> int:
        from rea_tui.cli.connect import report_host_error
        from rea_tui.host import HostError, ServerSelection

        elsewhere = [name for name in ("url", "stdio", "config") if getattr(args, name, None)]
        if elsewhere or stdio_tail or args.header:
            named = ", ".join(f"--{n}" for n in elsewhere) or ("--header" if args.header else "--")
            raise UsageError(
                f"{named} names a server of its own; a warm session runs commands on its servers "
                f"({', '.join(self.session.names)}): pick one with --server NAME, or unset REA_TUI_SESSION"
            )
        if args.command == "servers":
            return self.list_servers(args, out)
        name = self.server_name(args.server)
        context = Context(args, [self.session.spec(name)], ServerSelection(server=name), argv, out, live=self)
        body = self.lines.server_body(args.command)
        assert body is not None, f"{args.command} is not a server command"
        self.questions = questions
        try:
            hosted = await self.session.require(name)
            return await self._body(context, hosted, body)
        except HostError as exc:
            return report_host_error(context, exc)
        except UsageError:
            raise
        except Exception as exc:  # one command's bug must not end the session
            from rea_tui.host import sanitize

            out.error(sanitize(f"unexpected error: {type(exc).__name__}: {exc}", ERROR_MESSAGE_LIMIT))
            return INTERNAL_FAILURE

    async def _body(
        self,
        context: Context,
        hosted: HostedServer,
        body: Callable[[Context, HostedServer], Awaitable[int]],
    ) -> int:
        from rea_tui.cli.connect import ask_for_logs, log_printer

        connection = hosted.connection
        # A command's own handlers (its --elicit answers, its output) last as long as the command,
        # and so does its own --timeout (each request's limit; the session's otherwise).
        handlers = (connection.elicitation_handler, connection.sampling_handler)
        session_timeout = connection.timeout
        if timeout_given(context.argv):
            connection.timeout = context.args.timeout
        level: str | None = getattr(context.args, "log_level", None)
        unsubscribe = connection.subscribe(log_printer(context.out, level)) if level is not None else None
        try:
            if level is not None:
                await ask_for_logs(context, hosted, level)
            return await body(context, hosted)
        finally:
            connection.elicitation_handler, connection.sampling_handler = handlers
            connection.timeout = session_timeout
            if unsubscribe is not None:
                unsubscribe()
            if context.args.trace:
                context.out.note(connection.traffic.format_table())

    def server_name(self, wanted: str | None) -> str:
        names = self.session.names
        if wanted is not None:
            if wanted not in names:
                raise UsageError(f"this session has no server {wanted!r} (it has {', '.join(names)})")
            return wanted
        if len(names) > 1:
            raise UsageError(f"this session has several servers ({', '.join(names)}); pick one with --server NAME")
        return names[0]

    async def approve_call(
        self, server: str, tool: Tool | None, name: str, arguments: dict[str, Any], *, yes: bool
    ) -> str | None:
        """The call's approval label, or None when it is not approved; the decision is recorded."""
        session = self.session
        if yes:
            session.approve(server, tool, name, arguments, "once")
            return "--yes"
        if session.allowances.allows(server, tool):
            session.approve(server, tool, name, arguments, "session")
            return SESSION_APPROVAL
        decision = "deny"
        if self.questions.terminal:
            offered = tool is not None and tool.read_only
            choices = "[y/N/a: yes, and allow this read-only tool for the session]" if offered else "[y/N]"
            answer = (await self.questions.ask(f"Run this call? {choices}")).strip().lower()
            if answer in ("y", "yes"):
                decision = "once"
            elif offered and answer in ("a", "allow"):
                decision = "session"
        session.approve(server, tool, name, arguments, decision)
        if decision == "session":
            return SESSION_APPROVAL
        return "interactive yes" if decision == "once" else None

    def workflow_rendered(self, server: str, workflow: Workflow) -> None:
        """A prompt rendered by `get`: recorded in the transcript as the TUI records it."""
        self.session.recorder.workflow(server, workflow)

    def list_servers(self, args: argparse.Namespace, out: Output) -> int:
        from rea_tui.host import sanitize

        rows = self.server_rows()
        if args.json:
            out.json({"servers": [self.server_json(row) for row in rows]})
        else:
            for row in rows:
                out.line(f"{sanitize(row['name'])}  ({row['transport']}: {sanitize(row['target'])})  {row['status']}")
                if row.get("protocolVersion"):
                    info = row.get("serverInfo") or {}
                    version = f"{sanitize(info.get('name', '?'))} {sanitize(info.get('version', '?'))}"
                    out.line(f"  {version}, protocol {sanitize(row['protocolVersion'])}")
                if row.get("error"):
                    out.line("  " + sanitize(row["error"]).replace("\n", "\n  "))
        ready = [row for row in rows if row["status"] == "ready"]
        return ExitCode.OK if ready else ExitCode.UNAVAILABLE

    def server_json(self, row: dict[str, Any]) -> dict[str, Any]:
        """A server as `servers --json` prints it one-shot: its initialize result as sent, rea-tui's facts
        under `rea`."""
        from rea_tui.cli.commands.servers import initialize_result

        facts = {key: row[key] for key in ("name", "transport", "target", "status")}
        hosted = self.session.hosted(row["name"])
        if hosted is not None and hosted.ready:
            return {**initialize_result(hosted.connection), "rea": facts}
        if "error" in row:
            return {"error": {"message": row["error"]}, "rea": facts}
        return {"rea": facts}

    def server_rows(self) -> list[dict[str, Any]]:
        rows = []
        for name in self.session.names:
            state = self.session.state(name)
            row: dict[str, Any] = {
                "name": name,
                "transport": state.spec.transport,
                "target": state.spec.display_target(),
                "status": state.status,
            }
            if state.hosted is not None and state.hosted.ready:
                connection = state.hosted.connection
                row.update(protocolVersion=connection.protocol_version, serverInfo=connection.server_info)
            if state.error is not None and state.status != "ready":
                row["error"] = state.error.describe()
            rows.append(row)
        return rows


def timeout_given(argv: list[str]) -> bool:
    """The command line sets --timeout itself (the parser's default is the session's, not the command's)."""
    return any(word == "--timeout" or word.startswith("--timeout=") for word in argv)


def parse_quietly(lines: CommandLines, argv: list[str], out: Output) -> tuple[argparse.Namespace, list[str]] | int:
    """The parsed command line; on `--help` or a bad line, what argparse wrote goes to `out`, and its exit code."""
    from rea_tui.cli.shapes import wants_json

    said, complained = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(said), contextlib.redirect_stderr(complained):
            args, _argv, stdio_tail = lines.parse(list(argv))
    except SystemExit as exc:
        if said.getvalue():
            out.line(said.getvalue().rstrip("\n"))
        if complained.getvalue():
            out.note(complained.getvalue().rstrip("\n"))
        if isinstance(exc, UsageExit) and wants_json(argv):
            from rea_tui.cli.shapes import failure_json

            out.json(failure_json(exc.message, ExitCode.USAGE))
        return exc.code if isinstance(exc.code, int) else ExitCode.USAGE
    return args, stdio_tail
