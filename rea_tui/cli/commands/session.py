"""`rea-tui session start|status|attach|stop`: a warm session for the shell, in the manner of ssh-agent.

`eval "$(rea-tui session start [server options])"` starts a background host
(`rea_tui.cli.session_host`) that keeps the servers connected and sets
REA_TUI_SESSION to its socket; every command run with it set goes through
that session. `rea-tui session attach` opens the TUI on the same live session
(ctrl+q leaves it running). `eval "$(rea-tui session stop)"` ends it and
unsets the variable.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import shlex
import subprocess
import sys

from rea_tui.cli.command import Command, Context, UsageError
from rea_tui.cli.exit_codes import ExitCode

HOST_MODULE = "rea_tui.cli.session_host"
HOST_LOG = "host.log"
READY_LIMIT = 1024 * 1024


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action",
        choices=("start", "status", "attach", "stop"),
        help="start one (prints the shell commands to eval), show the one in REA_TUI_SESSION, open the TUI on it"
        " (quitting the TUI leaves the session running), or end it",
    )
    parser.add_argument(
        "--idle",
        type=float,
        metavar="SECONDS",
        help="start: end the session after this long with no command (default: $REA_TUI_SESSION_IDLE, else 1800)",
    )
    parser.add_argument("-c", "--csh", action="store_true", help="write csh commands (setenv) instead of sh ones")


def run(context: Context) -> int:
    action = context.args.action
    if action == "start":
        return start(context)
    from rea_tui.cli import session_wire as wire
    from rea_tui.cli.session_client import exchange, session_path

    path = session_path()
    if path is None:
        context.out.error('no warm session here: REA_TUI_SESSION is not set (eval "$(rea-tui session start)")')
        return ExitCode.UNAVAILABLE
    out = context.out
    if action == "attach":
        from rea_tui.cli.session_client import attach

        return attach(path)
    if action == "status":
        code = exchange(path, wire.encode("status", json=bool(context.args.json)), out.stdout, out.stderr)
        return ExitCode.OK if code is None else code
    code = exchange(path, wire.encode("stop"), out.stdout, out.stderr)
    if code == ExitCode.OK:
        out.line("unsetenv REA_TUI_SESSION;" if context.args.csh else "unset REA_TUI_SESSION;")
    return ExitCode.OK if code is None else code


def start(context: Context) -> int:
    from rea_tui.cli.session_place import SESSION_ENV, idle_seconds, sessions_folder
    from rea_tui.host import sanitize

    args, out = context.args, context.out
    idle = idle_seconds(args.idle)
    if idle <= 0:
        raise UsageError("--idle must be more than 0 seconds")
    folder = sessions_folder()
    read_end, write_end = os.pipe()
    # The host's own stderr (a traceback, should it fail) goes to a private log beside the sockets.
    log_fd = os.open(folder / HOST_LOG, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        command = [sys.executable, "-m", HOST_MODULE, "--ready-fd", str(write_end)]
        command += ["--timeout", str(args.timeout), "--idle", str(idle)]
        process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=log_fd,
            pass_fds=(write_end,),
            start_new_session=True,  # not the shell's job: closing the terminal does not end it
        )
    finally:
        os.close(write_end)
        os.close(log_fd)
    assert process.stdin is not None
    with process.stdin:
        process.stdin.write(pickle.dumps(list(context.specs)))
    with os.fdopen(read_end, "rb") as ready_pipe:
        said = ready_pipe.readline(READY_LIMIT)
    try:
        ready = json.loads(said) if said else {}
    except ValueError:
        ready = {}
    if not isinstance(ready, dict) or "socket" not in ready:
        code = process.wait()
        reason = ready.get("error") if isinstance(ready, dict) else None
        out.error(f"the session did not start: {sanitize(str(reason or f'its host exited with {code}'))}")
        for name, error in (ready.get("servers") or {}).items() if isinstance(ready, dict) else ():
            out.error(f"{sanitize(name)}: {sanitize(str(error))}")
        if reason is None:
            out.error(f"see {sanitize(str(folder / HOST_LOG))}")
        return ExitCode.UNAVAILABLE
    for name, error in (ready.get("failed") or {}).items():
        out.error(f"{sanitize(name)} is not in the session: {sanitize(str(error))}")
    socket_path = shlex.quote(str(ready["socket"]))
    if args.csh:
        out.line(f"setenv {SESSION_ENV} {socket_path};")
    else:
        out.line(f"{SESSION_ENV}={socket_path}; export {SESSION_ENV};")
    names = ", ".join(sanitize(spec.name) for spec in context.specs)
    out.note(
        f"rea-tui: session {ready.get('pid')} up ({names}); it ends after {idle:g} s unused; "
        'end it with: eval "$(rea-tui session stop)"'
    )
    return ExitCode.OK


COMMAND = Command(
    "session",
    'a warm session for the shell: eval "$(rea-tui session start)", then every command goes through it',
    configure,
    run,
)
