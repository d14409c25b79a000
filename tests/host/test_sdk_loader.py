"""What runs once the MCP SDK is loaded: once, in the thread that loaded it, or at once when it is loaded already.

Each case runs in a fresh interpreter: the test process has loaded the SDK long ago.
"""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO

SCRIPT = """
import sys, threading
from rea_tui.host import after_sdk_load
from rea_tui.host.sdk_loader import load_sdk
assert "mcp" not in sys.modules, "the hook's module imported the SDK"
calls = []
after_sdk_load(lambda: calls.append(("first", threading.current_thread().name, "mcp.client.session" in sys.modules)))
after_sdk_load(lambda: calls.append(("second", threading.current_thread().name, True)))
loaders = [threading.Thread(target=load_sdk, name=f"loader {n}") for n in range(3)]
for loader in loaders:
    loader.start()
for loader in loaders:
    loader.join()
load_sdk()
print(len(calls), calls[0][0], calls[1][0], calls[0][1].startswith("loader"), calls[0][2])
after_sdk_load(lambda: calls.append(("late", threading.current_thread().name, True)))
print(calls[-1][0], calls[-1][1])
"""


def test_hooks_run_once_in_the_loading_thread_and_a_late_one_at_once() -> None:
    result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert result.returncode == 0, result.stderr
    first, late = result.stdout.splitlines()
    # Three threads and one more call load it; each hook ran once, in a loading thread, after the import.
    assert first == "2 first second True True"
    assert late == "late MainThread"
