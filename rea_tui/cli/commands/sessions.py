"""`rea-tui sessions` and `rea-tui export`: the recorded transcripts, and reports made from them."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from rea_tui.cli.command import Command, Context, UsageError, no_arguments
from rea_tui.cli.exit_codes import ExitCode

NAME_LIMIT = 80


def resolve_transcript(name: str) -> Path:
    """A transcript path, or a name in the sessions folder (with or without .jsonl)."""
    from rea_tui.host import TRANSCRIPT_SUFFIX, sessions_dir

    path = Path(name).expanduser()
    for candidate in (path, sessions_dir() / name, sessions_dir() / f"{name}{TRANSCRIPT_SUFFIX}"):
        if candidate.is_file():
            return candidate
    raise UsageError(f"no transcript at {name} (see `rea-tui sessions`)")


def run_sessions(context: Context) -> int:
    from rea_tui.host import list_transcripts, sanitize, sessions_dir, summarize

    out = context.out
    rows = [summarize(path) for path in list_transcripts()]
    if context.args.json:
        out.json({"folder": str(sessions_dir()), "sessions": rows})
        return ExitCode.OK
    out.line(f"transcripts in {sanitize(sessions_dir())}")
    for row in rows:
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(row["started"])) if row["started"] else "?"
        prompts = ", ".join(sanitize(p, NAME_LIMIT) for p in row["prompts"]) or "no prompt rendered"
        servers = ", ".join(sanitize(s, NAME_LIMIT) for s in row["servers"]) or "no server"
        cut = "  (ends mid-event)" if row["truncated"] else ""
        counts = f"{row['toolCalls']} calls, {row['notes']} notes{cut}"
        out.line(f"{sanitize(Path(row['path']).name)}  {started}  {servers}  {prompts}  {counts}")
    if not rows:
        out.line("(none yet: every TUI session writes one)")
    return ExitCode.OK


def configure_export(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("transcript", help="a transcript path, or its name in the sessions folder")
    parser.add_argument("--format", choices=("md", "json"), default="md")
    parser.add_argument("-o", "--output", metavar="FILE", help="write here instead of stdout")


def run_export(context: Context) -> int:
    from rea_tui.host import read_transcript, render_json, render_markdown

    args, out = context.args, context.out
    transcript = read_transcript(resolve_transcript(args.transcript))
    text = render_json(transcript) if args.format == "json" else render_markdown(transcript)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        out.note(f"wrote {args.output}")
    else:
        out.line(text.rstrip("\n"))
    return ExitCode.OK


SESSIONS = Command("sessions", "list the recorded session transcripts", no_arguments, run_sessions)
EXPORT = Command("export", "write a report (Markdown or JSON) from a session transcript", configure_export, run_export)
