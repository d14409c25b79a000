"""`rea-tui call`: the headless twin of running a tool from the TUI.

Shows the declared annotations and the exact JSON arguments, sends nothing
without `--yes` or an interactive yes, prints the evidence entry, and handles
narrowing questions (`--pick`, exit 6 otherwise) and elicitation requests
(`--elicit name=value`, `--elicit-accept`, `--elicit-decline`, `--elicit-cancel`:
see `rea_tui.cli.elicitation`). A long call shows its progress on stderr (a
status line on a terminal); a tool that runs as a task is waited for (at most
`--task-timeout`, else `--timeout`, seconds; then it is cancelled), or with
`--no-wait` only started (its task id is printed). `--json` prints the
result as the server sent it, with rea-tui's additions under `rea`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import TYPE_CHECKING, Any

from rea_tui.cli.command import Command, Context, UsageError, parse_pairs
from rea_tui.cli.commands.tools import describe_annotations
from rea_tui.cli.connect import server_command
from rea_tui.cli.elicitation import configure as configure_elicitation
from rea_tui.cli.elicitation import elicitation_answers
from rea_tui.cli.exit_codes import ExitCode
from rea_tui.cli.output import Output
from rea_tui.cli.views import result_lines

if TYPE_CHECKING:
    from rea_tui.host import EvidenceEntry, HostedServer, SamplingAnswer, SamplingRequest, Tool

ARGUMENTS_LIMIT: int | None = None  # what is about to be sent is shown whole
TEXT_LIMIT = 100_000
OTHER_BLOCK_LIMIT = 1_000
PROGRESS_LIMIT = 200
# Without a terminal, progress is written as lines, at most one per this many seconds.
PROGRESS_LINE_SECONDS = 1.0
ERROR_LIMIT = 10_000
QUESTION_LIMIT = 1_000
CANDIDATE_LIMIT = 300

# How each finished call's outcome maps to the command's exit code.
OUTCOME_EXIT_CODES: dict[str, ExitCode] = {
    "ok": ExitCode.OK,
    "tool_error": ExitCode.NOT_RUN,
    "timed_out": ExitCode.TIMEOUT,
    "server_exited": ExitCode.UNAVAILABLE,
    "unavailable": ExitCode.UNAVAILABLE,
    "authorization_needed": ExitCode.AUTH_NEEDED,
    "task_submitted": ExitCode.OK,
    "cancelled": ExitCode.NOT_RUN,  # a task cancelled elsewhere (tasks/cancel)
}


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tool")
    parser.add_argument("pairs", nargs="*", metavar="name=value")
    parser.add_argument("--args", metavar="JSON", help="arguments as a JSON object (pairs override)")
    parser.add_argument("--yes", action="store_true", help="approve without asking")
    parser.add_argument(
        "--pick",
        action="append",
        default=[],
        metavar="NAME_OR_ID",
        help="answer a narrowing question (repeatable)",
    )
    configure_elicitation(parser)
    parser.add_argument(
        "--no-wait", action="store_true", help="a tool that runs as a task: start it, print its id, do not wait"
    )
    parser.add_argument(
        "--task-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="a tool that runs as a task: how long to wait for it to end before cancelling it (default: --timeout)",
    )


def build_arguments(args: argparse.Namespace, tool: Tool | None) -> dict[str, Any]:
    from rea_tui.host import UnreadableValue, coerce, property_schema

    arguments: dict[str, Any] = {}
    if args.args:
        try:
            loaded = json.loads(args.args)
        except ValueError as exc:
            raise UsageError(f"--args is not valid JSON: {exc}") from None
        if not isinstance(loaded, dict):
            raise UsageError("--args must be a JSON object")
        arguments.update(loaded)
    for name, text in parse_pairs(args.pairs).items():
        schema = property_schema(tool.input_schema, name) if tool else {}
        try:
            arguments[name] = coerce(text, schema)
        except UnreadableValue as exc:
            raise UsageError(f"{name}: {exc}") from None
    return arguments


def print_call(
    out: Output, server: str, tool_name: str, tool: Tool | None, arguments: dict[str, Any], *, to_stderr: bool
) -> None:
    """What is about to be sent; on stderr when stdout is machine output."""
    from rea_tui.host import sanitize

    annotations = describe_annotations(tool.annotations) if tool else "unknown tool (not in tools/list)"
    write = out.note if to_stderr else out.line
    write(f"server:    {sanitize(server)}")
    write(f"tool:      {sanitize(tool_name)}")
    write(f"declared:  {sanitize(annotations)}  (declared by the server, not verified)")
    write("arguments:")
    write(sanitize(json.dumps(arguments, indent=2, ensure_ascii=False), ARGUMENTS_LIMIT))


def ask_yes(out: Output, question: str) -> bool:
    """An interactive yes, asked on stderr so stdout stays clean."""
    if not sys.stdin.isatty():
        return False
    out.note(f"{question} [y/N] ", end="")
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def print_entry(out: Output, entry: EvidenceEntry) -> None:
    from rea_tui.host import block_summary, sanitize

    duration = f"  ({entry.duration_label})" if entry.duration_label else ""
    out.line(f"{entry.label}  {sanitize(entry.tool)}  {entry.outcome_label}{duration}")
    if entry.task_id is not None:
        out.line(f"task: {sanitize(entry.task_id)} ({sanitize(entry.task_status or '?')})")
    # The result once: a listing or a table where the shape is known, text that says more, else the JSON.
    for line in result_lines(entry, TEXT_LIMIT):
        out.line(line)
    for block in entry.content:
        if block.kind == "text":
            continue
        out.line(sanitize(block_summary(block), OTHER_BLOCK_LIMIT))
        text = getattr(block, "text", None) or getattr(block, "description", None)
        if text:
            out.line(sanitize(text, TEXT_LIMIT if block.kind == "resource" else OTHER_BLOCK_LIMIT))
    if entry.schema_check:
        out.line(f"schema: {sanitize(entry.schema_check)}")
    if entry.error:
        out.line(sanitize(entry.error, ERROR_LIMIT))


class ProgressShown:
    """A call's progress on stderr: one redrawn status line on a terminal, else a line now and then."""

    def __init__(self, out: Output) -> None:
        self.out = out
        self.terminal = out.stderr_is_terminal()
        self._last = ""
        self._written = 0.0

    def __call__(self, entry: EvidenceEntry) -> None:
        from rea_tui.host import sanitize_line

        progress = entry.progress
        if progress is None or entry.finished:
            return
        parts = [sanitize_line(entry.tool, PROGRESS_LIMIT)]
        fraction = progress.fraction
        if fraction is not None:
            parts.append(f"{fraction:.0%}")
        elif progress.total is None and progress.progress:
            parts.append(f"{progress.progress:g}")
        if progress.message:
            parts.append(sanitize_line(progress.message, PROGRESS_LIMIT))
        line = "  ".join(parts)
        if self.terminal:
            self.out.status(line)
            return
        now = time.monotonic()
        if line != self._last and now - self._written >= PROGRESS_LINE_SECONDS:
            self.out.note(line)
            self._last, self._written = line, now

    def done(self) -> None:
        if self.terminal:
            self.out.clear_status()


def print_question(out: Output, entry: EvidenceEntry, *, answered: bool = False) -> None:
    from rea_tui.host import sanitize

    question = entry.narrowing
    assert question is not None
    asked = sanitize(question.ask_user, QUESTION_LIMIT)
    out.line(f"question ({sanitize(question.reason)}, round {entry.narrowing_round}): {asked}")
    if question.scoped_by:
        out.line(f"scoped by: {sanitize(json.dumps(question.scoped_by, ensure_ascii=False))}")
    for candidate in question.candidates:
        out.line(f"  - {sanitize(candidate.label, CANDIDATE_LIMIT)}")
    out.line("(answered with --pick)" if answered else "answer with --pick NAME_OR_ID")


def sampling_decliner(out: Output) -> Any:
    async def decline(request: SamplingRequest) -> SamplingAnswer:
        from rea_tui.host import SamplingAnswer, sanitize

        out.note(f"sampling request from {sanitize(request.server)} declined (no model is called)")
        return SamplingAnswer(None)

    return decline


async def body(context: Context, hosted: HostedServer) -> int:
    from rea_tui.host import (
        EvidenceLedger,
        check_against_schema,
        concerned_argument,
        exclusion_warning,
        find_candidate,
        pin,
        run_tool_call,
        sanitize,
    )

    args, out = context.args, context.out
    answers = elicitation_answers(args, out)
    picks = list(args.pick)
    connection = hosted.connection
    connection.elicitation_handler = answers.answer
    connection.sampling_handler = sampling_decliner(out)
    # Only the tools are listed (not prompts or resources), and afresh: the approval shows what the server
    # declares now; a kept listing could show a tool as read-only that has since become destructive. A warm
    # session keeps a listing only while the server announces its changes and announced none (as the TUI).
    if context.live is None or not hosted.catalogs.tools.kept_current():
        await hosted.catalogs.tools.refresh()
    excluded = hosted.catalogs.tools.excluded_named(args.tool)
    if excluded is not None:
        out.error(f"not sent: {exclusion_warning(excluded)}")
        return ExitCode.USAGE
    tool = hosted.catalogs.tools.get(args.tool)
    arguments = build_arguments(args, tool)
    if tool is not None:
        verdict = await check_against_schema(tool.input_schema, arguments)
        if verdict.refusal is not None:
            out.error(f"not sent: the tool's inputSchema cannot be used: {sanitize(verdict.refusal)}")
            return ExitCode.USAGE
        if verdict.problems:
            for problem in verdict.problems:
                out.error(f"{sanitize(problem.field)}: {sanitize(problem.message)}")
            return ExitCode.USAGE
        for unchecked in verdict.unchecked:
            out.note(f"not checked against the schema: {sanitize(unchecked)}")
    # In a warm session the session's ledger: evidence IDs go on from one command to the next.
    live = context.live
    ledger = live.ledger if live is not None else EvidenceLedger()
    first = len(ledger.entries)
    follows: str | None = None
    while True:
        print_call(out, connection.name, args.tool, tool, arguments, to_stderr=args.json)
        if live is not None:
            approved = await live.approve_call(connection.name, tool, args.tool, arguments, yes=args.yes)
        else:
            approved = "--yes" if args.yes else "interactive yes" if ask_yes(out, "Run this call?") else None
        if approved is None:
            out.error("not sent (approve with --yes or answer y)")
            return ExitCode.NOT_RUN
        approval = approved
        progress = ProgressShown(out)
        try:
            entry = await run_tool_call(
                connection,
                ledger,
                args.tool,
                arguments,
                tool=tool,
                approval=approval,
                follows=follows,
                on_update=progress,
                wait=not args.no_wait,
                task_timeout=args.task_timeout if args.task_timeout is not None else args.timeout,
            )
        finally:
            progress.done()
        question = entry.narrowing
        if question is None or not picks:
            break
        pick = picks.pop(0)
        candidate = find_candidate(question, pick)
        argument = concerned_argument(question, tool, arguments)
        if candidate is None or argument is None:
            print_question(out, entry)
            out.error(f"--pick {sanitize(repr(pick))} names no candidate")
            return ExitCode.USAGE
        arguments = pin(arguments, question, candidate, tool, argument)
        follows = entry.id
    code = OUTCOME_EXIT_CODES.get(entry.outcome, ExitCode.PROTOCOL)
    if entry.narrowing is not None:
        code = ExitCode.NARROWING
    # An --elicit answer that was refused (declined instead) is a usage error, whatever the call's outcome.
    if answers.refused:
        code = ExitCode.USAGE
    if args.json:
        from rea_tui.cli.shapes import call_json

        result = call_json(entry, code, ledger.entries[first:-1])
        if answers.refused:
            result["rea"]["elicitationRefused"] = list(answers.refused)
        out.json(result)
    else:
        for shown in ledger.entries[first:]:
            print_entry(out, shown)
            if shown.narrowing is not None:
                print_question(out, shown, answered=shown is not entry)
    if entry.outcome == "task_submitted" and entry.task_id is not None:
        task = sanitize(entry.task_id)
        if connection.spec.transport == "stdio" and live is None:
            out.note(f"task {task} started; a stdio server stops with this command, and its tasks with it")
        else:
            out.note(
                f"task {task} started; if the server keeps tasks between connections, "
                f"`rea-tui tasks get {task}` (same server options) follows it"
            )
    if answers.refused:
        out.error("an elicitation answer given on the command line was refused (see above); it was declined")
    return code


COMMAND = Command(
    "call",
    "call a tool after approval (nothing is sent without --yes or a yes)",
    configure,
    server_command(body, catalogs=False),
)
