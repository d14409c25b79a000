"""Where a stdio server runs: a process group of its own in the host's session; below the host in a crowd."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace

import pytest

from rea_tui.host.config.config import ServerSpec
from rea_tui.host.transports.server_start import start_servers
from rea_tui.host.transports.transport import CROWD_NICENESS_STEP, MAX_NICENESS, crowd_niceness, start_server_process

REPORTS = "import json, os; print(json.dumps([os.getpgid(0), os.getsid(0), os.getpriority(os.PRIO_PROCESS, 0)]))"


def report(process: subprocess.Popen[bytes]) -> tuple[int, int, int]:
    output, _ = process.communicate(timeout=30)
    group, session, niceness = json.loads(output)
    return group, session, niceness


def own_niceness(step: int) -> int:
    return min(os.getpriority(os.PRIO_PROCESS, 0) + step, MAX_NICENESS)


SPEC = ServerSpec(name="child", transport="stdio", command=sys.executable, args=("-c", REPORTS))


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="no process priorities here")
def test_a_server_has_its_own_group_in_the_hosts_session_at_the_hosts_priority() -> None:
    process = start_server_process(SPEC)
    group, session, niceness = report(process)
    assert group == process.pid, "its own process group: the terminal's keys do not reach it, closing kills all"
    assert session == os.getsid(0), "the host's session, so the two share one scheduling autogroup"
    assert niceness == own_niceness(0)


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="no process priorities here")
def test_more_servers_than_cores_start_below_the_screen() -> None:
    cores = os.cpu_count() or 1
    assert crowd_niceness(cores) == 0 and crowd_niceness(cores + 1) == CROWD_NICENESS_STEP
    few = start_servers([replace(SPEC, name=f"few-{n}") for n in range(cores)])
    assert {report(p)[2] for p in few.values()} == {own_niceness(0)}
    crowd = start_servers([replace(SPEC, name=f"crowd-{n}") for n in range(cores + 1)])
    assert {report(p)[2] for p in crowd.values()} == {own_niceness(CROWD_NICENESS_STEP)}
