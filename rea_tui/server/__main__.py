"""`python -m rea_tui.server` and `rea-tui server`: run the reference REA server.

stdio by default: the client's `initialize` (or `server/discover`) and its
first lists are answered within a few milliseconds of start, before the MCP
SDK has loaded (`stdio_front`), and the target opens in the background
afterwards (until it is ready, document and procedure completion is empty and
`doctor` / `rea://session` say it is opening).
`--http HOST:PORT` serves streamable HTTP at /mcp (PORT 0 picks a free port)
on loopback only, unless `--allow-remote` is given with a bearer token, and
prints one line `rea-server listening on http://HOST:PORT/mcp` to stderr once
connections are accepted. stdout only ever carries JSON-RPC. Heavy imports
happen inside `main`, so importing this module stays cheap.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from rea_tui.server.limits import (
    DEFAULT_DISCOVERY_LIMIT,
    DEFAULT_DISCOVERY_TIME_BUDGET,
    DEFAULT_PAGE_SIZE,
    MAX_SYNTHETIC_PROCEDURES,
)
from rea_tui.server.protocol.http_security import TOKEN_ENVIRONMENT, refusal

if TYPE_CHECKING:
    from rea_tui.server.target.target import Target
    from rea_tui.server.target.target_paths import StartupTarget

MAX_PORT = 65535
GIL_SWITCH_INTERVAL_SECONDS = 0.0005
"""How long the event loop waits at most for the GIL while a worker thread builds an index (Python's
default is 5 ms, and one request takes the GIL several times: completion stalled 20-180 ms per request)."""
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _seconds(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError("must be a number of seconds, at least 0")
    return value


def _host_port(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise argparse.ArgumentTypeError("expected HOST:PORT, for example 127.0.0.1:8765")
    try:
        number = int(port)
    except ValueError:
        raise argparse.ArgumentTypeError("PORT must be a number") from None
    if not 0 <= number <= MAX_PORT:
        raise argparse.ArgumentTypeError(f"PORT must be between 0 and {MAX_PORT}")
    return host.strip("[]"), number


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rea-tui server",
        description="Run the reference REA MCP server (stdio unless --http is given). With no target "
        "option it opens the running Python interpreter and the shared libraries it links.",
    )
    parser.add_argument(
        "--http",
        metavar="HOST:PORT",
        type=_host_port,
        help="serve streamable HTTP at /mcp; loopback addresses only (127.0.0.1, ::1, localhost) "
        "unless --allow-remote is given",
    )
    parser.add_argument(
        "--allow-remote",
        action="store_true",
        help="let --http bind a non-loopback address such as 0.0.0.0; requires a bearer token",
    )
    parser.add_argument(
        "--token",
        metavar="TOKEN",
        help=f"bearer token every HTTP request must send as 'Authorization: Bearer TOKEN' "
        f"(default: ${TOKEN_ENVIRONMENT}; prefer the variable, a command line is visible to other users)",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument(
        "--target",
        metavar="PATH",
        help="open this file, directory or .app bundle at start (the only executable run_process_capture may run)",
    )
    source.add_argument(
        "--synthetic",
        metavar="N",
        type=_positive,
        help=f"open a deterministic synthetic target with N procedures (at most {MAX_SYNTHETIC_PROCEDURES:,})",
    )
    source.add_argument("--no-target", action="store_true", help="start with no target open")
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic target (default 0)")
    parser.add_argument(
        "--open-first",
        action="store_true",
        help="open the target before answering any request but initialize, so the first lists already "
        "describe it (a start that is the same every time, for demos and scripts)",
    )
    parser.add_argument(
        "--discovery-limit",
        type=_positive,
        default=DEFAULT_DISCOVERY_LIMIT,
        help="safety bound: unique procedure addresses discovered per document before names are withheld "
        f"from completion (default {DEFAULT_DISCOVERY_LIMIT:,}; seed 001's bound was 5000)",
    )
    parser.add_argument(
        "--discovery-time-budget",
        metavar="SECONDS",
        type=_seconds,
        default=DEFAULT_DISCOVERY_TIME_BUDGET,
        help=f"safety bound: seconds one document's discovery may take (default {DEFAULT_DISCOVERY_TIME_BUDGET:g})",
    )
    parser.add_argument(
        "--page-size",
        type=_positive,
        default=DEFAULT_PAGE_SIZE,
        help=f"list_procedures page size discovery reads (default {DEFAULT_PAGE_SIZE})",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)
    token = args.token or os.environ.get(TOKEN_ENVIRONMENT) or None
    if args.http is not None:
        refused = refusal(args.http[0], args.allow_remote, token)
        if refused is not None:
            print(f"rea-server: {refused}", file=sys.stderr)
            return EXIT_USAGE
    elif args.allow_remote or args.token:
        print("rea-server: --allow-remote and --token only apply with --http", file=sys.stderr)
        return EXIT_USAGE
    if args.synthetic is not None and args.synthetic > MAX_SYNTHETIC_PROCEDURES:
        print(f"rea-server: --synthetic is at most {MAX_SYNTHETIC_PROCEDURES}", file=sys.stderr)
        return EXIT_USAGE

    from rea_tui.server.target.target_paths import TargetError

    try:
        startup = _startup_target(args)
    except TargetError as exc:
        print(f"rea-server: cannot open target: {exc}", file=sys.stderr)
        return EXIT_USAGE
    front = None
    if args.http is None:
        # Now, so that the opening request and the lists are answered while everything below loads.
        from rea_tui.server.protocol.stdio_front import StdioFront

        front = StdioFront(_early_sentence(startup))
        # The SDK's import holds the GIL for long native stretches; the opening request, written at
        # spawn, is answered first. Lists arriving during the import are answered by the reader within
        # a few milliseconds (measured: 1-11 ms), so waiting for them too would only delay the SDK.
        front.wait_for_opening()

    import logging

    sys.setswitchinterval(GIL_SWITCH_INTERVAL_SECONDS)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="rea-server %(levelname)s %(message)s")

    from rea_tui.server.protocol.session_state import ServerOptions
    from rea_tui.server.rea_server import ReaServer

    options = ServerOptions(
        discovery_limit=args.discovery_limit,
        discovery_time_budget=args.discovery_time_budget,
        page_size=args.page_size,
    )
    # Over HTTP each MCP session gets its own target and evidence; stdio is one connection.
    app = ReaServer(options, per_session=args.http is not None)
    try:
        if front is not None:
            from rea_tui.server.protocol.stdio_serving import serve_stdio

            return serve_stdio(front, app, startup)
        from rea_tui.server.protocol.http_serving import serve_http

        host, port = args.http
        return serve_http(app, host, port, token, startup)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED


def _early_sentence(startup: StartupTarget | None) -> str | None:
    """What the prompt list says about the target until the SDK serves (the startup target opens in the
    background, after the early replies); None with `--open-first`, whose lists wait for the target."""
    from rea_tui.server.prompts.prompt_declarations import target_sentence

    if startup is None:
        return target_sentence(None)
    return None if startup.first else target_sentence(None, startup.label)


def _startup_target(args: argparse.Namespace) -> StartupTarget | None:
    """What to open at start, after the checks that need no parsing (raises TargetError).

    The openers import the target machinery (and LIEF) only when they run, in the background.
    """
    from rea_tui.server.target.target_paths import DEFAULT_LABEL, StartupTarget, check_openable

    if args.no_target:
        return None
    if args.synthetic is not None:
        count, seed = int(args.synthetic), int(args.seed)

        def synthetic() -> Target:
            from rea_tui.server.providers.synthetic import SyntheticSpec
            from rea_tui.server.target.target import open_synthetic

            return open_synthetic(SyntheticSpec(count, seed))

        return StartupTarget(synthetic, f"synthetic target ({count} procedures)", args.open_first)
    if args.target is not None:
        path = str(args.target)

        def at_path() -> Target:
            from rea_tui.server.target.target import open_path

            return open_path(path)

        return StartupTarget(at_path, check_openable(path), args.open_first)

    def default() -> Target:
        from rea_tui.server.target.target import open_default

        return open_default()

    return StartupTarget(default, DEFAULT_LABEL, args.open_first)


if __name__ == "__main__":
    raise SystemExit(main())
