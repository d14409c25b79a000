"""Starting the configured stdio servers together, before anything connects to them."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Sequence

from rea_tui.host.config.config import ServerSpec
from rea_tui.host.config.deferred_inputs import pending_inputs
from rea_tui.host.protocol.errors import ServerUnavailable
from rea_tui.host.transports.transport import crowd_niceness, start_server_process


def start_servers(specs: Sequence[ServerSpec]) -> dict[str, subprocess.Popen[bytes]]:
    """Start the stdio servers now, so they boot while the caller loads the rest (the TUI: Textual).

    Not one whose entry still waits for an `${input:NAME}` value: it starts once the analyst gave it.
    More of them than CPU cores start below the caller's priority (`crowd_niceness`). A command that
    cannot start is left out: connecting to it reports why.
    """
    starting = [spec for spec in specs if spec.transport == "stdio" and not pending_inputs(spec)]
    niceness = crowd_niceness(len(starting))
    started: dict[str, subprocess.Popen[bytes]] = {}
    for spec in starting:
        with contextlib.suppress(ServerUnavailable):
            started[spec.name] = start_server_process(spec, niceness=niceness)
    return started
