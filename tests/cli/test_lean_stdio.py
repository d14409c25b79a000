"""`prompts` and `tools` on a stdio server that spoke 2026-07-28 before: asked directly, with no SDK.

Each command runs as users get it and with `REA_TUI_FULL_PATH=1`; stdout, stderr and the exit
code must be the same. Whether the SDK was loaded shows which path ran.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.cli import PYTHON, REPO, raw, rea

# A server that speaks only the legacy handshake (anything else is "method not found").
LEGACY = raw("nocomplete")
REFERENCE = ("--", PYTHON, "-m", "rea_tui.server", "--synthetic", "200", "--seed", "0", "--open-first")
FULL = {"REA_TUI_FULL_PATH": "1"}
LISTINGS = (("prompts", "--json"), ("prompts",), ("tools", "--json"), ("tools",))
# The command run in-process, then whether the SDK was imported, on the last line of stderr.
REPORTING_SDK = (
    "import sys\n"
    "from rea_tui.cli import run\n"
    "run(sys.argv[1:])\n"
    "print('SDK' if 'mcp' in sys.modules else 'NO SDK', file=sys.stderr)\n"
)


def loads_sdk(*args: str, env: dict[str, str] | None = None) -> bool:
    result = subprocess.run(
        [PYTHON, "-c", REPORTING_SDK, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )
    return result.stderr.strip().splitlines()[-1] == "SDK"


def assert_same(*args: str) -> None:
    lean, full = rea(*args), rea(*args, env=FULL)
    assert (lean.code, lean.out, lean.err) == (full.code, full.out, full.err), args


def test_the_lists_of_a_known_2026_07_28_server_come_without_the_sdk_and_print_the_same() -> None:
    assert loads_sdk("prompts", "--json", *REFERENCE)  # seen first: the full path, which remembers it
    for args in LISTINGS:
        assert_same(*args, *REFERENCE)
    assert not loads_sdk("tools", "--json", *REFERENCE)
    assert loads_sdk("tools", "--json", *REFERENCE, env=FULL)


def test_a_legacy_server_keeps_the_full_path() -> None:
    rea("prompts", *LEGACY).expect(0)
    assert loads_sdk("prompts", *LEGACY)


def test_a_server_no_longer_speaking_2026_07_28_falls_back_to_the_full_path_with_the_same_output() -> None:
    rea("prompts", *LEGACY).expect(0)
    memory = Path(os.environ["XDG_CACHE_HOME"]) / "rea-tui" / "protocols.json"
    remembered = json.loads(memory.read_text(encoding="utf-8"))
    assert "legacy" in remembered.values()
    # As if the legacy server had answered 2026-07-28 last time: the lean client asks, then gives way.

    def as_if_modern() -> None:
        memory.write_text(json.dumps(dict.fromkeys(remembered, "modern")), encoding="utf-8")

    for args in LISTINGS:
        as_if_modern()
        lean = rea(*args, *LEGACY)
        full = rea(*args, *LEGACY, env=FULL)
        assert (lean.code, lean.out, lean.err) == (full.code, full.out, full.err), args
    as_if_modern()
    assert loads_sdk("prompts", *LEGACY)
    # The full path it fell back to remembers what the server speaks now.
    assert set(json.loads(memory.read_text(encoding="utf-8")).values()) == {"legacy"}


def test_a_server_that_exits_at_once_is_reported_as_the_full_path_reports_it() -> None:
    exiting = raw("exit")
    first = rea("prompts", *exiting)
    assert first.code != 0
    memory = Path(os.environ["XDG_CACHE_HOME"]) / "rea-tui" / "protocols.json"
    fingerprints = json.loads(memory.read_text(encoding="utf-8")) if memory.exists() else {}
    # Remembered as 2026-07-28 (an earlier version of it, say): the lean client starts it, it is gone.
    key = next(iter(fingerprints), None) or f"stdio {exiting[1]}"
    memory.parent.mkdir(parents=True, exist_ok=True)
    memory.write_text(json.dumps({key: "modern"}), encoding="utf-8")
    lean = rea("prompts", *exiting)
    memory.write_text(json.dumps({key: "modern"}), encoding="utf-8")
    full = rea("prompts", *exiting, env=FULL)
    assert (lean.code, lean.out, lean.err) == (full.code, full.out, full.err) == (first.code, first.out, first.err)
