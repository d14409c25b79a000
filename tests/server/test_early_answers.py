"""The stdio front's early answers (`early_answers`), against the SDK itself, in this process.

Hypothesis writes conversations a client might (well-formed openings and
lists, and mutations of them: cursors, extra params, unknown versions, odd
client identities and capabilities, reused, huge or ill-typed ids, lists
before the handshake, tool calls, cancellations) mixed with hostile lines
(bytes that are not JSON, lone surrogates, NaN, duplicate keys, deep
nesting, a byte-order mark, invalid UTF-8). Each is fed to `EarlyAnswers`
as the front feeds it, and the lines it hands on are run through the real
SDK (`tests.support.sdk_replies`): every reply sent early must be the SDK's
reply to that request byte for byte, the SDK's copy is dropped and nothing
else is, so each request gets exactly one reply. The reader never raises.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from typing import Any

import mcp_types as types
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rea_tui.server.prompts.prompt_declarations import target_sentence
from rea_tui.server.protocol.early_answers import MAX_DEPTH, EarlyAnswers, kind, read_line
from rea_tui.server.protocol.server_identity import (
    CLIENT_CAPABILITIES_META_KEY,
    CLIENT_INFO_META_KEY,
    HANDSHAKE_PROTOCOL_VERSIONS,
    PROTOCOL_VERSION_META_KEY,
)
from tests.conftest import REPO
from tests.support.sdk_replies import sdk_replies

NO_TARGET = target_sentence(None)
LISTS = ("prompts/list", "tools/list", "resources/list", "resources/templates/list")
MODERN = "2026-07-28"
HOST_CAPABILITIES = {"sampling": {}, "elicitation": {"form": {}, "url": {}}, "roots": {"listChanged": True}}
CLIENT = {"name": "raw", "version": "0"}


def meta(version: Any = MODERN, client: Any = CLIENT, capabilities: Any = None) -> dict[str, Any]:
    return {
        PROTOCOL_VERSION_META_KEY: version,
        CLIENT_INFO_META_KEY: client,
        CLIENT_CAPABILITIES_META_KEY: HOST_CAPABILITIES if capabilities is None else capabilities,
    }


def request(request_id: Any, method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def initialize(request_id: Any = 0, version: str = "2025-11-25") -> dict[str, Any]:
    return request(request_id, "initialize", {"protocolVersion": version, "capabilities": {}, "clientInfo": CLIENT})


def line(message: Any) -> bytes:
    return json.dumps(message).encode() + b"\n"


# -- what a client might write ------------------------------------------------------------------------

JSON_LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), st.text(max_size=6)
)
JSON = st.recursive(
    JSON_LEAF,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)
IDS = st.one_of(
    st.integers(0, 5),
    st.sampled_from(["a", "1", "", "é☃𝄞", "\u2028", 2**63 - 1, 2**63, -(2**63), 10**30, True, None, 1.0, [1]]),
    st.text(max_size=4),
)
CAPABILITIES = st.one_of(
    st.just({}),
    st.just(HOST_CAPABILITIES),
    st.fixed_dictionaries({"roots": st.fixed_dictionaries({"listChanged": st.one_of(st.booleans(), JSON)})}),
    st.fixed_dictionaries({"elicitation": st.dictionaries(st.sampled_from(["form", "url", "other"]), JSON)}),
    st.fixed_dictionaries({"sampling": st.dictionaries(st.sampled_from(["context", "tools"]), JSON, max_size=2)}),
    st.fixed_dictionaries({"experimental": st.dictionaries(st.text(max_size=4), JSON, max_size=2)}),
    st.dictionaries(st.sampled_from(["tasks", "roots", "extensions", "other"]), JSON, max_size=2),
    JSON,
)
CLIENTS = st.one_of(
    st.just(CLIENT),
    st.fixed_dictionaries({"name": st.text(max_size=4), "version": st.text(max_size=4)}),
    st.fixed_dictionaries({"name": JSON, "version": JSON}),
    st.fixed_dictionaries(
        {"name": st.just("n"), "version": st.just("1")},
        optional={"title": JSON, "websiteUrl": JSON, "icons": JSON, "other": JSON},
    ),
    JSON,
)
VERSIONS = st.sampled_from([MODERN, MODERN, "2025-11-25", "2099-01-01", 2026, None])


@st.composite
def metas(draw: st.DrawFn) -> Any:
    found: dict[str, Any] = {}
    if draw(st.integers(0, 9)):
        found[PROTOCOL_VERSION_META_KEY] = draw(VERSIONS)
    if draw(st.integers(0, 4)):
        found[CLIENT_INFO_META_KEY] = draw(CLIENTS)
    if draw(st.integers(0, 6)):
        found[CLIENT_CAPABILITIES_META_KEY] = draw(CAPABILITIES)
    if not draw(st.integers(0, 5)):
        found[draw(st.sampled_from(["progressToken", "io.modelcontextprotocol/logLevel", "other"]))] = draw(JSON)
    return found if draw(st.integers(0, 12)) else draw(JSON)


MEMBERS = {
    "roots": ["listChanged", "x"],
    "sampling": ["context", "tools", "x"],
    "elicitation": ["form", "url", "x"],
    "experimental": ["x"],
    "extensions": ["io.example/x"],
    "tasks": ["list", "x"],
}


@st.composite
def mutated_capabilities(draw: st.DrawFn) -> Any:
    """Good client capabilities with one thing changed, most often one member of one capability."""
    found = json.loads(json.dumps(draw(st.sampled_from([{}, HOST_CAPABILITIES]))))
    change = draw(st.integers(0, 5))
    name = draw(st.sampled_from(sorted(MEMBERS)))
    if change == 0:
        return draw(CAPABILITIES)
    if change == 1:
        found[name] = draw(JSON)
    else:
        found[name] = {**found.get(name, {}), draw(st.sampled_from(MEMBERS[name])): draw(JSON)}
    return found


@st.composite
def mutated_metas(draw: st.DrawFn) -> dict[str, Any]:
    """A good envelope with one thing changed: the version, a key, the client, or the capabilities."""
    found = meta(capabilities=draw(st.sampled_from([{}, HOST_CAPABILITIES])))
    change = draw(st.integers(0, 7))
    if change == 0:
        found[PROTOCOL_VERSION_META_KEY] = draw(VERSIONS)
    elif change == 1:
        del found[draw(st.sampled_from(sorted(found)))]
    elif change == 2:
        found[CLIENT_INFO_META_KEY] = draw(CLIENTS)
    elif change == 3:
        found[draw(st.sampled_from(["progressToken", "io.modelcontextprotocol/logLevel", "other"]))] = draw(JSON)
    else:
        found[CLIENT_CAPABILITIES_META_KEY] = draw(mutated_capabilities())
    return found


@st.composite
def mutated_initializations(draw: st.DrawFn) -> dict[str, Any]:
    """A good `initialize` with one thing changed in its params."""
    message = initialize(draw(IDS), draw(st.sampled_from(HANDSHAKE_PROTOCOL_VERSIONS)))
    params = message["params"]
    change = draw(st.integers(0, 4))
    if change == 0:
        params["protocolVersion"] = draw(st.one_of(st.sampled_from(["1999-01-01", MODERN]), JSON))
    elif change == 1:
        params["clientInfo"] = draw(CLIENTS)
    elif change == 2:
        params[draw(st.sampled_from(["_meta", "other"]))] = draw(st.one_of(JSON, mutated_metas()))
    else:
        params["capabilities"] = draw(mutated_capabilities())
    return message


def params_of(draw: st.DrawFn, method: str) -> Any:
    choice = draw(st.integers(0, 9))
    if choice <= 4:
        return {"_meta": draw(metas())}
    if choice == 5:
        return {"_meta": draw(metas()), "cursor": draw(st.one_of(st.text(max_size=3), JSON))}
    if choice == 6:
        return draw(st.sampled_from([None, {}, {"cursor": "x"}, {"cursor": None}]))
    if choice == 7 and method == "initialize":
        return {
            "protocolVersion": draw(st.one_of(st.sampled_from([*HANDSHAKE_PROTOCOL_VERSIONS, "1999-01-01"]), JSON)),
            "capabilities": draw(CAPABILITIES),
            "clientInfo": draw(CLIENTS),
        }
    return draw(JSON)


METHODS = st.sampled_from(
    [*LISTS, "initialize", "server/discover", "ping", "tools/call", "completion/complete", "unknown/method"]
)


@st.composite
def messages(draw: st.DrawFn, era: str | None = None, methods: st.SearchStrategy[str] | None = None) -> bytes:
    """A request, mostly well formed for `era` ("legacy", "modern" or None for either) when it is a list."""
    method = draw(st.one_of(st.sampled_from(LISTS), METHODS) if methods is None else methods)
    good = method in LISTS and era is not None and draw(st.integers(0, 2)) > 0
    if good and era == "legacy":
        message = request(draw(IDS), method, draw(st.sampled_from([None, {}])))
    elif good or (method == "server/discover" and draw(st.booleans())):
        message = request(
            draw(IDS), method, {"_meta": meta(capabilities=draw(st.sampled_from([{}, HOST_CAPABILITIES])))}
        )
    elif method == "initialize" and draw(st.booleans()):
        message = initialize(draw(IDS), draw(st.sampled_from([*HANDSHAKE_PROTOCOL_VERSIONS, "1999-01-01"])))
    elif method == "tools/call":
        message = request(draw(IDS), method, {"name": "no_such_tool", "_meta": meta()})
    else:
        message = request(draw(IDS), method, params_of(draw, method))
    if not draw(st.integers(0, 15)):
        message[draw(st.sampled_from(["jsonrpc", "extra", "result"]))] = draw(JSON)
    if not draw(st.integers(0, 15)):
        del message[draw(st.sampled_from(sorted(message)))]
    return line(message)


NOTIFICATIONS = st.one_of(
    st.just(line({"jsonrpc": "2.0", "method": "notifications/initialized"})),
    IDS.map(lambda i: line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": i}})),
)
HOSTILE = st.one_of(
    st.binary(max_size=24).map(lambda b: b + b"\n"),
    st.sampled_from(
        [
            b"\n",
            b"   \r\n",
            b"{\n",
            b'{"jsonrpc":"2.0","id":"\\ud800","method":"tools/list"}\n',
            b'{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"x":NaN}}\n',
            b'{"jsonrpc":"2.0","id":9,"id":10,"method":"tools/list"}\n',
            b'{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"x":1e999}}\n',
            b'\xef\xbb\xbf{"jsonrpc":"2.0","id":9,"method":"tools/list"}\n',
            b'{"jsonrpc":"2.0","id":"\xff","method":"tools/list"}\n',
            b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"tools/list"}\n',
            b'{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"x":' + b"[" * 300 + b"]" * 300 + b"}}\n",
            b"[" * 100_000 + b"\n",
            b'[{"jsonrpc":"2.0","id":9,"method":"tools/list"}]\n',
        ]
    ),
)
OPENINGS = {
    "legacy": st.sampled_from(HANDSHAKE_PROTOCOL_VERSIONS).map(lambda v: line(initialize(0, v))),
    "modern": st.just(line(request(0, "server/discover", {"_meta": meta()}))),
}


@st.composite
def conversations(draw: st.DrawFn) -> list[bytes]:
    """An opening (usually a good one), then requests, notifications and hostile lines."""
    era = draw(st.sampled_from(["legacy", "legacy", "modern", "modern", None]))
    opening = draw(messages() if era is None or not draw(st.integers(0, 5)) else OPENINGS[era])
    rest = draw(st.lists(st.one_of(messages(era), messages(era), messages(), NOTIFICATIONS, HOSTILE), max_size=7))
    return [opening, *rest]


CONVERSATIONS = conversations()

HOST_EARLY = [
    line(request(f"rea-early-{n}", method, {"_meta": meta()}))
    for n, method in enumerate(["server/discover", *LISTS], start=1)
]
SDK_CLIENT_LEGACY = [
    line(initialize()),
    line({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    *(line(request(n, method)) for n, method in enumerate(LISTS, start=1)),
]


class Differences(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.seen.append(record.getMessage())


def converse(lines: list[bytes], answers: EarlyAnswers | None = None) -> tuple[list[bytes], list[str]]:
    """`lines` through the front's early answers and then the SDK: the early replies, and what reaches
    the wire from the SDK; asserts each early reply is the SDK's reply to its request, byte for byte."""
    answers = EarlyAnswers(NO_TARGET) if answers is None else answers
    seen = [answers.line(raw) for raw in lines]
    early = {}
    for raw, judged in zip(lines, seen, strict=True):
        if judged.reply is None:
            assert judged.replay == raw, "a line not answered early reaches the SDK unchanged"
        else:
            replayed = json.loads(judged.replay)
            early[replayed["id"]] = (json.loads(raw.decode("utf-8", "replace"))["id"], judged.reply)
    answers.stop()
    differences = Differences()
    logging.getLogger("rea_tui.server").addHandler(differences)
    try:
        sent = []
        for text in sdk_replies([judged.replay for judged in seen]):
            message = json.loads(text)
            if "method" not in message and message.get("id") in early:
                original, reply = early.pop(message["id"])
                sdk = text.replace(
                    f'"id":{json.dumps(message["id"])}', f'"id":{json.dumps(original, ensure_ascii=False)}', 1
                )
                assert reply == (sdk + "\n").encode(), "the early reply is the SDK's, byte for byte"
                assert not answers.outgoing(text), "the SDK's copy of an early reply is not sent again"
            elif answers.outgoing(text):
                sent.append(text)
    finally:
        logging.getLogger("rea_tui.server").removeHandler(differences)
    assert not early, f"the SDK answered every request answered early: {early}"
    assert not differences.seen, differences.seen
    assert answers.settled
    return [judged.reply for judged in seen if judged.reply is not None], sent


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(CONVERSATIONS)
@example(HOST_EARLY)
@example(SDK_CLIENT_LEGACY)
@example([line(initialize()), line(request(1, "prompts/list")), line(request(1, "tools/list"))])
@example([line(request(0, "server/discover", {"_meta": meta()})), line(request(0, "server/discover"))])
def test_every_early_reply_is_the_sdk_reply_and_each_request_gets_one(lines: list[bytes]) -> None:
    early, sent = converse(lines)
    requests = [raw for raw in lines if _sdk_request_id(raw) is not _NONE]
    assert len(early) + sum(1 for text in sent if "method" not in json.loads(text)) == len(requests)


_NONE = object()


@st.composite
def mutated_lists(draw: st.DrawFn) -> list[bytes]:
    """A legacy opening with mutated params then good lists, or a modern one then lists with mutated envelopes."""
    lists = st.lists(st.tuples(IDS, st.sampled_from(LISTS)), min_size=1, max_size=4)
    if draw(st.booleans()):
        return [line(draw(mutated_initializations())), *(line(request(i, m)) for i, m in draw(lists))]
    return [
        line(request(0, "server/discover", {"_meta": meta()})),
        *(line(request(i, m, {"_meta": draw(mutated_metas())})) for i, m in draw(lists)),
    ]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_lists())
def test_a_list_request_however_mutated_is_answered_as_the_sdk_answers_it(lines: list[bytes]) -> None:
    converse(lines)


def _sdk_request_id(raw: bytes) -> Any:
    try:
        message = types.jsonrpc_message_adapter.validate_json(raw.decode("utf-8", "replace"), by_name=False)
    except ValueError:
        return _NONE
    return message.id if isinstance(message, types.JSONRPCRequest) else _NONE


@settings(max_examples=300, deadline=None)
@given(st.one_of(messages(), NOTIFICATIONS, HOSTILE, JSON.map(line)))
def test_a_line_the_front_reads_is_the_message_the_sdk_reads(raw: bytes) -> None:
    """Where the front reads a line at all, the SDK's JSON-RPC union reads the same message, of the same kind."""
    message = read_line(raw)
    if not isinstance(message, (dict, list, str, int, bool)) and message is not None:
        return  # blank, or outside the plain subset: the front answers nothing more early
    try:
        parsed = types.jsonrpc_message_adapter.validate_json(raw.decode("utf-8", "replace"), by_name=False)
    except ValueError:
        assert kind(message) == "other"
        return
    expected = {types.JSONRPCRequest: "request", types.JSONRPCNotification: "notification"}.get(type(parsed), "other")
    assert kind(message) == expected
    if expected == "request":
        assert isinstance(parsed, types.JSONRPCRequest)
        assert (parsed.id, parsed.method, parsed.params) == (message["id"], message["method"], message.get("params"))


# -- the rules, one at a time -----------------------------------------------------------------------------


def answered(lines: list[bytes], sentence: str | None = NO_TARGET) -> list[dict[str, Any] | None]:
    answers = EarlyAnswers(sentence)
    return [None if (seen := answers.line(raw)).reply is None else json.loads(seen.reply) for raw in lines]


@pytest.mark.parametrize("version", HANDSHAKE_PROTOCOL_VERSIONS)
def test_legacy_lists_are_answered_after_initialize_at_every_version(version: str) -> None:
    lines = [line(initialize(0, version)), *(line(request(n, m)) for n, m in enumerate(LISTS, 1))]
    replies = answered(lines)
    assert all(replies) and replies[0] is not None
    assert replies[0]["result"]["protocolVersion"] == version
    converse(lines)


def test_the_host_early_requests_and_its_sessions_second_discover_are_answered() -> None:
    second = line(request(0, "server/discover", {"_meta": meta()}))
    lines = [*HOST_EARLY, second, *(line(request(n, m, {"_meta": meta()})) for n, m in enumerate(LISTS, 1))]
    assert all(answered(lines))
    converse(lines)


@pytest.mark.parametrize(
    "unusual",
    [
        request(5, "prompts/list", {"_meta": meta(), "cursor": "next"}),
        request(5, "tools/list", {"_meta": meta(version="2099-01-01")}),
        request(5, "tools/list", {"_meta": meta(version="2025-11-25")}),
        request(5, "tools/list", {"_meta": {PROTOCOL_VERSION_META_KEY: MODERN}}),
        request(5, "tools/list", {"_meta": meta(client={"name": "raw"})}),
        request(5, "tools/list", {"_meta": meta(capabilities={"tasks": {}})}),
        request(5, "tools/list", {"_meta": {**meta(), "progressToken": 1}}),
        request(5, "tools/list", {"_meta": meta(), "extra": 1}),
        {**request(5, "tools/list", {"_meta": meta()}), "extra": 1},
    ],
    ids=[
        "cursor",
        "unknown-version",
        "legacy-version",
        "no-capabilities",
        "no-version",
        "tasks",
        "progress",
        "extra-param",
        "extra-key",
    ],
)
def test_an_unusual_modern_list_is_left_to_the_sdk(unusual: dict[str, Any]) -> None:
    lines = [line(request(0, "server/discover", {"_meta": meta()})), line(unusual)]
    assert answered(lines)[1] is None
    converse(lines)


ODD_CAPABILITIES = [
    {"roots": {"listChanged": [1]}},
    {"roots": {"listChanged": "yes"}},
    {"roots": 5},
    {"sampling": {"tools": 5}},
    {"sampling": {"context": {"x": 1}}},
    {"elicitation": {"form": 5}},
    {"elicitation": {"url": None}},
    {"experimental": {"a": 5}},
    {"extensions": {"io.example/x": {}}},
    {"tasks": {}},
    {"other": 5},
]
ODD_CLIENTS = [{"name": "raw"}, {"name": 1, "version": "0"}, {**CLIENT, "icons": []}, {**CLIENT, "title": 1}, None, 5]


@pytest.mark.parametrize("capabilities", ODD_CAPABILITIES, ids=json.dumps)
@pytest.mark.parametrize("generation", ["legacy", "modern"])
def test_odd_client_capabilities_are_answered_as_the_sdk_answers_them(generation: str, capabilities: Any) -> None:
    if generation == "legacy":
        opening = initialize()
        opening["params"]["capabilities"] = capabilities
        converse([line(opening), line(request(1, "tools/list"))])
    else:
        envelope = {"_meta": meta(capabilities=capabilities)}
        converse([line(request(0, "server/discover", envelope)), line(request(1, "tools/list", envelope))])


@pytest.mark.parametrize("client", ODD_CLIENTS, ids=json.dumps)
@pytest.mark.parametrize("generation", ["legacy", "modern"])
def test_odd_client_identities_are_answered_as_the_sdk_answers_them(generation: str, client: Any) -> None:
    if generation == "legacy":
        opening = initialize()
        opening["params"]["clientInfo"] = client
        converse([line(opening), line(request(1, "tools/list"))])
    else:
        envelope = {"_meta": meta(client=client)}
        converse([line(request(0, "server/discover", envelope)), line(request(1, "tools/list", envelope))])


def test_a_legacy_list_before_initialize_or_with_params_is_left_to_the_sdk() -> None:
    assert answered([line(request(1, "prompts/list")), line(initialize(2))]) == [None, None]
    lines = [line(initialize()), line(request(1, "prompts/list", {"cursor": "x"})), line(request(2, "tools/list"))]
    replies = answered(lines)
    assert replies[1] is None and replies[2] is not None, "a cursor is left to the SDK, the next list is not"
    converse(lines)


def test_with_open_first_the_lists_are_left_to_the_sdk() -> None:
    replies = answered([line(initialize()), line(request(1, "prompts/list"))], sentence=None)
    assert replies[0] is not None and replies[1] is None


def test_nothing_is_answered_after_a_tool_call_an_unreadable_line_or_a_second_initialize() -> None:
    for interruption in (
        line(request(1, "tools/call", {"name": "close_binary"})),
        b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"tools/call"}\n',
        b"[" * (MAX_DEPTH + 5) + b"]" * (MAX_DEPTH + 5) + b"\n",
        line(initialize(1)),
    ):
        replies = answered([line(initialize()), interruption, line(request(2, "tools/list"))])
        assert replies[0] is not None and replies[2] is None, interruption[:60]


def test_harmless_requests_and_notifications_do_not_stop_the_early_answers() -> None:
    lines = [
        line(initialize()),
        line({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        line(request(1, "ping")),
        line(request(2, "completion/complete", {"ref": {"type": "ref/prompt", "name": "x"}})),
        b"\n",
        b"\r\n",
        line(request(3, "tools/list")),
    ]
    assert answered(lines)[-1] is not None
    converse(lines)


def test_a_reused_id_and_a_cancellation_concern_the_sdk_only() -> None:
    """The replay carries the front's own id: a later request with the client's id, or the client cancelling
    it, never meets the SDK's copy of the early reply."""
    lines = [
        line(initialize(7)),
        line(request(7, "prompts/list")),
        line({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}),
        line(request(7, "ping")),
        line(request(7, "tools/list")),
    ]
    early, sent = converse(lines)
    assert len(early) == 3, "initialize and both lists"
    assert [json.loads(text)["id"] for text in sent] == [7], "the ping's reply, once"


def test_the_sdks_copy_is_compared_and_a_difference_logged(caplog: pytest.LogCaptureFixture) -> None:
    answers = EarlyAnswers(NO_TARGET)
    seen = answers.line(line(initialize(3)))
    replay_id = json.loads(seen.replay)["id"]
    assert replay_id != 3 and replay_id.startswith("rea-front-")
    assert not answers.outgoing(json.dumps({"jsonrpc": "2.0", "id": replay_id, "result": {}}))
    assert "differs" in caplog.text
    assert answers.outgoing(json.dumps({"jsonrpc": "2.0", "id": replay_id, "result": {}})), "dropped once only"
    assert answers.outgoing(json.dumps({"jsonrpc": "2.0", "id": 3, "result": {}}))


def test_the_early_path_imports_no_sdk_pydantic_or_lief() -> None:
    code = f"""
import json, sys
from rea_tui.server.protocol.early_answers import EarlyAnswers
from rea_tui.server.prompts.prompt_declarations import target_sentence
lines = {[raw.decode() for raw in SDK_CLIENT_LEGACY]!r} + {[raw.decode() for raw in HOST_EARLY]!r}
legacy, modern = EarlyAnswers(target_sentence(None, "x")), EarlyAnswers(target_sentence(None))
replies = [legacy.line(raw.encode()).reply for raw in lines[:6]] + [modern.line(raw.encode()).reply for raw in lines[6:]]
assert sum(reply is not None for reply in replies) == 10, replies
loaded = sorted(name for name in ("mcp", "mcp_types", "pydantic", "pydantic_core", "lief", "anyio", "jsonschema") if name in sys.modules)
print(json.dumps(loaded))
"""
    result = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert json.loads(result.stdout) == []
