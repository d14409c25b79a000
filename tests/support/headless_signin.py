"""A stand-in for the person at the browser: `$BROWSER` for tests and the conformance client.

`python tests/support/headless_signin.py URL` opens the authorization URL the
way a browser would, follows the authorization server's redirects (to the
loopback listener rea-tui runs on 127.0.0.1) and exits 0 once the listener
answered. It approves nothing itself: the authorization server decides.
"""

from __future__ import annotations

import sys
import urllib.request


def main() -> int:
    with urllib.request.urlopen(sys.argv[1], timeout=30) as response:  # follows 30x like a browser
        response.read()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
