"""The four lists at start: answered by the stdio front before the SDK has loaded, exactly as the SDK answers them.

A raw JSON-RPC client writes the opening request and the four lists at spawn,
with the server's SDK import held (`tests/support/import_gate.py`): the
replies arrive while it is held, so they came from the front. Once the gate
opens, the same lists asked again are answered by the SDK, and each early
reply equals the SDK's reply byte for byte (the id aside); no request gets a
second reply, and the server logs no difference. What the front leaves (a
cursor, an unknown version, `--open-first`) is answered by the SDK once it
has loaded. Hostile lines never stop the reader or double a reply.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from tests.server.test_startup import INITIALIZE, RawClient, raw_server, stderr_of
from tests.support.import_gate import gated_environment

LISTS = ("prompts/list", "tools/list", "resources/list", "resources/templates/list")
MODERN = "2026-07-28"
META = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}, "roots": {"listChanged": True}},
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
QUIET_SECONDS = 0.5
"""How long a client watches for a reply that must not come (yet)."""


def request(request_id: Any, method: str, generation: str, **params: Any) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if generation == MODERN:
        params["_meta"] = META
    if params:
        message["params"] = params
    return message


def opening(generation: str) -> list[dict[str, Any]]:
    if generation == MODERN:
        return [request("open", "server/discover", MODERN)]
    return [{**INITIALIZE, "id": "open"}, INITIALIZED]


def held_sdk(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    gate = tmp_path / "sdk-gate"
    return gate, gated_environment("gate_sdk", gate)


def ids_of(messages: list[dict[str, Any]]) -> list[Any]:
    return [m["id"] for m in messages if "method" not in m]


@pytest.mark.parametrize("generation", ["legacy", MODERN])
def test_the_lists_answered_early_are_the_sdk_replies_byte_for_byte_and_sent_once(
    tmp_path: Path, generation: str
) -> None:
    gate, env = held_sdk(tmp_path)
    with raw_server("--no-target", env=env) as client:
        for message in opening(generation):
            client.send(message)
        for number, method in enumerate(LISTS):
            client.send(request(number, method, generation))
        early = {}
        for _ in range(1 + len(LISTS)):
            line = client.receive_line()
            early[json.loads(line)["id"]] = line
        assert not gate.exists(), "every list was answered while the SDK import was held"
        assert sorted(early, key=str) == sorted(["open", *range(len(LISTS))], key=str)

        gate.touch()
        for number, method in enumerate(LISTS):
            client.send(request(100 + number, method, generation))
        later = {}
        while len(later) < len(LISTS):
            message = json.loads(line := client.receive_line())
            assert "method" not in message, f"nothing else on a connection with no target: {message}"
            later[message["id"]] = line
        for number in range(len(LISTS)):
            sdk = later[100 + number].replace(f'"id":{100 + number},'.encode(), f'"id":{number},'.encode(), 1)
            assert early[number] == sdk, f"{LISTS[number]}: the early reply is the SDK's, byte for byte"
        assert client.arriving(QUIET_SECONDS) == [], "no second reply to a request answered early"
    assert "differs" not in stderr_of(client)


def lists_left_to_the_sdk(client: RawClient, gate: Path, generation: str, leave: dict[str, Any]) -> dict[str, Any]:
    """`leave` written after the opening: not answered while the SDK is held; the SDK's reply once it loads."""
    for message in opening(generation):
        client.send(message)
    client.send(leave)
    assert ids_of([client.next_response()]) == ["open"]
    assert client.arriving(QUIET_SECONDS) == [], "left to the SDK"
    gate.touch()
    reply = client.reply_to(leave["id"])
    assert client.arriving(QUIET_SECONDS) == []
    return reply


@pytest.mark.parametrize("generation", ["legacy", MODERN])
def test_a_list_with_a_cursor_is_left_to_the_sdk(tmp_path: Path, generation: str) -> None:
    gate, env = held_sdk(tmp_path)
    with raw_server("--no-target", env=env) as client:
        reply = lists_left_to_the_sdk(client, gate, generation, request(1, "tools/list", generation, cursor="next"))
        assert reply["error"]["code"] == -32602
    assert "differs" not in stderr_of(client)


def test_a_list_at_an_unknown_version_is_left_to_the_sdk(tmp_path: Path) -> None:
    gate, env = held_sdk(tmp_path)
    unknown = request(1, "prompts/list", MODERN)
    unknown["params"]["_meta"] = {**META, "io.modelcontextprotocol/protocolVersion": "2099-01-01"}
    with raw_server("--no-target", env=env) as client:
        reply = lists_left_to_the_sdk(client, gate, MODERN, unknown)
        assert reply["error"]["code"] == -32022
    assert "differs" not in stderr_of(client)


@pytest.mark.parametrize("generation", ["legacy", MODERN])
def test_with_open_first_the_lists_wait_for_the_sdk_and_the_target(tmp_path: Path, generation: str) -> None:
    gate, env = held_sdk(tmp_path)
    with raw_server("--synthetic", "10", "--open-first", env=env) as client:
        reply = lists_left_to_the_sdk(client, gate, generation, request(1, "prompts/list", generation))
        described = reply["result"]["prompts"][0]["description"]
        assert "Active target: synthetic" in described and "opening" not in described
    assert "differs" not in stderr_of(client)


def test_a_target_ready_after_the_early_list_is_announced_and_the_next_list_names_it(tmp_path: Path) -> None:
    """The early prompt list says the target is still opening; the SDK's copy says the same (the target
    opens once the SDK has replied to the early requests), and its readiness is announced."""
    gate, env = held_sdk(tmp_path)
    with raw_server("--synthetic", "10", env=env) as client:
        for message in opening("legacy"):
            client.send(message)
        client.send(request(1, "prompts/list", "legacy"))
        early = [client.next_response(), client.next_response()]
        assert not gate.exists()
        assert "(still opening)" in early[1]["result"]["prompts"][0]["description"]
        gate.touch()
        deadline = time.monotonic() + 30
        while client.receive().get("method") != "notifications/prompts/list_changed":
            assert time.monotonic() < deadline
        client.send(request(2, "prompts/list", "legacy"))
        assert "Active target: synthetic" in client.reply_to(2)["result"]["prompts"][0]["description"]
        assert ids_of(client.arriving(QUIET_SECONDS)) == []
    assert "differs" not in stderr_of(client)


HOSTILE_LINES = [
    b"not json\n",
    b"[" * 100_000 + b"\n",
    b'{"jsonrpc":"2.0","id":"\\ud800","method":"tools/list"}\n',
    b'{"jsonrpc":"2.0","id":' + b"9" * 400 + b',"method":"tools/list"}\n',
    b'{"jsonrpc":"2.0","id":7,"id":8,"method":"tools/list"}\n',
    b'{"jsonrpc":"2.0","id":"\xff\xfe","method":"ping"}\n',
    b'{"jsonrpc":"2.0","id":1.5,"method":"tools/list"}\n',
    b"\xef\xbb\xbf\n",
]

SDK_ANSWERS = [int("9" * 400), 8, "\ufffd\ufffd"]
"""The ids of the hostile lines the SDK reads as requests (a duplicate key: the last one counts; invalid
UTF-8: replaced), each answered once."""


@pytest.mark.parametrize("where", ["after the early replies", "before the opening"])
def test_hostile_lines_never_stop_the_reader_nor_double_a_reply(tmp_path: Path, where: str) -> None:
    gate, env = held_sdk(tmp_path)
    hostile = b"".join(HOSTILE_LINES)
    with raw_server("--no-target", env=env) as client:
        assert client.process.stdin is not None
        if where == "before the opening":
            client.process.stdin.write(hostile)
        for message in [*opening("legacy"), request(1, "tools/list", "legacy"), request(1, "tools/list", "legacy")]:
            client.send(message)
        if where == "after the early replies":
            assert ids_of([client.next_response() for _ in range(3)]) == ["open", 1, 1]
            client.process.stdin.write(hostile)
        client.process.stdin.flush()
        client.send(request(2, "prompts/list", "legacy"))
        gate.touch()
        client.send(request(3, "ping", "legacy"))
        seen = []
        while 3 not in seen:
            seen += ids_of([client.receive()])
        seen += ids_of(client.arriving(QUIET_SECONDS * 2))
    log = stderr_of(client)
    assert "differs" not in log and "Traceback" not in log, log
    if where == "after the early replies":
        assert sorted(map(str, seen)) == sorted(map(str, [2, 3, *SDK_ANSWERS]))
    else:
        assert sorted(map(str, seen)) == sorted(map(str, ["open", 1, 1, 2, 3, *SDK_ANSWERS]))
