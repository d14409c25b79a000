"""Which one-shot commands take a lean client (`rea_tui.host.fastpath.lean_http`, `lean_stdio`), and running them on it.

Over stdio, `prompts` and `tools` on a server that spoke 2026-07-28 at its last connection ask it
directly, with no SDK (`rea_tui.host.fastpath.lean_stdio`); anything amiss, and they run on the full path.
Over HTTP:

The command's own body runs, on the lean client instead of a `HostedServer`,
so what it prints is made by the same code. A command line takes this path
only when nothing in it needs what only the full path has: `prompts`,
`tools` and `call` (without `--pick`, `--no-wait`, `--trace`, `--log-level`),
one streamable HTTP server on a plain http:// URL, no OAuth options, no
stored sign-in, no value asked for at start, and a server known to speak the
legacy handshake (pinned, or remembered from an earlier connection: a server
not yet seen gets the full path's probe). Everything the lean client cannot
answer before the call is sent (a server request for the analyst, a cookie
or an encoded body on any reply or on the GET stream, a GET stream that does
not answer within the timeout) sends the command to the full path, from the
start; `REA_TUI_FULL_PATH=1` always does (for tests and debugging).
"""

from __future__ import annotations

import asyncio
import os
from typing import TYPE_CHECKING, Any, cast

from rea_tui.cli.command import Context
from rea_tui.cli.connect import report_host_error

if TYPE_CHECKING:
    from rea_tui.cli.connect import ServerBody
    from rea_tui.host import HostedServer, LeanStdio
    from rea_tui.host import LeanSession as LeanHttp

FULL_PATH_ENV = "REA_TUI_FULL_PATH"
LEAN_COMMANDS = ("prompts", "tools", "call")
# Over stdio, only the lists (asked again on the full path if anything is amiss; a call could not be).
LEAN_LIST_COMMANDS = ("prompts", "tools")
SCHEMA_GUARD = "rea_tui.host.schemas.guard"


def _bodies() -> dict[str, ServerBody]:
    from rea_tui.cli.commands import call, prompts, tools

    return {"prompts": prompts.body, "tools": tools.body, "call": call.body}


def _plain_one_shot(context: Context, commands: tuple[str, ...]) -> bool:
    """One of `commands`, on one server, with nothing only the full path shows (a trace, the server's log)."""
    args = context.args
    if os.environ.get(FULL_PATH_ENV) == "1" or args.command not in commands or len(context.specs) != 1:
        return False
    return not args.trace and getattr(args, "log_level", None) is None


def lean_client(context: Context) -> LeanHttp | None:
    """The lean client for this command line, or None when it goes to the full path."""
    args = context.args
    if not _plain_one_shot(context, LEAN_COMMANDS):
        return None
    if args.command == "call" and (args.pick or args.no_wait):
        return None
    spec = context.specs[0]
    if spec.transport != "http" or not spec.url.startswith("http://") or spec.oauth or spec.asked:
        return None
    from rea_tui.host import has_stored_sign_in

    if not any(k.lower() == "authorization" for k in spec.headers) and has_stored_sign_in(spec.url):
        return None
    from rea_tui.host import LeanFallback, LeanSession, ProtocolMemory

    memory = ProtocolMemory()
    if spec.protocol != "legacy" and not (spec.protocol == "auto" and memory.recall(spec.fingerprint) == "legacy"):
        return None
    try:
        return LeanSession(spec, args.timeout, memory=memory)
    except LeanFallback:
        return None


def run_lean(context: Context) -> int | None:
    """The command's exit code, run on a lean client; None when the full path must run it."""
    stdio = lean_stdio_client(context)
    if stdio is not None:
        return asyncio.run(_run_stdio(context, stdio))
    lean = lean_client(context)
    if lean is None:
        return None
    return asyncio.run(_run(context, lean))


def lean_stdio_client(context: Context) -> LeanStdio | None:
    """For `prompts` and `tools` on one stdio server known to speak 2026-07-28 (`rea_tui.host.fastpath.lean_stdio`)."""
    if not _plain_one_shot(context, LEAN_LIST_COMMANDS):
        return None
    spec = context.specs[0]
    if spec.asked:
        return None
    from rea_tui.host import LeanStdio, ProtocolMemory, known_modern

    memory = ProtocolMemory()
    return LeanStdio(spec, context.args.timeout, memory=memory) if known_modern(spec, memory) else None


async def _run_stdio(context: Context, lean: LeanStdio) -> int | None:
    from rea_tui.host import LeanStdioFallback, ListingNeedsSdk

    try:
        await lean.start()
        # The body lists first (a fallback is still possible: nothing is printed before the list is in).
        return await _bodies()[context.args.command](context, cast("HostedServer", _LeanHosted(lean)))
    except (LeanStdioFallback, ListingNeedsSdk):
        # ListingNeedsSdk: tools with x-mcp-header annotations, which only the SDK's rules check.
        return None
    finally:
        await lean.close()


class _LeanHosted:
    """What a command body reads of a `HostedServer`: the connection and its catalogs."""

    def __init__(self, lean: LeanHttp | LeanStdio) -> None:
        from rea_tui.host import ServerCatalogs

        self.connection = lean
        self.catalogs = ServerCatalogs(cast(Any, lean))


async def _run(context: Context, lean: LeanHttp) -> int | None:
    from rea_tui.host import HostError, LeanFallback, ListingNeedsSdk

    command = context.args.command
    if command == "call":
        # The arguments are checked against the tool's schema (jsonschema, ~60 ms to import): load it
        # while the handshake waits on the network.
        import importlib
        import threading

        threading.Thread(target=importlib.import_module, args=(SCHEMA_GUARD,), daemon=True).start()
    try:
        try:
            lean.start()
            await _prefetch(context, lean)
        except LeanFallback:
            return None
        return await _bodies()[command](context, cast("HostedServer", _LeanHosted(lean)))
    except ListingNeedsSdk:
        return None  # raised by the listing, before any call: the full path checks the annotations
    except HostError as exc:
        return report_host_error(context, exc)
    finally:
        lean.close()


async def _prefetch(context: Context, lean: LeanHttp) -> None:
    """The command's listing, while falling back is still possible."""
    if context.args.command == "call":
        await lean.prefetch_call(context.args.tool)
    elif lean.has_capability(context.args.command):
        await lean.prefetch(f"{context.args.command}/list", context.args.command)
    # The GET stream is open (a server request of the call may come on it) and asks for nothing unread.
    lean.streams_plain()
