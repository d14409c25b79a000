"""`rea-tui sessions`, `--prune` and `export`, run as the real command on transcripts in the sessions folder."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.cli import rea


def sessions_folder() -> Path:
    # The test's isolated XDG data folder (tests/conftest.py), which the command inherits.
    folder = Path(os.environ["XDG_DATA_HOME"]) / "rea-tui" / "sessions"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def transcript(name: str, *events: dict[str, object], torn: str = "") -> Path:
    path = sessions_folder() / f"{name}.jsonl"
    lines = [json.dumps({"seq": i, "time": 1_800_000_000 + i, **e}) for i, e in enumerate(events, 1)]
    path.write_text("".join(f"{line}\n" for line in lines) + torn, encoding="utf-8")
    return path


START = {"type": "session", "version": "0.1", "pid": 1}
SERVER = {"type": "server", "name": "rea (bundled)"}
END = {"type": "session_end"}


def test_prune_removes_the_transcripts_in_which_nothing_happened_and_says_which() -> None:
    started_only = transcript("20260101-000001-1", START, SERVER, END)
    empty_file = transcript("20260101-000002-2")
    torn_start = transcript("20260101-000003-3", START, torn='{"seq": 2, "type": "ser')
    with_note = transcript("20260101-000004-4", START, {"type": "note", "number": 1, "kind": "unknown", "text": "x"})
    # Killed mid-session (no session_end, a torn last line): its evidence stays.
    killed = transcript(
        "20260101-000005-5", START, SERVER, {"type": "tool_call", "id": "E1", "tool": "doctor"}, torn='{"seq"'
    )
    listed = rea("sessions").expect(0).out
    assert f"{started_only.name}" in listed and "(empty: --prune removes it)" in listed
    assert listed.count("(empty: --prune removes it)") == 3

    pruned = rea("sessions", "--prune").expect(0).out.splitlines()
    assert sorted(pruned[:-1]) == sorted(f"removed {p.name}" for p in (started_only, empty_file, torn_start))
    assert pruned[-1].startswith("3 empty transcripts removed from ")
    assert not started_only.exists() and not empty_file.exists() and not torn_start.exists()
    assert with_note.exists() and killed.exists()

    again = rea("sessions", "--prune", "--json").expect(0).json()
    assert again["removed"] == []
    rows = rea("sessions", "--json").expect(0).json()["sessions"]
    assert {Path(r["path"]).name: (r["empty"], r["ended"]) for r in rows} == {
        with_note.name: (False, False),
        killed.name: (False, False),
    }
