"""`rea-tui sessions`, `export`, `replay` and `web`: investigations beyond one terminal."""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

from rea_tui.cli import EXIT_OK, UsageError, emit_json, safe, say
from rea_tui.host.config import ServerSelection, ServerSpec


def resolve_transcript(name: str) -> Path:
    """A transcript path, or a name in the sessions folder (with or without .jsonl)."""
    from rea_tui.host.transcript import SUFFIX, sessions_dir

    path = Path(name).expanduser()
    for candidate in (path, sessions_dir() / name, sessions_dir() / f"{name}{SUFFIX}"):
        if candidate.is_file():
            return candidate
    raise UsageError(f"no transcript at {name} (see `rea-tui sessions`)")


def cmd_sessions(args: argparse.Namespace) -> int:
    from rea_tui.host.transcript import list_transcripts, sessions_dir, summarize

    rows = [summarize(path) for path in list_transcripts()]
    if args.json:
        emit_json({"folder": str(sessions_dir()), "sessions": rows})
        return EXIT_OK
    say(f"transcripts in {safe(sessions_dir())}")
    for row in rows:
        started = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(row["started"])) if row["started"] else "?"
        prompts = ", ".join(safe(p, 80) for p in row["prompts"]) or "no prompt rendered"
        servers = ", ".join(safe(s, 80) for s in row["servers"]) or "no server"
        cut = "  (ends mid-event)" if row["truncated"] else ""
        counts = f"{row['toolCalls']} calls, {row['notes']} notes{cut}"
        say(f"{Path(row['path']).name}  {started}  {servers}  {prompts}  {counts}")
    if not rows:
        say("(none yet: every TUI session writes one)")
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from rea_tui.host.report import render_json, render_markdown
    from rea_tui.host.transcript import read_transcript

    transcript = read_transcript(resolve_transcript(args.transcript))
    text = render_json(transcript) if args.format == "json" else render_markdown(transcript)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        say(text.rstrip("\n"))
    return EXIT_OK


def recorded_specs(path: Path) -> list[ServerSpec]:
    """The servers a transcript recorded, to run its steps against again (no secrets were kept)."""
    from rea_tui.host.config import bundled_server_spec
    from rea_tui.host.transcript import read_transcript

    specs: list[ServerSpec] = []
    for event in read_transcript(path).of_type("server"):
        name, target = str(event.get("name", "")), str(event.get("target", ""))
        if not target or any(s.name == name for s in specs):
            continue
        if event.get("transport") == "http":
            specs.append(ServerSpec(name=name, transport="http", url=target))
            continue
        command, *rest = shlex.split(target)
        if event.get("bundled"):
            extra = tuple(rest[2:]) if rest[:2] == ["-m", "rea_tui.server"] else ()
            spec = bundled_server_spec(extra)
            specs.append(ServerSpec(**{**spec.__dict__, "name": name}))
        else:
            specs.append(ServerSpec(name=name, transport="stdio", command=command, args=tuple(rest)))
    return specs


def cmd_replay(args: argparse.Namespace, specs: list[ServerSpec], selection: ServerSelection) -> int:
    from rea_tui.ui.launch import run_replay

    path = resolve_transcript(args.transcript)
    if args.offline:
        return run_replay(path, [], offline=True)
    # Servers named on the command line win; else the ones the transcript recorded.
    explicit = bool(selection.url or selection.stdio or selection.server or selection.config)
    servers = specs if explicit else recorded_specs(path)
    if not servers:
        raise UsageError("the transcript names no server to replay against; give one with the server options")
    return run_replay(path, servers, offline=False, timeout=args.timeout)


def web_command(argv: list[str]) -> str:
    """The rea-tui command line each browser session runs: the same server options, no `web` part."""
    passthrough: list[str] = []
    skip = False
    seen_web = False
    for token in argv:
        if skip:
            skip = False
            continue
        if not seen_web and token == "web":
            seen_web = True
            continue
        if seen_web and token in ("--port", "--host"):
            skip = True
            continue
        if seen_web and token.startswith(("--port=", "--host=")):
            continue
        passthrough.append(token)
    return shlex.join([sys.executable, "-m", "rea_tui", *passthrough])


def cmd_web(args: argparse.Namespace, argv: list[str]) -> int:
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        raise UsageError("rea-tui web serves on loopback only (127.0.0.1, localhost or ::1)")
    from textual_serve.server import Server

    command = web_command(argv)
    print(f"serving rea-tui at http://{args.host}:{args.port} (Ctrl+C stops)", file=sys.stderr)
    Server(command, host=args.host, port=args.port, title="rea-tui").serve()
    return EXIT_OK


def run_local(args: argparse.Namespace, specs: list[ServerSpec], selection: ServerSelection, argv: list[str]) -> int:
    """Run `sessions`, `export`, `replay` or `web` (see `LOCAL_COMMANDS` in cli.py)."""
    if args.command == "sessions":
        return cmd_sessions(args)
    if args.command == "export":
        return cmd_export(args)
    if args.command == "replay":
        return cmd_replay(args, specs, selection)
    return cmd_web(args, argv)
