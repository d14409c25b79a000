"""A process for run_process_capture to run that leaves children behind.

`python tests/support/capture_children.py SECONDS` starts `sleep 60` as a
child (in its own process group, like any child), prints
`child=<pid> group=<its process group> leader=<own pid>` and then waits
SECONDS before exiting, so tests can prove the whole group is killed when a
capture ends, whether by the time limit or by the process exiting.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

CHILD_SECONDS = "60"


def main() -> int:
    wait = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
    child = subprocess.Popen(["sleep", CHILD_SECONDS], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(f"child={child.pid} group={os.getpgid(child.pid)} leader={os.getpid()}", flush=True)
    time.sleep(wait)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
