"""The wire between a CLI command and a warm session's background host: line-delimited JSON.

One JSON object a line, both ways. The client sends one request (`run` a
command line, `status`, `stop`, `attach` the TUI to its terminal) and, when
asked, an `answer` (while attached: a `resize` when its terminal's size changes); the host writes
the command's output as `out`/`err` messages, may send one `ask` at a time,
and ends with `exit` (or `local`: not a session command, the client runs it
itself, one-shot). Every message is checked here, by both ends, against the
fields its type allows: the socket is a boundary too. This module imports
nothing but the standard library, so a relayed command starts fast.
"""

from __future__ import annotations

import json

# Not `typing.TYPE_CHECKING`: importing typing costs a relayed command more than the rest of this module.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Final

VERSION: Final = 1
# One message, at most (a disassembly page or a long listing is one `out` message; both ends read with this limit).
LINE_LIMIT: Final = 8 * 1024 * 1024
# What a command line may hold: the arguments and their total size.
ARGV_ITEMS_LIMIT: Final = 4_096
ARGV_BYTES_LIMIT: Final = 1024 * 1024
# An answer to a question is one line typed at a terminal.
ANSWER_LIMIT: Final = 4_096
EXIT_CODE_RANGE: Final = range(256)

# The fields each message type carries (besides `v` and `type`), and their JSON types.
REQUESTS: Final[dict[str, dict[str, type]]] = {
    "run": {"argv": list, "cwd": str, "stdin_tty": bool},
    "answer": {"text": str},
    "status": {"json": bool},
    "stop": {},
    "attach": {"tty": str, "term": str, "colorterm": str},
    "resize": {},
}
REPLIES: Final[dict[str, dict[str, type]]] = {
    "out": {"text": str},
    "err": {"text": str},
    "ask": {"question": str},
    "exit": {"code": int},
    "local": {},
}


class WireError(ValueError):
    """A message that is not one this protocol allows (it ends the exchange)."""


def encode(kind: str, **fields: Any) -> bytes:
    return json.dumps({"v": VERSION, "type": kind, **fields}, ensure_ascii=True).encode("ascii") + b"\n"


def decode(line: bytes, allowed: dict[str, dict[str, type]]) -> dict[str, Any]:
    """One message, checked: a JSON object of a known version and type, with exactly that type's fields."""
    if len(line) > LINE_LIMIT:
        raise WireError("message over the size limit")
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError) as exc:
        raise WireError(f"not JSON: {exc}") from None
    if not isinstance(message, dict):
        raise WireError("not a JSON object")
    if message.get("v") != VERSION:
        raise WireError(f"protocol version {message.get('v')!r}, expected {VERSION}")
    kind = message.get("type")
    if not isinstance(kind, str) or kind not in allowed:
        raise WireError(f"unknown message type {kind!r}")
    fields = allowed[kind]
    extra = set(message) - {"v", "type", *fields}
    if extra:
        raise WireError(f"{kind}: unexpected fields {sorted(extra)}")
    for name, expected in fields.items():
        value = message.get(name)
        # bool is an int in Python: an exit code of `true` is not a number here.
        if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
            raise WireError(f"{kind}: {name} must be {expected.__name__}")
    _check_values(kind, message)
    return message


def _check_values(kind: str, message: dict[str, Any]) -> None:
    if kind == "run":
        argv = message["argv"]
        if len(argv) > ARGV_ITEMS_LIMIT or not all(isinstance(a, str) for a in argv):
            raise WireError("run: argv must be a list of strings")
        if sum(len(a) for a in argv) > ARGV_BYTES_LIMIT:
            raise WireError("run: argv over the size limit")
        if not message["cwd"].startswith("/") or "\0" in message["cwd"]:
            raise WireError("run: cwd must be an absolute path")
    elif kind == "attach":
        if not message["tty"].startswith("/dev/") or "\0" in message["tty"]:
            raise WireError("attach: tty must be a terminal device under /dev")
        if any(len(message[name]) > ANSWER_LIMIT for name in ("term", "colorterm")):
            raise WireError("attach: term over the size limit")
    elif kind == "answer" and len(message["text"]) > ANSWER_LIMIT:
        raise WireError("answer: over the size limit")
    elif kind == "exit" and message["code"] not in EXIT_CODE_RANGE:
        raise WireError("exit: code out of range")
