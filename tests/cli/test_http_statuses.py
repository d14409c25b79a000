"""HTTP statuses are reported as HTTP, not as the JSON-RPC stand-ins the SDK makes of them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.cli import rea_many
from tests.conftest import start_http_server


@pytest.fixture
def unavailable_url() -> Iterator[str]:
    process, url = start_http_server(["-m", "tests.support.status_server", "503"], r"listening on (http://\S+)")
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_404_is_no_mcp_endpoint_and_5xx_a_server_error(sample_http_url: str, unavailable_url: str) -> None:
    wrong_path = sample_http_url.rsplit("/", 1)[0] + "/not-mcp"
    missing, missing_json, down, listed, listed_json = rea_many(
        ("tools", "--url", wrong_path),
        ("servers", "--json", "--url", wrong_path),
        ("prompts", "--url", unavailable_url),
        ("servers", "--url", unavailable_url),
        ("servers", "--json", "--url", unavailable_url),
    )
    missing.expect(3)
    assert f"no MCP endpoint at {wrong_path} (HTTP 404)" in missing.err
    assert "-32601" not in missing.err
    [row] = missing_json.expect(3).json()["servers"]
    assert "HTTP 404" in row["error"]["message"] and row["rea"]["exitCode"] == 3
    down.expect(3)
    assert f"server error at {unavailable_url}: HTTP 503" in down.err
    assert "-32603" not in down.err
    # `servers` exits the same way in text and JSON when a server failed.
    listed.expect(3)
    assert "HTTP 503" in listed.out
    [row] = listed_json.expect(3).json()["servers"]
    assert row["rea"]["status"] == "error" and row["rea"]["exitCode"] == 3
