"""`rea-tui ARGS`: parse, pick the servers, and run the command (or the TUI when none is given)."""

from __future__ import annotations

import argparse
import functools
from collections.abc import Sequence

from rea_tui.cli.command import Context, ServerBody, UsageError, UsageExit
from rea_tui.cli.commands import BY_NAME
from rea_tui.cli.exit_codes import ExitCode
from rea_tui.cli.output import Output
from rea_tui.cli.parser import build_parser
from rea_tui.cli.shapes import finish_json, wants_json
from rea_tui.host import (
    ConfigError,
    DeferredInputs,
    ServerSelection,
    find_server,
    resolve_servers,
    sanitize_line,
    split_stdio_command,
    trust_gate,
)


def selection_from(args: argparse.Namespace, stdio_tail: list[str]) -> ServerSelection:
    stdio: tuple[str, ...] = ()
    if args.stdio:
        stdio = split_stdio_command(args.stdio)
    if stdio_tail:
        if stdio:
            raise ConfigError("give the stdio command either with --stdio or after --, not both")
        stdio = tuple(stdio_tail)
    return ServerSelection(
        server=args.server,
        url=args.url,
        headers=tuple(args.header),
        stdio=stdio,
        config=args.config,
        protocol=args.protocol,
    )


@functools.cache
def command_parser() -> argparse.ArgumentParser:
    """One parser per process: a warm session's host parses every command line with it."""
    return build_parser()


def parse_command_line(argv: list[str]) -> tuple[argparse.Namespace, list[str], list[str]]:
    """The parsed arguments, the arguments before `--`, and the stdio command after it (argparse exits on an error)."""
    stdio_tail: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, stdio_tail = argv[:cut], argv[cut + 1 :]
    parser = command_parser()
    # name=value pairs may come after options (`call echo --yes text=hi`): collect the leftovers.
    args, leftovers = parser.parse_known_args(argv)
    pairs = [token for token in leftovers if "=" in token and not token.startswith("-")]
    unknown = [token for token in leftovers if token not in pairs]
    if unknown or (pairs and not hasattr(args, "pairs")):
        parser.error(f"unrecognized arguments: {' '.join(unknown or pairs)}")
    if pairs:
        args.pairs = [*args.pairs, *pairs]
    return args, argv, stdio_tail


def run(argv: Sequence[str], out: Output | None = None) -> int:
    out = out or Output()
    argv = list(argv)
    if argv and argv[0] == "server":
        # The bundled server parses its own options.
        return BY_NAME["server"].run(Context(argparse.Namespace(), [], ServerSelection(), argv, out))
    mark = out.mark()
    try:
        code = _run(argv, out)
    except UsageExit as exc:
        if not wants_json(argv):
            raise
        finish_json(out, mark, ExitCode.USAGE, exc.message)
        return ExitCode.USAGE
    if wants_json(argv):
        finish_json(out, mark, code)
    return code


def _run(argv: list[str], out: Output) -> int:
    args, argv, stdio_tail = parse_command_line(argv)
    if args.max_reply_size is not None:
        from rea_tui.host import set_max_reply_bytes

        set_max_reply_bytes(args.max_reply_size)
    try:
        if args.command is not None and not BY_NAME[args.command].server_options:
            # A command that talks to no server reads no config (`rea-tui trust` works in a folder whose files
            # are broken).
            return BY_NAME[args.command].run(Context(args, [], ServerSelection(), argv, out))
        selection = selection_from(args, stdio_tail)
        # The TUI asks for `${input:NAME}` values in a dialog, when the server that uses them starts.
        deferred = DeferredInputs() if args.command is None else None
        specs, config = resolve_servers(selection, resolver=deferred, fallback=find_server)
        explicit = selection.url or selection.stdio or selection.config
        gate = None if explicit else trust_gate()
        if gate is not None and gate.untrusted and args.command is not None:
            out.note(sanitize_line(gate.hint(), None))
        if args.command is None:
            from rea_tui.ui.launch import run_tui

            nothing_configured = config is None and len(specs) == 1 and specs[0].bundled
            # Asked about when a file could be trusted (one that cannot be read is only noted, in f12 and the CLI).
            askable = gate is not None and any(f.state != "unreadable" for f in gate.untrusted)
            untrusted = gate if askable else None
            return int(
                run_tui(
                    specs,
                    timeout=args.timeout,
                    inputs=deferred,
                    offer_discovered=nothing_configured,
                    max_reply_size=args.max_reply_size,
                    untrusted_folder=untrusted,
                )
            )
        full_argv = [*argv, *(["--", *stdio_tail] if stdio_tail else [])]
        context = Context(args, specs, selection, full_argv, out, lines=COMMAND_LINES)
        # The one-shot HTTP commands skip the SDK's import when the lean client can answer for it.
        from rea_tui.cli.lean import run_lean

        lean = run_lean(context)
        return BY_NAME[args.command].run(context) if lean is None else lean
    except (ConfigError, UsageError) as exc:
        out.error(str(exc))
        return ExitCode.USAGE
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED


class MainCommandLines:
    """This parser and dispatch table, for what runs command lines in a session (`rea_tui.cli.session_exec`)."""

    def parse(self, argv: list[str]) -> tuple[argparse.Namespace, list[str], list[str]]:
        return parse_command_line(argv)

    def server_body(self, command: str) -> ServerBody | None:
        from rea_tui.cli.connect import ServerCommand

        runner = BY_NAME[command].run
        return runner.body if isinstance(runner, ServerCommand) else None

    def one_shot(self, argv: list[str], out: Output) -> int:
        return run(argv, out)


COMMAND_LINES = MainCommandLines()
