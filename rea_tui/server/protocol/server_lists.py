"""The server's four lists as plain wire data: prompts, tools, resources, resource templates.

One source for both answers: the SDK's handlers (`rea_server`) validate these
dicts into the SDK's result types, and the stdio front (`early_lists`) sends
them before the SDK has loaded. Only the prompt list depends on the session,
through the sentence naming its target (`prompt_declarations.target_sentence`).
Keys are MCP's (camelCase); absent values are left out, as the SDK writes
them. Only the standard library is imported, directly or not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from rea_tui.server.prompts.prompt_declarations import PROMPTS, prompt_description
from rea_tui.server.toolkit.tool_declarations import DECLARATIONS

SESSION_URI: Final = "rea://session"
PROCEDURE_TEMPLATE: Final = "rea://documents/{document}/procedures/{procedure}"
EVIDENCE_TEMPLATE: Final = "rea://evidence/{evidence}"
_JSON: Final = "application/json"


def prompt_items(sentence: str) -> list[dict[str, Any]]:
    """`prompts/list`'s prompts; `sentence` says what the target is (it ends every description)."""
    return [
        {
            "name": spec.name,
            "title": spec.title,
            "description": prompt_description(spec, sentence),
            "arguments": [
                {"name": arg.name, "description": arg.description, "required": arg.required} for arg in spec.arguments
            ],
        }
        for spec in PROMPTS
    ]


def tool_items() -> list[dict[str, Any]]:
    """`tools/list`'s tools, in catalog order."""
    return [declaration.wire() for declaration in DECLARATIONS]


def resource_items() -> list[dict[str, Any]]:
    return [
        {
            "uri": SESSION_URI,
            "name": "session",
            "title": "REA session",
            "description": "The target's state (opening, ready, failed), its documents and providers, "
            "and ledger counts.",
            "mimeType": _JSON,
        }
    ]


def resource_template_items() -> list[dict[str, Any]]:
    return [
        {
            "uriTemplate": PROCEDURE_TEMPLATE,
            "name": "procedure",
            "title": "Procedure inspection",
            "description": "Inspection of one procedure of a document (variables complete).",
            "mimeType": _JSON,
        },
        {
            "uriTemplate": EVIDENCE_TEMPLATE,
            "name": "evidence",
            "title": "Retained evidence",
            "description": "A retained tool result by evidence ID (the variable completes).",
            "mimeType": _JSON,
        },
    ]


LISTS: Final[dict[str, tuple[str, Callable[[str], list[dict[str, Any]]]]]] = {
    "prompts/list": ("prompts", prompt_items),
    "tools/list": ("tools", lambda _sentence: tool_items()),
    "resources/list": ("resources", lambda _sentence: resource_items()),
    "resources/templates/list": ("resourceTemplates", lambda _sentence: resource_template_items()),
}
"""Each list method: the result's key for its items, and the items given the target sentence."""
