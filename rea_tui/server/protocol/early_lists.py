"""The four list results as the SDK writes them, computed without the SDK.

A host asks for `prompts/list`, `tools/list`, `resources/list` and
`resources/templates/list` right after the opening request, before the SDK
has loaded (`rea_tui.host.fastpath.early_lists` does so at 2026-07-28). The items come
from `server_lists`, the data the SDK's handlers validate too; this module
only wraps them the way the SDK's result pipeline does at the request's
protocol version, so the stdio front's early reply is the SDK's reply byte
for byte:

- every SDK model object (prompt, argument, tool, annotations, resource,
  template) has its fields in the order the SDK's per-version models declare
  them, which is alphabetical; a tool's schemas keep their own order after
  the fields the version's schema model declares;
- at 2026-07-28 the result also carries `cacheScope: "private"`, `ttlMs: 0`
  (the SDK's defaults for cacheable results), `resultType: "complete"`, and
  the `serverInfo` `_meta` stamp after them.

Tests compare the bytes with the SDK's own replies at every version it speaks.
"""

from __future__ import annotations

from typing import Any, Final

from rea_tui.server.protocol.early_handshake import server_info_stamp
from rea_tui.server.protocol.server_identity import MODERN_PROTOCOL_VERSIONS, SERVER_INFO_META_KEY
from rea_tui.server.protocol.server_lists import LISTS

_LEGACY_SCHEMA_FIELDS: Final = ("$schema", "properties", "required", "type")
_MODERN_SCHEMA_FIELDS: Final = ("$schema", "type")
"""The fields the SDK's `inputSchema`/`outputSchema` models declare, first in its output, per generation."""

LIST_METHODS: Final = frozenset(LISTS)


def _fields(item: dict[str, Any]) -> dict[str, Any]:
    return {key: item[key] for key in sorted(item)}


def _schema(schema: dict[str, Any], modern: bool) -> dict[str, Any]:
    declared = _MODERN_SCHEMA_FIELDS if modern else _LEGACY_SCHEMA_FIELDS
    first = {key: schema[key] for key in declared if key in schema}
    return {**first, **{key: value for key, value in schema.items() if key not in first}}


def _item(method: str, item: dict[str, Any], modern: bool) -> dict[str, Any]:
    shaped = _fields(item)
    if method == "prompts/list" and "arguments" in shaped:
        shaped["arguments"] = [_fields(argument) for argument in shaped["arguments"]]
    elif method == "tools/list":
        for key in ("inputSchema", "outputSchema"):
            if key in shaped:
                shaped[key] = _schema(shaped[key], modern)
        if "annotations" in shaped:
            shaped["annotations"] = _fields(shaped["annotations"])
    return shaped


def list_result(method: str, version: str, sentence: str) -> dict[str, Any]:
    """The result of the list `method` (one of `LIST_METHODS`) at `version`, with everything in one page.

    `sentence` is what the prompt descriptions say about the target (`prompt_declarations.target_sentence`).
    """
    key, items = LISTS[method]
    modern = version in MODERN_PROTOCOL_VERSIONS
    result: dict[str, Any] = {key: [_item(method, item, modern) for item in items(sentence)]}
    if not modern:
        return result
    result.update(cacheScope="private", ttlMs=0, resultType="complete")
    return {**_fields(result), "_meta": {SERVER_INFO_META_KEY: server_info_stamp()}}
