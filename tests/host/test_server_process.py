"""Where a stdio server runs: a process group of its own, the host's session, a lower priority than the host."""

from __future__ import annotations

import json
import os
import sys

import pytest

from rea_tui.host.config import ServerSpec
from rea_tui.host.transport import MAX_NICENESS, SERVER_NICENESS_STEP, start_server_process

REPORTS = "import json, os; print(json.dumps([os.getpgid(0), os.getsid(0), os.getpriority(os.PRIO_PROCESS, 0)]))"


@pytest.mark.skipif(not hasattr(os, "setpriority"), reason="no process priorities here")
def test_a_server_has_its_own_group_in_the_hosts_session_below_the_host() -> None:
    spec = ServerSpec(name="child", transport="stdio", command=sys.executable, args=("-c", REPORTS))
    process = start_server_process(spec)
    output, _ = process.communicate(timeout=30)
    group, session, niceness = json.loads(output)
    assert group == process.pid, "its own process group: the terminal's keys do not reach it, closing kills all"
    assert session == os.getsid(0), "the host's session, so the two share one scheduling autogroup"
    assert niceness == min(os.getpriority(os.PRIO_PROCESS, 0) + SERVER_NICENESS_STEP, MAX_NICENESS)
