"""`rea-tui web`'s access log shows no token: not in the request line, not in a Referer, not a wrong guess."""

from __future__ import annotations

import os
import subprocess
import sys
from urllib.parse import parse_qs, urlsplit

import aiohttp

from rea_tui.ui.web_server import REDACTED
from tests.conftest import REPO
from tests.ui.test_web import URL, free_port, wait_listening


async def test_the_access_log_redacts_the_token() -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "rea_tui", "web", "--port", str(port), "--", sys.executable, "-m", "rea_tui.server"],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "COLUMNS": "400"},  # one log line per request, however long
    )
    assert process.stdout is not None
    url = ""
    for line in process.stdout:
        found = URL.search(line)
        if found:
            url = found.group(1)
            break
    assert url, "rea-tui web printed no URL"
    token = parse_qs(urlsplit(url).query)["token"][0]
    base = f"http://127.0.0.1:{port}"
    try:
        await wait_listening(port)
        async with aiohttp.ClientSession() as client:
            async with client.get(url) as page:
                assert page.status == 200
            async with client.get(f"{base}/?token=a-wrong-guess") as refused:
                assert refused.status == 403
            async with client.get(f"{base}/static/nothing.js", headers={"Referer": url}) as static:
                assert static.status in (200, 404)
    finally:
        process.terminate()
        log, _ = process.communicate(timeout=30)
    assert "GET /?token=" in log, log
    assert token not in log and "a-wrong-guess" not in log, log
    assert log.count(f"token={REDACTED}") >= 3, log
