"""A transcript written by `rea-tui run` (a headless session) replays in the TUI like a TUI session's."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from rea_tui.host.records.replay_plan import plan_replay
from rea_tui.host.records.transcript import read_transcript
from tests.conftest import REPO
from tests.support.pilot import make_app, screen_text, wait_for

SIZE = (160, 48)
STATEFUL = f"{shlex.quote(sys.executable)} -m tests.support.stateful_server"


async def test_a_run_transcript_replays_offline(tmp_path: Path) -> None:
    script = tmp_path / "trace.rea"
    script.write_text("call start --yes\ncall count --yes\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "REA_TUI_SESSION"}
    done = subprocess.run(
        [sys.executable, "-m", "rea_tui", "run", str(script), "--stdio", STATEFUL],
        cwd=REPO,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    found = re.search(r"^transcript: (.+)$", done.stderr, re.M)
    assert found, done.stderr
    transcript = read_transcript(Path(found.group(1)))
    offline = make_app([], replay=plan_replay(transcript), offline=True)
    async with offline.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(offline.session.ledger.entries) == 2, what="restore")
        entries = offline.session.ledger.entries
        assert [(e.tool, e.outcome, e.approval) for e in entries] == [
            ("start", "ok", "recorded: --yes"),
            ("count", "ok", "recorded: --yes"),
        ]
        await wait_for(pilot, lambda: "replay (offline, read-only)" in screen_text(offline), "the replay header")
        # The evidence list shows both calls, as it shows a TUI session's.
        await wait_for(pilot, lambda: "H2 ✓ ok  count" in screen_text(offline), "the evidence list")
        assert "H1 ✓ ok  start" in screen_text(offline)
