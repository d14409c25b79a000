"""Rendering each prompt with its required arguments filled, and checking its steps.

Required arguments are filled the way an analyst would: each with its first
completion suggestion (asked with the arguments filled so far as context
when the empty value offered nothing), else a placeholder. A rendering that
fails with placeholders in it is reported as information only: the server
may rightly refuse a made-up value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from rea_tui.host.audit.battery import first_suggestion
from rea_tui.host.audit.channel import AuditChannel
from rea_tui.host.audit.checks import Issue, quote, quote_list
from rea_tui.host.audit.report import Exchange, RenderOutcome, TargetReport
from rea_tui.host.features.completion import CompletionRef
from rea_tui.host.features.workflow import parse_workflow
from rea_tui.host.protocol.models import Prompt, Tool, block_text

PLACEHOLDER: Final = "audit placeholder"

# A numbered list item that starts with an inline code span: `1. `tool_name`: ...`.
_NUMBERED_STEP: Final = re.compile(r"^[ \t]*\d{1,3}[.)][ \t]+`([^`\n]{1,200})`", re.MULTILINE)
_IDENTIFIER: Final = re.compile(r"^[A-Za-z_][\w.-]*$")


def numbered_step_names(text: str) -> list[str]:
    """Identifiers that open a numbered list item as code: the steps a prompt lists."""
    found = [m.group(1) for m in _NUMBERED_STEP.finditer(text)]
    return list(dict.fromkeys(name for name in found if _IDENTIFIER.match(name)))


async def fill_required(
    channel: AuditChannel, prompt: Prompt, target: TargetReport, empty: Mapping[str, Exchange]
) -> tuple[dict[str, str], list[str]]:
    """Values for the required arguments, and the names that got a placeholder."""
    ref = CompletionRef("prompt", prompt.wire)
    filled: dict[str, str] = {}
    placeholders: list[str] = []
    can_complete = channel.hosted.connection.has_capability("completions")
    for argument in prompt.required_arguments:
        value = first_suggestion(empty.get(argument.wire))
        if value is None and can_complete and filled:
            exchange = await channel.complete(ref, argument.wire, "", filled, target=target)
            value = first_suggestion(exchange)
        if value is None:
            value = PLACEHOLDER
            placeholders.append(argument.wire)
        filled[argument.wire] = value
    return filled, placeholders


async def check_prompt(
    channel: AuditChannel,
    prompt: Prompt,
    target: TargetReport,
    empty: Mapping[str, Exchange],
    tools: Sequence[Tool],
) -> None:
    """prompts/get with the required arguments; raises Hung/Lost like every request."""
    ref = CompletionRef("prompt", prompt.wire)
    filled, placeholders = await fill_required(channel, prompt, target, empty)
    params: dict[str, Any] = {"name": prompt.wire}
    if filled:
        params["arguments"] = filled
    exchange = await channel.send("prompts/get", params, target)
    outcome = RenderOutcome(ok=False, arguments=dict(filled), placeholders=placeholders)
    target.render = outcome
    if exchange.outcome == "error":
        outcome.error = exchange.note
        if placeholders:
            message = (
                f"prompts/get failed with a placeholder for {quote_list(placeholders)} (the server may rightly "
                f"refuse a made-up value): {exchange.note}"
            )
            channel.flag([Issue("prompt.render", message, "info")], ref, None, [exchange])
        else:
            channel.flag([Issue("prompt.render", f"prompts/get failed: {exchange.note}")], ref, None, [exchange])
        return
    result = exchange.result or {}
    if not isinstance(result.get("messages"), list):
        outcome.error = "the result has no messages list"
        channel.flag([Issue("prompt.render", "prompts/get returned no messages list")], ref, None, [exchange])
        return
    workflow = parse_workflow(prompt.name, filled, result, tools)
    outcome.ok = True
    outcome.steps = [step.tool for step in workflow.steps]
    text = "\n\n".join(block_text(block) for message in workflow.messages for block in message.blocks)
    known = {tool.name for tool in tools}
    unknown = [name for name in numbered_step_names(text) if name not in known]
    if unknown:
        channel.flag(
            [Issue("prompt.unknown-tool", f"the steps name {quote_list(unknown)}, not in tools/list")],
            ref,
            None,
            [exchange],
        )
    if not workflow.steps:
        channel.flag(
            [Issue("rea.prompt-steps", f"the rendered prompt {quote(prompt.name)} names none of the server's tools")],
            ref,
            None,
            [exchange],
        )
