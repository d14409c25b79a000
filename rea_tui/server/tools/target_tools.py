"""The target lifecycle and the environment: open_binary, close_binary, doctor."""

from __future__ import annotations

import os
import platform
import sys
from importlib import metadata
from typing import Any

from rea_tui.server.target.binary_formats import sniff_format
from rea_tui.server.target.target import is_javascript_application
from rea_tui.server.target.target_paths import TargetError
from rea_tui.server.toolkit.tool_outcomes import Evidence, Failure, Outcome, Plain
from rea_tui.server.toolkit.tool_registry import Handler
from rea_tui.server.toolkit.tool_services import ToolCall


async def open_binary(call: ToolCall) -> Outcome:
    try:
        target, previous = await call.services.switcher.open(str(call.args["path"]))
    except TargetError as exc:
        return Failure(str(exc))
    payload = target.describe()
    payload["previous_target"] = previous.path
    return Evidence(payload)


async def close_binary(call: ToolCall) -> Outcome:
    session = call.session
    cleared = {
        "evidence": len(session.ledger),
        "unknowns": len(session.unknowns.all()),
        "manifests": len(session.artifacts.all()),
    }
    previous = await call.services.switcher.close()
    return Plain({"closed": previous.any, "target": previous.path, "cleared": cleared})


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "unknown"


async def doctor(call: ToolCall) -> Outcome:
    """Never waits for the target: while it opens, the session says so."""
    session = call.session
    options = session.options
    environment = {
        "python": sys.version.split()[0],
        "executable": os.path.realpath(sys.executable),
        "platform": platform.platform(),
        # Read from package metadata, so asking does not import LIEF or capstone.
        "lief": _version("lief"),
        "capstone": _version("capstone"),
        "discovery_limit": options.discovery_limit,
        "discovery_time_budget_seconds": options.discovery_time_budget,
        "page_size": options.page_size,
    }
    policy = call.services.capture_policy
    capture = {"runs": policy.startup.path if policy.startup else None}
    payload: dict[str, Any] = {"environment": environment, "session": session.describe(), "process_capture": capture}
    path = call.args.get("path")
    if path:
        payload["path_check"] = check_path(str(path))
    return Evidence(payload)


def check_path(path: str) -> dict[str, Any]:
    full = os.path.realpath(os.path.expanduser(path))
    check: dict[str, Any] = {"path": path, "resolved": full, "exists": os.path.exists(full)}
    if not check["exists"]:
        check.update(openable=False, reason="no such file or directory")
        return check
    if os.path.isfile(full):
        fmt = sniff_format(full)
        check.update(
            kind="file",
            format=fmt,
            openable=fmt is not None,
            reason=None if fmt else "not an ELF, Mach-O or PE binary",
        )
        return check
    is_app = full.rstrip(os.sep).endswith(".app") and os.path.isdir(os.path.join(full, "Contents"))
    javascript_app = is_javascript_application(full)
    check.update(kind="app" if is_app else "directory", javascript=javascript_app)
    if is_app:
        check.update(openable=True, reason=None)
    elif javascript_app:
        check.update(
            openable=False,
            available_operation="analyze_javascript_application",
            reason="a JavaScript/Electron application directory: analyze it with input_path",
        )
    else:
        check.update(openable=True, reason="opens as a directory of binaries when it contains any")
    return check


HANDLERS: dict[str, Handler] = {
    "open_binary": open_binary,
    "close_binary": close_binary,
    "doctor": doctor,
}
