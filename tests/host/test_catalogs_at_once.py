"""A server's four lists are asked for at once when it connects, not one after another."""

from __future__ import annotations

import sys
import textwrap

from rea_tui.host.config import ServerSpec
from rea_tui.host.hosted import HostedServer

# Answers the list methods only once all four have arrived (or, if they never do, after a while,
# so a host that asks one at a time still connects, just with the order showing it).
HOLDING_SERVER = textwrap.dedent(
    """
    import json, os, select, sys

    LISTS = {"prompts/list": "prompts", "tools/list": "tools", "resources/list": "resources",
             "resources/templates/list": "resourceTemplates"}
    HOLD_SECONDS = 3.0
    held = []

    def send(message):
        sys.stdout.write(json.dumps(message) + "\\n")
        sys.stdout.flush()

    def release():
        for message in held:
            send({"jsonrpc": "2.0", "id": message["id"], "result": {LISTS[message["method"]]: []}})
        held.clear()

    def messages():
        # Unbuffered reads: select() must see every line that arrives, not a buffer's worth.
        pending = b""
        while True:
            ready, _, _ = select.select([0], [], [], HOLD_SECONDS if held else None)
            if not ready:
                release()
                continue
            chunk = os.read(0, 65536)
            if not chunk:
                return
            pending += chunk
            *lines, pending = pending.split(b"\\n")
            for line in lines:
                if line.strip():
                    yield json.loads(line)

    for message in messages():
        method = message.get("method")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": message["id"], "result": {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"prompts": {}, "tools": {}, "resources": {}},
                "serverInfo": {"name": "holding", "version": "1"}}})
        elif method in LISTS:
            held.append(message)
            if len(held) == len(LISTS):
                release()
        elif "id" in message:
            send({"jsonrpc": "2.0", "id": message["id"], "error": {"code": -32601, "message": "no"}})
    """
)


async def test_the_four_lists_are_all_asked_for_before_any_answer() -> None:
    spec = ServerSpec(
        name="holding", transport="stdio", command=sys.executable, args=("-c", HOLDING_SERVER), protocol="legacy"
    )
    hosted = HostedServer(spec, timeout=30.0)
    try:
        await hosted.start()
        entries = [e for e in hosted.connection.traffic.entries() if e.method.endswith("/list")]
        sent = [i for i, e in enumerate(entries) if e.direction == "out"]
        answered = [i for i, e in enumerate(entries) if e.direction == "in"]
        assert len(sent) == 4 and len(answered) == 4
        assert max(sent) < min(answered), [(e.direction, e.method) for e in entries]
    finally:
        await hosted.close()
