"""How `rea-tui call` answers a server's elicitation requests, the headless twin of the elicitation dialog.

`--elicit name=value` (repeatable) accepts a form with those values and the
form's defaults for every other field that declares one (SEP-1034);
`--elicit-accept` accepts with the defaults alone; `--elicit-decline` and
`--elicit-cancel` answer every request so. With none of them a form is
declined. A value for a field the form does not have, or one the form's
schema rejects (type, enum, format: email, uri, date, date-time), is refused:
the request is declined, nothing of the answer is sent, and the command exits 2.
A URL is never opened.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from rea_tui.cli.command import UsageError, parse_pairs
from rea_tui.cli.output import Output

if TYPE_CHECKING:
    from rea_tui.host import ElicitationAnswer, ElicitationRequest, FormField

MESSAGE_LIMIT = 2_000
VALUE_LIMIT = 500

Mode = Literal["accept", "decline", "cancel", "unanswered"]


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--elicit",
        action="append",
        default=[],
        metavar="name=value",
        help="accept an elicitation form with this value (repeatable); fields not given take the form's defaults",
    )
    answers = parser.add_mutually_exclusive_group()
    answers.add_argument(
        "--elicit-accept", action="store_true", help="accept elicitation forms with their defaults (and any --elicit)"
    )
    answers.add_argument("--elicit-decline", action="store_true", help="decline every elicitation request")
    answers.add_argument("--elicit-cancel", action="store_true", help="cancel every elicitation request")


def _choice(field: FormField, text: str) -> Any:
    """The choice `text` names (its value as typed or as JSON, or its label); raises UnreadableValue."""
    from rea_tui.host import UnreadableValue

    for choice in field.choices:
        shown = choice.value if isinstance(choice.value, str) else json.dumps(choice.value)
        if text in (shown, choice.label):
            return choice.value
    allowed = ", ".join(c.label if c.label == str(c.value) else f"{c.value} ({c.label})" for c in field.choices)
    raise UnreadableValue(f"{text!r} is not one of: {allowed}")


def read_value(field: FormField, text: str) -> Any:
    """A `--elicit` value as its field's type; raises UnreadableValue."""
    from rea_tui.host import coerce

    if field.kind == "choice":
        return _choice(field, text)
    if field.kind == "multi":
        return [_choice(field, part.strip()) for part in text.split(",") if part.strip()]
    return coerce(text, field.schema)


@dataclass
class ElicitationAnswers:
    """The answers given on the command line, and the requests whose answer was refused."""

    out: Output
    mode: Mode
    pairs: dict[str, str]
    refused: list[str] = field(default_factory=list)

    def refuse(self, reason: str) -> ElicitationAnswer:
        from rea_tui.host import ElicitationAnswer, sanitize

        self.refused.append(reason)
        self.out.note(f"  refused, so declined (nothing of the answer was sent): {sanitize(reason, MESSAGE_LIMIT)}")
        return ElicitationAnswer("decline")

    def show_url(self, request: ElicitationRequest) -> None:
        """As the TUI's URL dialog does: the host and the warnings first, then the message and the URL,
        each on one line of its own (a newline in either cannot forge a line, a `host:` one say)."""
        from rea_tui.host import one_line_url, sanitize_line, view_url

        view = view_url(request.url)
        self.out.note(f"elicitation from {sanitize_line(request.server)}: a URL to open (not opened)")
        self.out.note(f"  host: {view.host or '(none rea-tui can name)'}")
        for warning in view.warnings:
            self.out.note(f"  warning: {warning}")
        self.out.note(f"  message: {sanitize_line(request.message, MESSAGE_LIMIT)}")
        self.out.note(f"  URL (one line, escaped): {one_line_url(request.url)}")

    async def answer(self, request: ElicitationRequest) -> ElicitationAnswer:
        from rea_tui.host import ElicitationAnswer, sanitize

        if request.mode == "url":
            self.show_url(request)
        else:
            self.out.note(f"elicitation from {sanitize(request.server)}: {sanitize(request.message, MESSAGE_LIMIT)}")
        if self.mode == "cancel":
            self.out.note("  cancelled (--elicit-cancel)")
            return ElicitationAnswer("cancel")
        if self.mode == "decline" or request.mode == "url":
            self.out.note("  declined" + (" (--elicit-decline)" if self.mode == "decline" else ""))
            return ElicitationAnswer("decline")
        if self.mode == "unanswered":
            self.out.note("  declined: answer with --elicit name=value or --elicit-accept (or --elicit-decline)")
            return ElicitationAnswer("decline")
        return await self._accept(request)

    async def _accept(self, request: ElicitationRequest) -> ElicitationAnswer:
        from rea_tui.host import (
            ElicitationAnswer,
            UnreadableValue,
            check_against_schema,
            form_fields,
            sanitize,
            unknown_keys,
            with_defaults,
        )

        schema = request.requested_schema
        fields = {f.name: f for f in form_fields(schema)}
        unknown = unknown_keys(schema, self.pairs)
        if unknown:
            known = ", ".join(fields) or "none"
            return self.refuse(f"the form has no field {', '.join(unknown)} (its fields: {known})")
        given: dict[str, Any] = {}
        for name, text in self.pairs.items():
            try:
                given[name] = read_value(fields[name], text)
            except UnreadableValue as exc:
                return self.refuse(f"{name}: {exc}")
        content = with_defaults(schema, given)
        verdict = await check_against_schema(schema, content)
        if verdict.refusal is not None:
            return self.refuse(verdict.refusal)
        if verdict.problems:
            return self.refuse("; ".join(f"{p.field}: {p.message}" for p in verdict.problems))
        for note in verdict.unchecked:
            self.out.note(f"  not checked: {sanitize(note, MESSAGE_LIMIT)}")
        for name, value in content.items():
            origin = "" if name in given else "  (the form's default)"
            shown = sanitize(json.dumps(value, ensure_ascii=False), VALUE_LIMIT)
            self.out.note(f"  {sanitize(name)} = {shown}{origin}")
        return ElicitationAnswer("accept", content)


def elicitation_answers(args: argparse.Namespace, out: Output) -> ElicitationAnswers:
    """The answers the options give; a contradiction (values and --elicit-decline) is a usage error."""
    pairs = parse_pairs(args.elicit, "--elicit")
    if pairs and (args.elicit_decline or args.elicit_cancel):
        raise UsageError("--elicit values cannot be given with --elicit-decline or --elicit-cancel")
    mode: Mode = "unanswered"
    if args.elicit_decline:
        mode = "decline"
    elif args.elicit_cancel:
        mode = "cancel"
    elif pairs or args.elicit_accept:
        mode = "accept"
    return ElicitationAnswers(out, mode, pairs)
