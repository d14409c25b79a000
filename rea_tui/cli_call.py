"""`rea-tui call`: the headless twin of running a tool from the TUI.

Shows the declared annotations and the exact JSON arguments, sends nothing
without `--yes` or an interactive yes, prints the evidence entry, and handles
narrowing questions (`--pick`, exit 6 otherwise) and elicitation forms
(`--elicit name=value`).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from rea_tui.cli import (
    EXIT_NARROWING,
    EXIT_NOT_RUN,
    EXIT_OK,
    EXIT_USAGE,
    UsageError,
    describe_annotations,
    emit_json,
    parse_pairs,
    safe,
    say,
    with_server,
)
from rea_tui.host.config import ServerSpec

if TYPE_CHECKING:
    from rea_tui.host.evidence import EvidenceEntry
    from rea_tui.host.hosted import HostedServer
    from rea_tui.host.interaction import (
        ElicitationAnswer,
        ElicitationRequest,
        SamplingAnswer,
        SamplingRequest,
    )
    from rea_tui.host.models import Tool


def build_arguments(args: argparse.Namespace, tool: Tool | None) -> dict[str, Any]:
    from rea_tui.host.schema_values import UnreadableValue, coerce, property_schema

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


def print_call(server: str, tool_name: str, tool: Tool | None, arguments: dict[str, Any], *, to_stderr: bool) -> None:
    """What is about to be sent; on stderr when stdout is machine output."""
    annotations = describe_annotations(tool.annotations) if tool else "unknown tool (not in tools/list)"
    lines = [
        f"server:    {safe(server)}",
        f"tool:      {safe(tool_name)}",
        f"declared:  {safe(annotations)}  (declared by the server, not verified)",
        "arguments:",
        safe(json.dumps(arguments, indent=2, ensure_ascii=False), 50_000),
    ]
    if to_stderr:
        print("\n".join(lines), file=sys.stderr)
    else:
        for line in lines:
            say(line)


def ask_yes(question: str) -> bool:
    """An interactive yes, asked on stderr so stdout stays clean."""
    if not sys.stdin.isatty():
        return False
    print(f"{question} [y/N] ", end="", file=sys.stderr, flush=True)
    return sys.stdin.readline().strip().lower() in ("y", "yes")


def print_entry(entry: EvidenceEntry) -> None:
    say(f"{entry.id}  {safe(entry.tool)}  {entry.outcome_label}  ({(entry.duration_ms or 0):.0f} ms)")
    for block in entry.content:
        from rea_tui.host.models import block_text

        text = block_text(block)
        say(safe(text, 100_000) if block.kind == "text" else f"<{block.kind}> {safe(text, 1_000)}")
    if entry.has_structured and entry.narrowing is None:
        say("structuredContent:")
        say(safe(json.dumps(entry.structured, indent=2, ensure_ascii=False, default=str), 100_000))
    if entry.schema_check:
        say(f"schema: {entry.schema_check}")
    if entry.error:
        say(safe(entry.error, 10_000))


def print_question(entry: EvidenceEntry, *, answered: bool = False) -> None:
    question = entry.narrowing
    assert question is not None
    say(f"question ({question.reason}, round {entry.narrowing_round}): {safe(question.ask_user, 1_000)}")
    if question.scoped_by:
        say(f"scoped by: {safe(json.dumps(question.scoped_by, ensure_ascii=False))}")
    for candidate in question.candidates:
        say(f"  - {safe(candidate.label, 300)}")
    say("(answered with --pick)" if answered else "answer with --pick NAME_OR_ID")


def elicitation_handler(pairs: dict[str, str]) -> Any:
    async def answer(request: ElicitationRequest) -> ElicitationAnswer:
        from rea_tui.host.interaction import ElicitationAnswer
        from rea_tui.host.schema_values import UnreadableValue, coerce, property_schema, validate_arguments

        print(f"elicitation from {safe(request.server)}: {safe(request.message, 2_000)}", file=sys.stderr)
        if request.mode == "url":
            print(f"  URL (not opened): {safe(request.url, 2_000)}", file=sys.stderr)
            return ElicitationAnswer("decline")
        if not pairs:
            print("  declined: no --elicit name=value given", file=sys.stderr)
            return ElicitationAnswer("decline")
        content: dict[str, Any] = {}
        for name, text in pairs.items():
            try:
                content[name] = coerce(text, property_schema(request.requested_schema, name))
            except UnreadableValue as exc:
                print(f"  declined: {name}: {exc}", file=sys.stderr)
                return ElicitationAnswer("decline")
        problems = validate_arguments(request.requested_schema, content)
        if problems:
            for problem in problems:
                print(f"  declined: {problem.field}: {problem.message}", file=sys.stderr)
            return ElicitationAnswer("decline")
        return ElicitationAnswer("accept", content)

    return answer


async def decline_sampling(request: SamplingRequest) -> SamplingAnswer:
    from rea_tui.host.interaction import SamplingAnswer

    print(f"sampling request from {safe(request.server)} declined (no model is called)", file=sys.stderr)
    return SamplingAnswer(None)


async def call_tool_command(args: argparse.Namespace, specs: list[ServerSpec]) -> int:
    from rea_tui.host.evidence import EvidenceLedger
    from rea_tui.host.narrowing import concerned_argument, find_candidate, pin
    from rea_tui.host.tool_call import run_tool_call

    elicit_pairs = parse_pairs(args.elicit, "--elicit")
    picks = list(args.pick)

    async def body(hosted: HostedServer) -> int:
        connection = hosted.connection
        connection.elicitation_handler = elicitation_handler(elicit_pairs)
        connection.sampling_handler = decline_sampling
        tool = hosted.catalogs.tools.get(args.tool)
        arguments = build_arguments(args, tool)
        if tool is not None:
            from rea_tui.host.schema_values import validate_arguments

            problems = validate_arguments(tool.input_schema, arguments)
            if problems:
                for problem in problems:
                    print(f"rea-tui: {safe(problem.field)}: {safe(problem.message)}", file=sys.stderr)
                return EXIT_USAGE
        ledger = EvidenceLedger()
        follows: str | None = None
        while True:
            print_call(connection.name, args.tool, tool, arguments, to_stderr=args.json)
            if not args.yes and not ask_yes("Run this call?"):
                print("rea-tui: not sent (approve with --yes or answer y)", file=sys.stderr)
                return EXIT_NOT_RUN
            approval = "--yes" if args.yes else "interactive yes"
            entry = await run_tool_call(
                connection, ledger, args.tool, arguments, tool=tool, approval=approval, follows=follows
            )
            question = entry.narrowing
            if question is None or not picks:
                break
            pick = picks.pop(0)
            candidate = find_candidate(question, pick)
            argument = concerned_argument(question, tool, arguments)
            if candidate is None or argument is None:
                print_question(entry)
                print(f"rea-tui: --pick {pick!r} names no candidate", file=sys.stderr)
                return EXIT_USAGE
            arguments = pin(arguments, question, candidate, tool, argument)
            follows = entry.id
        if args.json:
            emit_json({"evidence": [e.to_json() for e in ledger.entries]})
        else:
            for shown in ledger.entries:
                print_entry(shown)
                if shown.narrowing is not None:
                    print_question(shown, answered=shown is not entry)
        if entry.narrowing is not None:
            return EXIT_NARROWING
        if entry.outcome == "ok":
            return EXIT_OK
        from rea_tui.cli import EXIT_AUTH, EXIT_PROTOCOL, EXIT_TIMEOUT, EXIT_UNAVAILABLE

        return {
            "tool_error": EXIT_NOT_RUN,
            "timed_out": EXIT_TIMEOUT,
            "server_exited": EXIT_UNAVAILABLE,
            "unavailable": EXIT_UNAVAILABLE,
            "authorization_needed": EXIT_AUTH,
        }.get(entry.outcome, EXIT_PROTOCOL)

    return await with_server(args, specs, body)
