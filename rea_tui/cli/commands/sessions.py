"""`rea-tui sessions` and `rea-tui export`: the recorded transcripts, and reports made from them."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from rea_tui.cli.command import Command, Context, UsageError
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


def configure_sessions(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--prune",
        action="store_true",
        help="remove the transcripts in which nothing happened (no prompt, call or note); say which",
    )


def run_prune(context: Context) -> int:
    from rea_tui.host import prune_transcripts, sanitize, sessions_dir

    out = context.out
    removed = prune_transcripts()
    if context.args.json:
        out.json({"folder": str(sessions_dir()), "removed": [str(p) for p in removed]})
        return ExitCode.OK
    for path in removed:
        out.line(f"removed {sanitize(path.name)}")
    count = f"{len(removed)} empty transcript{'s' if len(removed) != 1 else ''}"
    out.line(f"{count} removed from {sanitize(sessions_dir())}; every other one holds a prompt, a call or a note")
    return ExitCode.OK


def run_sessions(context: Context) -> int:
    from rea_tui.host import list_transcripts, sanitize, sessions_dir, summarize

    if context.args.prune:
        return run_prune(context)
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
        empty = "  (empty: --prune removes it)" if row["empty"] else ""
        counts = f"{row['toolCalls']} calls, {row['notes']} notes{cut}{empty}"
        out.line(f"{sanitize(Path(row['path']).name)}  {started}  {servers}  {prompts}  {counts}")
    if not rows:
        out.line("(none yet: a TUI session writes one once a prompt is chosen, a tool runs or a note is written)")
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


SESSIONS = Command(
    "sessions",
    "list the recorded session transcripts (--prune: remove the empty ones)",
    configure_sessions,
    run_sessions,
)
EXPORT = Command("export", "write a report (Markdown or JSON) from a session transcript", configure_export, run_export)
