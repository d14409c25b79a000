"""A stand-in for the person at the browser: `$BROWSER` for tests and the conformance client.

`python tests/support/headless_signin.py URL` opens the authorization URL the
way a browser would, follows the authorization server's redirects (to the
loopback listener rea-tui runs on 127.0.0.1) and exits 0 once the listener
answered. It approves nothing itself: the authorization server decides.

`--deny URL` plays a person who clicks "deny": it calls the listener with
`error=access_denied` and the request's own `state`, without asking the
authorization server. `--wrong-state PAGE URL` first calls the listener with a
forged code and a wrong `state` (as another page could), writes the status
and page it got to the file PAGE, then signs in as usual.
"""

from __future__ import annotations

import sys
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit


def _callback(authorization_url: str, **params: str) -> tuple[int, str]:
    """Call the listener named by the request's redirect_uri with `params`; its status and page."""
    query = parse_qs(urlsplit(authorization_url).query)
    target = f"{query['redirect_uri'][0]}?{urlencode(params)}"
    try:
        with urllib.request.urlopen(target, timeout=30) as response:
            return response.status, response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as refused:
        return refused.code, refused.read().decode("utf-8", "replace")


def main() -> int:
    args = sys.argv[1:]
    if args[0] == "--deny":
        state = parse_qs(urlsplit(args[1]).query)["state"][0]
        _callback(args[1], error="access_denied", error_description="the person said no", state=state)
        return 0
    if args[0] == "--wrong-state":
        status, page = _callback(args[2], code="forged-code", state="not-the-state")
        Path(args[1]).write_text(f"{status}\n{page}", encoding="utf-8")
        args = args[2:]
    with urllib.request.urlopen(args[0], timeout=30) as response:  # follows 30x like a browser
        response.read()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
