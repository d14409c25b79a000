"""`python -m rea_tui.server` and `rea-tui server`: run the reference REA server.

stdio by default; `--http HOST:PORT` serves streamable HTTP at /mcp (PORT 0
picks a free port) and prints one line `rea-server listening on
http://HOST:PORT/mcp` to stderr once connections are accepted. stdout only
ever carries JSON-RPC. Heavy imports happen inside `main` so that importing
this module stays cheap.
"""

from __future__ import annotations

import argparse
import sys


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _host_port(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not host:
        raise argparse.ArgumentTypeError("expected HOST:PORT, for example 127.0.0.1:8765")
    try:
        number = int(port)
    except ValueError:
        raise argparse.ArgumentTypeError("PORT must be a number") from None
    if not 0 <= number <= 65535:
        raise argparse.ArgumentTypeError("PORT must be between 0 and 65535")
    return host.strip("[]"), number


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rea-tui server",
        description="Run the reference REA MCP server (stdio unless --http is given).",
    )
    parser.add_argument("--http", metavar="HOST:PORT", type=_host_port, help="serve streamable HTTP at /mcp")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--target", metavar="PATH", help="open this file, directory or .app bundle at start")
    source.add_argument(
        "--synthetic",
        metavar="N",
        type=_positive,
        help="open a deterministic synthetic target with N procedures",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the synthetic target (default 0)")
    parser.add_argument(
        "--discovery-limit",
        type=_positive,
        default=5000,
        help="unique procedure addresses completion discovers before stopping (default 5000)",
    )
    parser.add_argument("--page-size", type=_positive, default=500, help="list_procedures page size (default 500)")
    parser.add_argument("--no-target", action="store_true", help="start with no target open")
    parser.add_argument("--fault-injection", action="store_true", help=argparse.SUPPRESS)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(sys.argv[1:] if argv is None else argv)

    import logging

    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="rea-server %(levelname)s %(message)s")

    from rea_tui.server.limits import MAX_SYNTHETIC_PROCEDURES
    from rea_tui.server.providers.synthetic import SyntheticSpec
    from rea_tui.server.session_state import ServerOptions, Session
    from rea_tui.server.target import Target, TargetError, open_default, open_path, open_synthetic

    session = Session(ServerOptions(discovery_limit=args.discovery_limit, page_size=args.page_size))
    target: Target | None = None
    try:
        if args.synthetic is not None:
            if args.synthetic > MAX_SYNTHETIC_PROCEDURES:
                print(f"rea-server: --synthetic is at most {MAX_SYNTHETIC_PROCEDURES}", file=sys.stderr)
                return 2
            target = open_synthetic(SyntheticSpec(args.synthetic, args.seed))
        elif args.target is not None:
            target = open_path(args.target)
        elif not args.no_target:
            target = open_default()
    except TargetError as exc:
        print(f"rea-server: cannot open target: {exc}", file=sys.stderr)
        return 2
    if target is not None:
        session.activate(target)

    from rea_tui.server.rea_server import ReaServer
    from rea_tui.server.serving import serve_http, serve_stdio

    app = ReaServer(session, fault_injection=args.fault_injection)
    try:
        if args.http is not None:
            host, port = args.http
            return serve_http(app, host, port)
        return serve_stdio(app)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
