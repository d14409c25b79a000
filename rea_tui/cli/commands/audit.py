"""`rea-tui audit`: check a server's completion (and its prompts) with a bounded battery.

The headless twin of the completion inspector's audit: the same host
`Audit`, with a progress bar on stderr when stderr is a terminal, ctrl+c for
a partial report, text or `--json` on stdout and `--markdown FILE` for a
report.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import shutil
import signal
import time
from pathlib import Path
from typing import TYPE_CHECKING, Final

from rea_tui.cli.command import Command, Context, UsageError
from rea_tui.cli.connect import server_command
from rea_tui.cli.exit_codes import ExitCode
from rea_tui.cli.output import Output

if TYPE_CHECKING:
    from rea_tui.host import AuditProgress, AuditReport, HostedServer

DEFAULT_BUDGET_S: Final = 60.0
DEFAULT_MAX_REQUESTS: Final = 50
PROGRESS_INTERVAL_S: Final = 0.1
BAR_WIDTH: Final = 24
MIN_BAR_LINE: Final = 20

# How much of a server string a line shows: a target being audited, a prompt name, a name asked for.
WHERE_LIMIT = 200
NAME_LIMIT = 80
ASKED_LIMIT = 300
AUDIT_HELP = "audit the server's completion and prompts (MCP rules, or the REA contract with --profile rea)"

AUDIT_EPILOG = """\
For every prompt argument and resource-template variable (or those of --prompt / --template):
the empty value twice, an over-long value, each other argument filled in, each first character
and growing prefixes of the values, checked for the MCP rules (at most 100 string values, no
duplicates, total and hasMore consistent), narrowing, determinism, context sensitivity and
latency; then prompts/get with the required arguments filled. --profile rea adds the REA
contract: NFKC case-insensitive prefix matching, original spelling, code-point order, values of
at most 4,096 characters, over-long requests rejected with -32602 and field diagnostics, and an
empty list rather than an error. Each finding cites the exact request and reply.

--timeout bounds each request (a request that takes longer is reported as a hang); --budget
bounds the whole audit, and no request outlives it. ctrl+c stops and prints what was found.

exit codes: 0 no error-severity finding, 7 an error-severity finding, 5 the budget ran out
before the battery finished (and no error was found), 130 interrupted (the partial report is
printed), 2 usage, 3 server unavailable.
"""


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("must be a number of seconds") from None
    if not value > 0:
        raise argparse.ArgumentTypeError("must be more than 0")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("must be a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def configure(sub: argparse.ArgumentParser) -> None:
    sub.epilog = AUDIT_EPILOG
    sub.formatter_class = argparse.RawDescriptionHelpFormatter
    sub.add_argument("--prompt", action="append", default=[], metavar="NAME", help="audit this prompt (repeatable)")
    sub.add_argument(
        "--template", action="append", default=[], metavar="URI_TEMPLATE", help="audit this template (repeatable)"
    )
    sub.add_argument("--profile", choices=("mcp", "rea"), default="mcp", help="the rules to check (default mcp)")
    sub.add_argument("--markdown", metavar="FILE", help="also write a Markdown report to FILE")
    sub.add_argument(
        "--budget",
        type=_positive_float,
        default=DEFAULT_BUDGET_S,
        metavar="SECONDS",
        help=f"time for the whole audit (default {DEFAULT_BUDGET_S:g})",
    )
    sub.add_argument(
        "--max-requests",
        type=_positive_int,
        default=DEFAULT_MAX_REQUESTS,
        metavar="N",
        help=f"completion requests per argument, at most (default {DEFAULT_MAX_REQUESTS})",
    )


class ProgressBar:
    """One status line on a terminal's stderr, redrawn in place."""

    def __init__(self, out: Output) -> None:
        self.out = out
        self._last = 0.0

    def update(self, progress: AuditProgress) -> None:
        now = time.monotonic()
        if now - self._last < PROGRESS_INTERVAL_S and progress.done < progress.total:
            return
        self._last = now
        from rea_tui.host import sanitize_line

        fraction = max(progress.done / max(progress.total, 1), progress.elapsed_s / max(progress.budget_s, 1e-9))
        filled = min(BAR_WIDTH, int(fraction * BAR_WIDTH))
        where = progress.target if progress.argument is None else f"{progress.target} / {progress.argument}"
        line = (
            f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {progress.done}/~{progress.total} requests, "
            f"{progress.elapsed_s:.0f}/{progress.budget_s:g} s  {sanitize_line(where, WHERE_LIMIT)}"
        )
        width = max(MIN_BAR_LINE, shutil.get_terminal_size((80, 24)).columns - 1)
        self.out.status(line[:width])

    def clear(self) -> None:
        self.out.clear_status()


def exit_code(report: AuditReport) -> ExitCode:
    if report.stop_reason == "cancelled":
        return ExitCode.INTERRUPTED
    if report.has_errors:
        return ExitCode.AUDIT_FINDINGS
    if report.stop_reason == "budget":
        return ExitCode.TIMEOUT
    return ExitCode.OK


def write_markdown(path: Path, report: AuditReport) -> None:
    from rea_tui.host import render_audit_markdown

    try:
        path.write_text(render_audit_markdown(report), encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None


async def body(context: Context, hosted: HostedServer) -> int:
    from rea_tui.host import Audit, AuditOptions, UnknownTarget, render_audit_text, sanitize_line, select_targets

    args, out = context.args, context.out
    options = AuditOptions(
        profile=args.profile,
        prompts=tuple(args.prompt),
        templates=tuple(args.template),
        max_requests=args.max_requests,
        budget_s=args.budget,
        timeout_s=args.timeout,
    )
    markdown = Path(args.markdown) if args.markdown else None
    if markdown is not None and not markdown.parent.is_dir():
        raise UsageError(f"--markdown {markdown}: the folder {markdown.parent} does not exist")
    catalogs = hosted.catalogs
    try:
        select_targets(catalogs.prompts.items, catalogs.templates.items, options)
    except UnknownTarget as exc:
        known = ", ".join(sanitize_line(p.name, NAME_LIMIT) for p in catalogs.prompts.items) or "none"
        asked = sanitize_line(exc, ASKED_LIMIT)
        raise UsageError(f"the server has no prompt or template {asked} (prompts: {known})") from None
    bar = ProgressBar(out) if out.stderr_is_terminal() else None
    audit = Audit(hosted, options, on_progress=bar.update if bar is not None else None)
    loop = asyncio.get_running_loop()

    def interrupt() -> None:
        audit.cancel()
        # A second ctrl+c falls back to the default handler and ends the command at once.
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.remove_signal_handler(signal.SIGINT)

    handled = False
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, interrupt)
        handled = True
    try:
        report = await audit.run()
    finally:
        if handled:
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.remove_signal_handler(signal.SIGINT)
        if bar is not None:
            bar.clear()
    if args.json:
        out.json(report.to_json())
    else:
        out.line(render_audit_text(report))
    if markdown is not None:
        write_markdown(markdown, report)
        out.error(f"wrote {markdown}")
    return exit_code(report)


COMMAND = Command("audit", AUDIT_HELP, configure, server_command(body))
