"""Shim: waits for the test's gate, then loads the real `mcp_types` (see tests/support/import_gate.py)."""

import os

from tests.support.import_gate import hold_then_load

hold_then_load(__name__, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
