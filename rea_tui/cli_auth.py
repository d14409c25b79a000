"""`rea-tui auth login|logout|status [NAME]`: OAuth sign-in for HTTP servers.

`login` connects and, when the server asks for authorization, opens the
authorization URL in the browser (`$BROWSER` is honoured; the URL is printed
too), waits for the redirect on 127.0.0.1 and keeps the tokens (keyring, or
a 0600 file). `logout` forgets them, `status` shows what is kept (never a
token). Other commands use kept tokens and refresh them; when a server asks
for authorization and none is usable they exit 8 (`EXIT_AUTH`).
"""

from __future__ import annotations

import argparse
import sys
import time

from rea_tui.cli import EXIT_OK, UsageError, emit_json, exit_code_for, safe, say
from rea_tui.host.config import ServerSpec

ACTIONS = ("login", "logout", "status")


def add_auth_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=ACTIONS)
    # Stored as `server`, so NAME is resolved like --server NAME (the rea-tui config, then other clients').
    parser.add_argument(
        "server", nargs="?", default=argparse.SUPPRESS, metavar="NAME", help="a configured server (same as --server)"
    )
    parser.add_argument("--no-browser", action="store_true", help="print the sign-in URL instead of opening it")
    parser.add_argument(
        "--login-timeout", type=float, default=300.0, metavar="SECONDS", help="how long to wait for the sign-in"
    )


def _http_specs(specs: list[ServerSpec]) -> list[ServerSpec]:
    found = [s for s in specs if s.transport != "stdio"]
    if not found:
        raise UsageError("no HTTP server selected (name one with NAME, --server or --url)")
    return found


def _expires(expires_at: float | None) -> str:
    if expires_at is None:
        return "no expiry given"
    left = expires_at - time.time()
    if left <= 0:
        return "expired"
    return f"expires in {left / 60:.0f} min" if left < 7200 else f"expires in {left / 3600:.0f} h"


async def cmd_auth(args: argparse.Namespace, specs: list[ServerSpec]) -> int:
    from rea_tui.host.auth import auth_status, logout

    if args.action == "status":
        rows = [auth_status(spec) for spec in _http_specs(specs)]
        if args.json:
            emit_json({"servers": [row.to_json() for row in rows]})
            return EXIT_OK
        for row in rows:
            say(f"{safe(row.server)}  ({safe(row.url)})")
            if not row.oauth:
                say("  uses the Authorization header from its config (no OAuth)")
            elif row.signed_in:
                refresh = ", refreshable" if row.refreshable else ""
                say(f"  signed in, scope {safe(row.scope or '(none)')}, {_expires(row.expires_at)}{refresh}")
            else:
                say("  not signed in")
            if row.wanted_scope:
                say(f"  the server asked for more scope: {safe(row.wanted_scope)} (sign in again)")
            if row.client_id:
                say(f"  client {safe(row.client_id)} ({row.grant_type})")
            say(f"  kept in {safe(row.store)}")
        return EXIT_OK
    if args.action == "logout":
        for spec in _http_specs(specs):
            forgot = logout(spec)
            say(f"{safe(spec.name)}: {'signed out' if forgot else 'nothing was kept'}")
        return EXIT_OK
    if len(_http_specs(specs)) > 1:
        names = ", ".join(s.name for s in _http_specs(specs))
        raise UsageError(f"several servers are configured ({names}); pick one with NAME")
    return await _login(args, _http_specs(specs)[0])


async def _login(args: argparse.Namespace, spec: ServerSpec) -> int:
    from rea_tui.host.auth.signin import login
    from rea_tui.host.errors import HostError

    async def show(url: str) -> None:
        how = "Open this URL to sign in" if args.no_browser else "Opening the browser to sign in; if it does not open"
        print(f"rea-tui: {safe(spec.name)}: {how}:\n  {safe(url, 8_000)}", file=sys.stderr, flush=True)

    try:
        result = await login(
            spec,
            on_url=show,
            open_browser=not args.no_browser,
            timeout=args.login_timeout,
            connect_timeout=args.timeout,
        )
    except HostError as exc:
        print(f"rea-tui: {safe(exc.describe(), 8_000)}", file=sys.stderr)
        return exit_code_for(exc)
    status = result.status
    if args.json:
        emit_json({"authorizations": result.authorizations, **status.to_json()})
        return EXIT_OK
    if not status.signed_in:
        say(f"{safe(spec.name)} did not ask for authorization; nothing to sign in to")
        return EXIT_OK
    say(f"signed in to {safe(spec.name)}: scope {safe(status.scope or '(none)')}, {_expires(status.expires_at)}")
    say(f"tokens kept in {safe(status.store)}")
    return EXIT_OK
