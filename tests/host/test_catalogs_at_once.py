"""A server's four lists are asked for at once when it connects; a long one is parsed off the loop."""

from __future__ import annotations

import sys
import textwrap

from rea_tui.host.config.config import ServerSpec
from rea_tui.host.features.catalog import PARSE_OFF_LOOP_FROM
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


# A legacy server with more tools than the catalog parses on the event loop (PARSE_OFF_LOOP_FROM), one named
# with an escape sequence.
LONG_LIST_SERVER = textwrap.dedent(
    """
    import json, sys
    TOOLS = [{"name": f"tool_{n:04d}", "inputSchema": {"type": "object"}} for n in range(COUNT)]
    TOOLS[7]["name"] = "evil\\x1b[31mred"
    for line in sys.stdin:
        message = json.loads(line)
        method, ident = message.get("method"), message.get("id")
        if ident is None:
            continue
        if method == "initialize":
            result = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                      "serverInfo": {"name": "long", "version": "1"}}
        elif method == "tools/list":
            result = {"tools": TOOLS}
        else:
            print(json.dumps({"jsonrpc": "2.0", "id": ident, "error": {"code": -32601, "message": "no"}}), flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": ident, "result": result}), flush=True)
    """
)


async def test_a_long_list_is_parsed_off_the_loop_into_the_same_display_safe_items() -> None:
    count = PARSE_OFF_LOOP_FROM + 100
    source = f"COUNT = {count}\n{LONG_LIST_SERVER}"
    spec = ServerSpec(name="long", transport="stdio", command=sys.executable, args=("-c", source), protocol="legacy")
    hosted = HostedServer(spec, timeout=30.0)
    try:
        await hosted.start()
        names = [tool.name for tool in hosted.catalogs.tools.items]
        assert len(names) == count and names[0] == "tool_0000" and names[-1] == f"tool_{count - 1:04d}"
        assert "\x1b" not in names[7] and names[7].startswith("evil")
        assert hosted.catalogs.tools.get(names[7]) is not None
    finally:
        await hosted.close()
