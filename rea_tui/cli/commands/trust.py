"""`rea-tui trust`: list what a folder's own config files would run, and trust (or stop trusting) the folder.

A folder's `.rea-tui.json`, `.mcp.json`, `.cursor/mcp.json`,
`.vscode/mcp.json` and `.gemini/settings.json` are not used until the folder
is trusted here (or in the TUI's dialog). Trusting asks on the terminal after
the listing; `--yes` trusts without asking (for scripts); with neither a
terminal nor `--yes` nothing is trusted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rea_tui.cli.command import Command, Context, UsageError
from rea_tui.cli.exit_codes import ExitCode

if TYPE_CHECKING:
    from rea_tui.host import TrustStore

HELP = "list what a folder's own config files would run, and trust the folder (--revoke, --list)"
DESCRIPTION = (
    "list every command (program, args, cwd, env names) and URL (header names) that a folder's own config files "
    "would use, and trust the folder after a yes (by its real path, with a hash of each file: a changed or new "
    "file asks again)"
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", default=".", help="the folder (default: the current one)")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--revoke", action="store_true", help="stop trusting the folder")
    action.add_argument("--list", action="store_true", help="list the trusted folders and the state of their files")
    parser.add_argument("--yes", action="store_true", help="trust without asking (for scripts)")


def folder_of(path: str) -> Path:
    from rea_tui.host import real_folder

    folder = real_folder(path)
    if not folder.is_dir():
        raise UsageError(f"not a folder: {path}")
    return folder


def run(context: Context) -> int:
    from rea_tui.host import TrustStore, TrustStoreError

    args = context.args
    try:
        if args.list:
            return list_trusted(context, TrustStore())
        if args.revoke:
            return revoke(context, TrustStore())
        return trust(context, TrustStore())
    except TrustStoreError as exc:
        raise UsageError(str(exc)) from None


def trust(context: Context, store: TrustStore) -> int:
    from rea_tui.host import folder_listing, sanitize_line, trust_gate

    args, out = context.args, context.out
    folder = folder_of(args.path)
    gate = trust_gate(folder, store)
    if not gate.files:
        out.line(f"{sanitize_line(folder)} has no config files of its own; there is nothing to trust")
        return ExitCode.OK
    out.line(f"{sanitize_line(folder)} would use:")
    for line in folder_listing(gate):
        out.line("  " + line)
    if not gate.untrusted:
        out.line("already trusted with these files, as they are now")
        return ExitCode.OK
    if not args.yes:
        if not sys.stdin.isatty():
            out.error("not trusted: no terminal to ask on (give --yes to trust it from a script)")
            return ExitCode.USAGE
        out.note(f"Trust {sanitize_line(folder)}: run and connect to what is listed above? [y/N] ", end="")
        if sys.stdin.readline().strip().lower() not in ("y", "yes"):
            out.note("not trusted")
            return ExitCode.NOT_RUN
    # Exactly the files as listed (the hashes of what was read and shown): a change since asks again.
    store.trust(folder, gate.files)
    count = f"{len(gate.files)} file{'' if len(gate.files) == 1 else 's'}"
    out.line(f"trusted {sanitize_line(folder)} ({count}; recorded in {sanitize_line(store.path)})")
    return ExitCode.OK


def revoke(context: Context, store: TrustStore) -> int:
    from rea_tui.host import sanitize_line

    folder = folder_of(context.args.path) if Path(context.args.path).exists() else Path(context.args.path).absolute()
    if store.revoke(folder):
        context.out.line(f"no longer trusted: {sanitize_line(folder)}")
    else:
        context.out.line(f"{sanitize_line(folder)} was not trusted")
    return ExitCode.OK


def list_trusted(context: Context, store: TrustStore) -> int:
    from rea_tui.host import sanitize_line, trust_gate

    out = context.out
    folders = store.folders()
    for name, entry in sorted(folders.items()):
        out.line(f"{sanitize_line(name)}  (trusted {sanitize_line(entry.get('trusted_at', '?'))})")
        folder = Path(name)
        if not folder.is_dir():
            out.line("  (the folder is gone)")
            continue
        gate = trust_gate(folder, store)
        for file in gate.files:
            out.line(f"  {sanitize_line(file.name)}: {'trusted' if file.trusted else file.reason()}")
        recorded = entry.get("files") if isinstance(entry.get("files"), dict) else {}
        for gone in sorted(set(recorded or {}) - {f.name for f in gate.files}):
            out.line(f"  {sanitize_line(gone)}: removed since")
    if not folders:
        out.line("no trusted folders")
    out.note(f"trust store: {sanitize_line(store.path)}")
    return ExitCode.OK


COMMAND = Command("trust", HELP, configure, run, server_options=False, description=DESCRIPTION)
