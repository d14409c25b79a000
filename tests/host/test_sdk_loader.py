"""What runs once the MCP SDK is loaded: once, in the thread that loaded it, or at once when it is loaded already.

Each case runs in a fresh interpreter: the test process has loaded the SDK long ago.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO
from tests.support.import_gate import gated_environment

SCRIPT = """
import sys, threading
from rea_tui.host import after_sdk_load
from rea_tui.host.protocol.sdk_loader import load_sdk
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


# The host's own SDK import held at its gate (the shim of `mcp_types` first on the path), a request made
# while the connection comes up must not import the SDK on the event loop's thread: that import would
# wait for the held one, freezing the loop (and, with the locks taken in another order, deadlock).
HELD_IMPORT = """
import asyncio, dataclasses, os, sys, threading, time
from pathlib import Path
from rea_tui.host import Session
from tests.conftest import sample_spec
from tests.support.import_gate import GATE_ENVIRONMENT

GATE_OPENS_AFTER = 1.5  # seconds, opened from a timer thread whatever the loop does

async def main():
    # The server's own imports are not held: its PYTHONPATH leaves the shim out.
    spec = dataclasses.replace(sample_spec("legacy"), env={"PYTHONPATH": os.getcwd()})
    session = Session([spec], remember_protocols=False)
    connecting = asyncio.create_task(session.connect("sample"))
    while "mcp_types" not in sys.modules:  # the loading thread is inside the held shim
        await asyncio.sleep(0.01)
    opened = threading.Event()

    def open_gate():
        Path(os.environ[GATE_ENVIRONMENT]).touch()
        opened.set()

    threading.Timer(GATE_OPENS_AFTER, open_gate).start()
    hosted = session.hosted("sample")
    listing = asyncio.create_task(hosted.connection.request("tools/list"))
    # The longest pause of a tick that began while the gate was shut (the SDK's import after it is not counted).
    longest, last = 0.0, time.monotonic()
    while not listing.done():
        began_shut = not opened.is_set()
        await asyncio.sleep(0.01)
        now = time.monotonic()
        if began_shut:
            longest = max(longest, now - last)
        last = now
    tools = listing.result()["tools"]
    await connecting
    await session.close()
    print(f"{longest:.2f}", len(tools) > 0)

asyncio.run(main())
"""
# The loop's longest pause while the import was held; the gate stays shut for 1.5 s.
MAX_LOOP_PAUSE_SECONDS = 0.5


def test_a_request_while_the_sdk_loads_leaves_the_import_to_the_loading_thread(tmp_path: Path) -> None:
    env = gated_environment("gate_sdk", tmp_path / "sdk-gate")
    result = subprocess.run(
        [sys.executable, "-c", HELD_IMPORT], capture_output=True, text=True, cwd=REPO, timeout=60, env=env
    )
    assert result.returncode == 0, result.stderr[-3000:]
    pause, listed = result.stdout.split()
    assert listed == "True"
    assert float(pause) < MAX_LOOP_PAUSE_SECONDS, f"the event loop stopped for {pause} s on the held import"
