"""`rea-tui auth login|logout|status [NAME]`: OAuth sign-in for HTTP servers.

`login` connects and, when the server asks for authorization, opens the
authorization URL in the browser (`$BROWSER` is honoured; the URL is printed
too), waits for the redirect on 127.0.0.1 and keeps the tokens (keyring, or
a 0600 file). `logout` forgets them, `status` shows what is kept (never a
token). Other commands use kept tokens and refresh them; when a server asks
for authorization and none is usable they exit 8 (`ExitCode.AUTH_NEEDED`).
"""

from __future__ import annotations

import argparse
import time

from rea_tui.cli.command import Command, Context, UsageError, run_async
from rea_tui.cli.exit_codes import ExitCode, exit_code_for
from rea_tui.cli.output import Output
from rea_tui.host import ServerSpec, sanitize

ACTIONS = ("login", "logout", "status")
DEFAULT_LOGIN_TIMEOUT = 300.0
# Under this many seconds left, an expiry is shown in minutes; under a minute, in seconds.
MINUTES_SHOWN_BELOW = 7200
SECONDS_SHOWN_BELOW = 60
URL_LIMIT = 8_000
ERROR_LIMIT = 8_000


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=ACTIONS)
    # Stored as `server`, so NAME is resolved like --server NAME (the rea-tui config, then other clients').
    parser.add_argument(
        "server", nargs="?", default=argparse.SUPPRESS, metavar="NAME", help="a configured server (same as --server)"
    )
    parser.add_argument("--no-browser", action="store_true", help="print the sign-in URL instead of opening it")
    parser.add_argument(
        "--login-timeout",
        type=float,
        default=DEFAULT_LOGIN_TIMEOUT,
        metavar="SECONDS",
        help="how long to wait for the sign-in",
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
    if left < SECONDS_SHOWN_BELOW:
        return f"expires in {left:.0f} s"
    return f"expires in {left / 60:.0f} min" if left < MINUTES_SHOWN_BELOW else f"expires in {left / 3600:.0f} h"


def _server_named(context: Context) -> bool:
    selection = context.selection
    return bool(selection.server or selection.url or selection.stdio or selection.config)


def _every_sign_in(specs: list[ServerSpec]) -> tuple[list[ServerSpec], int]:
    """With no server named: the configured HTTP servers, and every other server a sign-in is kept for (from other
    clients' configs, or named by its own record); and how many keyring records no config names."""
    from rea_tui.host import ConfigError, discover, kept_sign_ins

    kept = kept_sign_ins()
    found = [s for s in specs if s.transport != "stdio"]
    for server in discover().servers:
        if server.untrusted:
            continue
        try:
            spec = server.spec()
        except ConfigError:
            continue  # an entry that cannot be read names no URL to look up
        if spec.transport != "stdio" and kept.holds(spec.url):
            found.append(spec)
    for url in kept.file_urls:
        found.append(ServerSpec(name=url, transport="http", url=url))
    unique: dict[str, ServerSpec] = {}
    for spec in found:
        unique.setdefault(spec.url, spec)  # the first name a URL has: the rea-tui config's, then another client's
    return list(unique.values()), kept.unnamed(unique)


async def run(context: Context) -> int:
    from rea_tui.host import auth_status, logout

    args, specs, out = context.args, context.specs, context.out
    safe, say = sanitize, out.line

    if args.action == "status":
        unnamed = 0
        if _server_named(context):
            shown = _http_specs(specs)
        else:
            shown, unnamed = _every_sign_in(specs)
        rows = [auth_status(spec) for spec in shown]
        if args.json:
            out.json({"servers": [row.to_json() for row in rows], "unnamedKeyringRecords": unnamed})
            return ExitCode.OK
        if not rows:
            say("no HTTP server is configured and no sign-in is kept")
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
        if unnamed:
            say(f"{unnamed} more kept in the keyring for servers no config names (`auth status --url URL` shows one)")
        return ExitCode.OK
    if args.action == "logout":
        for spec in _http_specs(specs):
            forgot = logout(spec)
            say(f"{safe(spec.name)}: {'signed out' if forgot else 'nothing was kept'}")
        return ExitCode.OK
    if len(_http_specs(specs)) > 1:
        names = ", ".join(s.name for s in _http_specs(specs))
        raise UsageError(f"several servers are configured ({names}); pick one with NAME")
    return await _login(args, out, _http_specs(specs)[0])


async def _login(args: argparse.Namespace, out: Output, spec: ServerSpec) -> int:
    from rea_tui.host import HostError, login

    safe, say = sanitize, out.line

    async def show(url: str) -> None:
        how = "Open this URL to sign in" if args.no_browser else "Opening the browser to sign in; if it does not open"
        out.error(f"{safe(spec.name)}: {how}:\n  {safe(url, URL_LIMIT)}")

    async def no_browser(url: str) -> None:
        how = "no browser was found (or it could not be opened); open this URL to sign in"
        out.error(f"{safe(spec.name)}: {how}:\n  {safe(url, URL_LIMIT)}")

    try:
        result = await login(
            spec,
            on_url=show,
            on_no_browser=no_browser,
            open_browser=not args.no_browser,
            timeout=args.login_timeout,
            connect_timeout=args.timeout,
        )
    except HostError as exc:
        out.error(safe(exc.describe(), ERROR_LIMIT))
        return exit_code_for(exc)
    status = result.status
    if args.json:
        out.json({"authorizations": result.authorizations, **status.to_json()})
        return ExitCode.OK
    if not result.kept:
        say(f"{safe(spec.name)} did not ask for authorization; nothing to sign in to")
        return ExitCode.OK
    say(f"signed in to {safe(spec.name)}: scope {safe(status.scope or '(none)')}, {_expires(status.expires_at)}")
    say(f"tokens kept in {safe(status.store)}")
    return ExitCode.OK


COMMAND = Command(
    "auth", "sign in to an HTTP server (OAuth), sign out, or show what is kept", configure, run_async(run)
)
