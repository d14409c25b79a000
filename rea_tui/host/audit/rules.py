"""The audit's rules: a stable check id, what it checks, and its severity per profile.

A profile is the set of rules that run and how much each one weighs. `mcp`
holds the MCP specification's completion rules plus consistency checks;
`rea` adds the REA completion contract (the seeds) and makes consistency a
hard requirement. A rule with no severity in a profile is not reported there,
so a check may emit issues for rules of both profiles and the profile decides.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

Profile = Literal["mcp", "rea"]
Severity = Literal["error", "warning", "info"]

PROFILES: Final[tuple[Profile, ...]] = ("mcp", "rea")
SEVERITIES: Final[tuple[Severity, ...]] = ("error", "warning", "info")

MAX_VALUES: Final = 100
"""The MCP limit on `completion.values`."""

MAX_VALUE_CHARS: Final = 4096
"""The REA contract's longest completion value, and longest request value accepted."""

INVALID_PARAMS: Final = -32602


@dataclass(frozen=True)
class Rule:
    id: str
    summary: str
    severity: Mapping[Profile, Severity]


def _both(severity: Severity) -> dict[Profile, Severity]:
    return {"mcp": severity, "rea": severity}


_CONSISTENCY: Final[dict[Profile, Severity]] = {"mcp": "warning", "rea": "error"}

RULES: Final[tuple[Rule, ...]] = (
    Rule("mcp.capability", "the server declares the completions capability", {"mcp": "info", "rea": "error"}),
    Rule("mcp.reply-shape", "the reply is {completion: {values: [...], total?: int, hasMore?: bool}}", _both("error")),
    Rule("mcp.max-values", f"at most {MAX_VALUES} values", _both("error")),
    Rule("mcp.string-values", "every value is a string", _both("error")),
    Rule("mcp.duplicates", "no value twice", _both("error")),
    Rule("mcp.total", "total is at least the number of values", _both("error")),
    Rule("mcp.has-more", "hasMore agrees with total (more exist when total exceeds the values)", _both("error")),
    Rule("mcp.prefix", "values start with the prefix (case-insensitively; MCP allows fuzzy matches)", {"mcp": "info"}),
    Rule("mcp.error-reply", "a well-formed request is answered with a result, not an error", {"mcp": "info"}),
    Rule("narrowing.subset", "a longer prefix offers a subset of a complete shorter prefix's values", _CONSISTENCY),
    Rule("narrowing.total", "total does not grow when the prefix gets longer", _CONSISTENCY),
    Rule(
        "narrowing.kept",
        "a complete reply keeps the shorter prefix's values that start with the longer prefix",
        _CONSISTENCY,
    ),
    Rule("determinism.repeat", "the same request twice gets the same reply", _CONSISTENCY),
    Rule("errors.unknown-argument", "an argument the target does not have gets no values", {"mcp": "warning"}),
    Rule("errors.alive", "the connection still answers after an invalid request", _both("error")),
    Rule("transport.timeout", "every request is answered within the timeout", _both("error")),
    Rule("transport.exited", "the server does not exit or drop the connection", _both("error")),
    Rule(
        "transport.given-up",
        "a target's requests do not end the server so often that its audit is given up",
        _both("error"),
    ),
    Rule("prompt.render", "prompts/get renders the prompt with its required arguments filled", _both("error")),
    Rule("prompt.unknown-tool", "the numbered steps of a rendered prompt name tools the server has", _CONSISTENCY),
    Rule("rea.prompt-steps", "a rendered prompt names at least one of the server's tools", {"rea": "error"}),
    Rule("rea.prefix-match", "values are NFKC case-insensitive prefix matches", {"rea": "error"}),
    Rule("rea.case-insensitive", "a prefix in another letter case gets the same values", {"rea": "error"}),
    Rule("rea.nfkc", "a prefix in an NFKC-equivalent form (fullwidth) gets the same values", {"rea": "error"}),
    Rule("rea.original-spelling", "values keep their original spelling whatever the prefix's", {"rea": "error"}),
    Rule("rea.code-point-order", "values are sorted by code point", {"rea": "error"}),
    Rule("rea.value-length", f"no value is longer than {MAX_VALUE_CHARS:,} characters", {"rea": "error"}),
    Rule("rea.total", "total is always given", {"rea": "error"}),
    Rule(
        "rea.over-long-rejected",
        f"a value over {MAX_VALUE_CHARS:,} characters is rejected with -32602 and data.errors [{{field, message}}]",
        {"rea": "error"},
    ),
    Rule(
        "rea.unknown-argument-rejected",
        "an unknown argument is rejected with -32602 and data.errors [{field, message}]",
        {"rea": "warning"},
    ),
    Rule(
        "rea.empty-not-error",
        "a cold, failing or unknown context gives an empty list, never an error",
        {"rea": "error"},
    ),
)

RULES_BY_ID: Final[dict[str, Rule]] = {rule.id: rule for rule in RULES}


def severity_of(check: str, profile: Profile) -> Severity | None:
    """The severity of `check` in `profile`, or None when the profile does not report it."""
    return RULES_BY_ID[check].severity.get(profile)


def rules_of(profile: Profile) -> list[Rule]:
    return [rule for rule in RULES if profile in rule.severity]
