"""run_process_capture: a bounded run of the startup target, always confirmed by the user.

Every call asks for confirmation through form elicitation (legacy: a
server-to-client `elicitation/create`; 2026-07-28: an `InputRequiredResult`
the client answers on the retried call). No argument skips the question, and
a client that did not declare form elicitation gets a tool error saying so;
nothing runs. Which executable may run at all is `capture_policy`'s rule.
"""

from __future__ import annotations

import shlex
from typing import Any, Final

import mcp_types as types

from rea_tui.server.capture.capture_policy import CaptureDecision
from rea_tui.server.capture.process_capture import run_capture, simulate_capture, split_arguments
from rea_tui.server.target.target import Target
from rea_tui.server.toolkit.tool_declarations import DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS
from rea_tui.server.toolkit.tool_outcomes import CallContext, Evidence, Failure, NeedsInput, Outcome, Plain
from rea_tui.server.toolkit.tool_registry import Handler
from rea_tui.server.toolkit.tool_services import ToolCall

CAPTURE_CONFIRM_KEY: Final = "confirm_capture"
CAPTURE_STATE: Final = "rea-capture-confirmation"

NO_ELICITATION: Final = (
    "run_process_capture must ask the user to confirm every run, and this client did not declare form "
    "elicitation, so it cannot be asked; nothing was run. Use a client that supports elicitation."
)


def _form(params: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "arguments": {
                "type": "string",
                "title": "Arguments",
                "description": "Command-line arguments for the target's main executable (no shell).",
                "default": params["arguments"],
            },
            "timeout_seconds": {
                "type": "integer",
                "title": "Time limit (seconds)",
                "minimum": 1,
                "maximum": MAX_TIMEOUT_SECONDS,
                "default": params["timeout_seconds"],
            },
            "capture_environment": {
                "type": "boolean",
                "title": "Record environment variable names",
                "default": params["capture_environment"],
            },
        },
        "required": [],
    }


def _not_run(reason: str) -> Plain:
    return Plain({"status": "not_run", "reason": reason, "ran": False})


def _merged(params: dict[str, Any], content: dict[str, Any]) -> dict[str, Any]:
    """The parameters the user confirmed: the form's answers over the requested ones."""
    merged = dict(params)
    if isinstance(content.get("arguments"), str):
        merged["arguments"] = content["arguments"]
    timeout = content.get("timeout_seconds")
    if isinstance(timeout, int | float) and not isinstance(timeout, bool):
        merged["timeout_seconds"] = int(timeout)
    if isinstance(content.get("capture_environment"), bool):
        merged["capture_environment"] = content["capture_environment"]
    return merged


async def _confirmed(
    target: Target, decision: CaptureDecision, params: dict[str, Any], context: CallContext, output_bytes: int
) -> dict[str, Any] | Outcome:
    """The confirmed parameters, or what to answer instead (a question, a refusal, a decline)."""
    if not context.can_elicit:
        return Failure(NO_ELICITATION)
    shown = decision.executable or f"{target.label} (simulated)"
    message = (
        f"Run {shown} once, without a shell, as: {shlex.join([shown, *split_arguments(params['arguments'])])} "
        f"- for at most {params['timeout_seconds']} s, output capped at {output_bytes} bytes per stream, "
        "and every process it starts killed at the end? Adjust the parameters or decline."
    )
    form = _form(params)
    answer: types.ElicitResult | None
    if context.modern:
        raw = (context.input_responses or {}).get(CAPTURE_CONFIRM_KEY)
        if raw is None or context.request_state != CAPTURE_STATE:
            request = types.ElicitRequest(params=types.ElicitRequestFormParams(message=message, requested_schema=form))
            return NeedsInput(
                types.InputRequiredResult(input_requests={CAPTURE_CONFIRM_KEY: request}, request_state=CAPTURE_STATE)
            )
        if not isinstance(raw, types.ElicitResult):
            return Failure("The confirmation answer was not an elicitation result; nothing was run.")
        answer = raw
    else:
        answer = await context.elicit(message, form)
        if answer is None:
            return _not_run("the confirmation request failed")
    if answer.action != "accept":
        return _not_run(f"the user chose {answer.action}")
    return _merged(params, answer.content or {})


async def run_process_capture(call: ToolCall) -> Outcome:
    analysis = await call.lookups.ready()
    if isinstance(analysis, Failure):
        return analysis
    target = analysis.target
    decision = call.services.capture_policy.decide(target)
    if decision.action == "refuse":
        return Failure(f"Not run: {decision.reason}.")
    requested: dict[str, Any] = {
        "arguments": str(call.args.get("arguments", "")),
        "timeout_seconds": int(call.args.get("timeout_seconds", DEFAULT_TIMEOUT_SECONDS)),
        "capture_environment": bool(call.args.get("capture_environment", False)),
    }
    try:
        split_arguments(requested["arguments"])
    except ValueError as exc:
        return Failure(f"Could not split the arguments: {exc}")
    options = call.session.options
    params = await _confirmed(target, decision, requested, call.context, options.capture_output_bytes)
    if not isinstance(params, dict):
        return params
    timeout = max(1, min(int(params["timeout_seconds"]), options.capture_timeout_max))
    try:
        split_arguments(params["arguments"])
    except ValueError as exc:
        return Failure(f"Could not split the confirmed arguments: {exc}")
    if decision.action == "simulate":
        result = await simulate_capture(
            target.path or "synthetic",
            params["arguments"],
            timeout,
            params["capture_environment"],
            call.context.progress,
        )
    else:
        assert decision.executable is not None
        result = await run_capture(
            decision.executable,
            params["arguments"],
            timeout,
            options.capture_output_bytes,
            params["capture_environment"],
            call.context.progress,
        )
    return Evidence(result)


HANDLERS: dict[str, Handler] = {
    "run_process_capture": run_process_capture,
}
