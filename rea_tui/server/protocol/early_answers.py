"""What the stdio front answers before the SDK serves: one connection's lines, read as the SDK will read them.

The front reads every line the client writes, before the SDK has loaded,
and hands each one to the SDK in order. `EarlyAnswers` follows the
connection the way the SDK's dual-era loop will (the first request decides
the protocol generation: `initialize` opens a legacy connection, a request
carrying the 2026-07-28 `_meta` envelope a modern one) and answers at once:

- the opening request: a legacy connection's first `initialize`, and every
  `server/discover` of a modern one (its reply depends on nothing the client
  says; the host's SDK session sends its own after the host's early one);
- `prompts/list`, `tools/list`, `resources/list` and
  `resources/templates/list` without a cursor: on a legacy connection once
  its `initialize` was answered here, on a modern one with each request's
  envelope (`early_lists`). The prompt list names the target the way the SDK
  will while it opens (`sentence`); with `--open-first` the lists wait for
  the target and are left to the SDK.

Only what the SDK is sure to answer the same way is answered: the line must
be plain JSON both parsers read alike (no floats, no duplicate keys, no lone
surrogates, integers within 64 bits, nesting within `MAX_DEPTH`), the request
nothing but `jsonrpc`, `id`, `method` and `params`, and its params in the
narrow shapes of `early_handshake`. Anything else is left to the SDK; and
once a line could change what a list says or how the SDK reads later
requests (a `tools/call`, a second `initialize`, any method not known to be
harmless, a line the front cannot read), nothing more is answered early.

A request answered early still goes to the SDK, under an id of the front's
own (`rea-front-<random>-<n>`, no client's), so the SDK's reply to it is
known for what it is whatever ids the client uses next: `outgoing` drops it
(after comparing it with the early reply; a difference is logged, it would
be a bug here), and the client's own cancellation of its id, or a later
request reusing the id, concerns the SDK's other requests only. Pure logic:
the front calls it under its lock.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
from dataclasses import dataclass
from typing import Any, Final, Literal

from rea_tui.server.protocol.early_handshake import (
    discover_result,
    initialize_result,
    is_request_id,
    modern_version,
    negotiated_version,
    response,
)
from rea_tui.server.protocol.early_lists import LIST_METHODS, list_result
from rea_tui.server.protocol.server_identity import PROTOCOL_VERSION_META_KEY

logger = logging.getLogger("rea_tui.server")

MAX_DEPTH: Final = 32
"""Deepest nesting of a line the front reads; deeper lines are left to the SDK (its parser has a limit)."""
_INT_BOUND: Final = 2**63
_REQUEST_KEYS: Final = frozenset({"jsonrpc", "id", "method", "params"})
_COMPACT: Final = (",", ":")
"""How the SDK writes JSON (no spaces; non-ASCII characters as they are)."""

HARMLESS: Final = frozenset(
    {
        "ping",
        "server/discover",
        *LIST_METHODS,
        "prompts/get",
        "completion/complete",
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
        "subscriptions/listen",
        "logging/setLevel",
    }
)
"""Requests that, answered by the SDK, change neither what a list says nor how later requests are read."""


class _Unreadable(ValueError):
    """A line outside the plain JSON the front reads as the SDK does."""


_BLANK: Final = object()
_UNREADABLE: Final = object()


def _refuse(text: str) -> Any:
    raise _Unreadable(text)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise _Unreadable("duplicate key")
    return found


def _plain(value: Any, depth: int = 0) -> bool:
    """Values both JSON parsers read alike: objects, arrays, strings without lone surrogates, booleans,
    null and 64-bit integers, nested at most `MAX_DEPTH` deep. (Floats never get this far.)"""
    if depth > MAX_DEPTH:
        return False
    if isinstance(value, str):
        return _encodable(value)
    if isinstance(value, bool) or value is None:
        return True
    if isinstance(value, int):
        return -_INT_BOUND < value < _INT_BOUND
    if isinstance(value, list):
        return all(_plain(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return all(_encodable(key) and _plain(item, depth + 1) for key, item in value.items())
    return False


def _encodable(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate, from a \ud800-style escape
        return False
    return True


def read_line(raw: bytes) -> Any:
    """The message on a line, `_BLANK` for whitespace, `_UNREADABLE` for a line outside the plain subset."""
    text = raw.decode("utf-8", "replace")  # as the SDK's stdio transport decodes it
    if not text.strip():
        return _BLANK
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys, parse_float=_refuse, parse_constant=_refuse)
    except (ValueError, RecursionError):
        return _UNREADABLE
    return value if _plain(value) else _UNREADABLE


Kind = Literal["request", "notification", "other"]


def kind(message: Any) -> Kind:
    """How the SDK's JSON-RPC message union reads a plain message: a request needs a string or integer id,
    a string method and object (or absent) params; without a usable id it is a notification."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return "other"
    params = message.get("params")
    if not isinstance(message.get("method"), str) or not (params is None or isinstance(params, dict)):
        return "other"
    return "request" if is_request_id(message.get("id")) else "notification"


def _enveloped(params: dict[str, Any] | None) -> bool:
    """Whether the SDK reads the request as 2026-07-28's: its `_meta` carries the protocol version key."""
    meta = (params or {}).get("_meta")
    return isinstance(meta, dict) and PROTOCOL_VERSION_META_KEY in meta


@dataclass(frozen=True, slots=True)
class Seen:
    """What to do with one line: the reply to write now (a JSON line), if any, and the line the SDK gets."""

    replay: bytes
    reply: bytes | None = None


class EarlyAnswers:
    def __init__(self, sentence: str | None) -> None:
        """`sentence`: what prompt descriptions say about the target until the SDK serves
        (`prompt_declarations.target_sentence`); None leaves the lists to the SDK."""
        self._sentence = sentence
        self._live = True
        self._era: Literal["legacy", "modern"] | None = None
        self._negotiated: str | None = None
        """A legacy connection's version, once its `initialize` was answered here."""
        token = os.urandom(8).hex()
        self._replay_ids = (f"rea-front-{token}-{n}" for n in itertools.count(1))
        self._expected: dict[str, dict[str, Any]] = {}
        """The replies sent early whose SDK copies are still to come, by the id their replay carries."""

    @property
    def opened(self) -> bool:
        """The connection's first request has been seen (or nothing more will be answered early)."""
        return self._era is not None or not self._live

    @property
    def settled(self) -> bool:
        """Nothing more is answered early, and the SDK has replied to everything that was."""
        return not self._live and not self._expected

    def stop(self) -> None:
        """The SDK serves from now on: it answers everything."""
        self._live = False

    # -- lines from the client -----------------------------------------------------------------

    def line(self, raw: bytes) -> Seen:
        if not self._live:
            return Seen(raw)
        message = read_line(raw)
        if message is _BLANK:
            return Seen(raw)
        if message is _UNREADABLE:
            self._live = False  # it may be a request the SDK reads, of any kind
            return Seen(raw)
        if kind(message) != "request":
            return Seen(raw)
        reply = self._answer(message)
        if reply is None:
            return Seen(raw)
        text = (json.dumps(reply, separators=_COMPACT, ensure_ascii=False) + "\n").encode("utf-8")
        replay_id = next(self._replay_ids)
        replay = {**message, "id": replay_id}
        self._expected[replay_id] = reply
        return Seen((json.dumps(replay, ensure_ascii=False) + "\n").encode("utf-8"), text)

    def _answer(self, message: dict[str, Any]) -> dict[str, Any] | None:
        method: str = message["method"]
        params: dict[str, Any] | None = message.get("params")
        first = self._era is None
        if first:
            self._era = "modern" if method != "initialize" and _enveloped(params) else "legacy"
        reply = self._reply(message["id"], method, params, first) if _REQUEST_KEYS.issuperset(message) else None
        if reply is None and method not in HARMLESS:
            self._live = False
        return reply

    def _reply(
        self, request_id: str | int, method: str, params: dict[str, Any] | None, first: bool
    ) -> dict[str, Any] | None:
        if self._era == "legacy":
            if method == "initialize":
                negotiated = negotiated_version(params) if first and params is not None else None
                if negotiated is None:
                    return None
                self._negotiated = negotiated
                return response(request_id, initialize_result(negotiated))
            if method in LIST_METHODS and not params and self._negotiated is not None and self._sentence is not None:
                return response(request_id, list_result(method, self._negotiated, self._sentence))
            return None
        if params is None or params.keys() != {"_meta"}:
            return None
        version = modern_version(params)
        if version is None:
            return None
        if method == "server/discover":
            return response(request_id, discover_result())
        if method in LIST_METHODS and self._sentence is not None:
            return response(request_id, list_result(method, version, self._sentence))
        return None

    # -- messages from the SDK -----------------------------------------------------------------

    def outgoing(self, text: str) -> bool:
        """Whether the SDK's message goes on the wire: not when it is the SDK's copy of a reply sent early."""
        if not self._expected:
            return True
        try:
            message = json.loads(text)
        except ValueError:
            return True
        if not isinstance(message, dict) or "method" in message:
            return True
        replay_id = message.get("id")
        early = self._expected.pop(replay_id, None) if isinstance(replay_id, str) else None
        if early is None:
            return True
        if {**message, "id": early["id"]} != early:
            logger.warning("early reply differs from the SDK's: sent %s, SDK %s", early, message)
        return False
