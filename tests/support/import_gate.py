"""Hold a server's import of one package until the test opens a gate, to observe what happens meanwhile.

A shim package of the same name (`gate_lief/lief`, `gate_sdk/mcp_types`) is
put first on the server's PYTHONPATH. Importing it waits until the file named
by `REA_TEST_IMPORT_GATE` exists, then loads the real package in its place, so
the server runs unchanged once the gate is open. Tests use it to hold the
background target opening (LIEF) or the SDK import at a point they choose.
"""

from __future__ import annotations

import importlib
import os
import sys
import time
from pathlib import Path

GATE_ENVIRONMENT = "REA_TEST_IMPORT_GATE"
POLL_SECONDS = 0.02
SUPPORT = Path(__file__).resolve().parent


def hold_then_load(name: str, shim_root: str) -> None:
    """Called by a shim's `__init__`: wait for the gate, then replace the shim with the real `name`."""
    gate = os.environ[GATE_ENVIRONMENT]
    while not os.path.exists(gate):
        time.sleep(POLL_SECONDS)
    root = os.path.abspath(shim_root)
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != root]
    del sys.modules[name]
    # The import statement that loaded the shim returns whatever sys.modules holds now: the real package.
    importlib.import_module(name)


def gated_environment(shim: str, gate: Path) -> dict[str, str]:
    """The environment for a server whose import of the shimmed package waits for `gate`."""
    root = SUPPORT / shim
    existing = os.environ.get("PYTHONPATH")
    path = f"{root}{os.pathsep}{existing}" if existing else str(root)
    return {**os.environ, "PYTHONPATH": path, GATE_ENVIRONMENT: str(gate)}
