"""The audit's checks: pure functions from replies to issues.

Each check returns `Issue`s naming a rule of `rules.RULES`; it may name rules
of both profiles (say `mcp.prefix` and `rea.prefix-match` for the same
stray value) and the profile picks which are reported. Nothing here sends a
request or knows about budgets.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from rea_tui.host.audit.matching import fold, folded_prefix_of
from rea_tui.host.audit.report import Exchange
from rea_tui.host.audit.rules import INVALID_PARAMS, MAX_VALUE_CHARS, MAX_VALUES, Severity
from rea_tui.host.audit.visible import visible_json
from rea_tui.host.features.completion import target_opening

QUOTE_LIMIT: Final = 60
LIST_LIMIT: Final = 3


@dataclass(frozen=True)
class Issue:
    check: str
    message: str
    severity: Severity | None = None
    """Overrides the rule's severity for this one issue (used to lower it)."""


@dataclass(frozen=True)
class Reply:
    """A `completion/complete` result, read without trusting it."""

    values: tuple[Any, ...] = ()
    strings: tuple[str, ...] = ()
    total: int | None = None
    total_given: bool = False
    has_more: bool | None = None
    problems: tuple[str, ...] = ()
    usable: bool = False

    @property
    def complete(self) -> bool:
        """Every match is in `values`, as far as the reply says."""
        return self.usable and self.has_more is not True and (self.total is None or self.total <= len(self.values))

    def same_as(self, other: Reply) -> bool:
        return (self.values, self.total, self.has_more, self.usable) == (
            other.values,
            other.total,
            other.has_more,
            other.usable,
        )


def quote(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """A short JSON rendering of a value for a finding's message."""
    if isinstance(value, str) and len(value) > limit:
        return visible_json(value[:limit])[:-1] + f'..." ({len(value):,} characters)'
    return visible_json(value)


def quote_list(values: Sequence[Any]) -> str:
    shown = ", ".join(quote(v) for v in values[:LIST_LIMIT])
    more = len(values) - LIST_LIMIT
    return shown + (f" and {more} more" if more > 0 else "")


def values_phrase(count: int, singular: str = "value is", plural: str = "values are") -> str:
    return f"{count} {singular if count == 1 else plural}"


def parse_reply(result: Mapping[str, Any] | None) -> Reply:
    if result is None:
        return Reply(problems=("the result is not a JSON object",))
    completion = result.get("completion")
    if not isinstance(completion, dict):
        return Reply(problems=("the result has no completion object",))
    raw_values = completion.get("values")
    if not isinstance(raw_values, list):
        return Reply(problems=(f"completion.values is not a list (it is {type(raw_values).__name__})",))
    problems: list[str] = []
    raw_total = completion.get("total")
    total: int | None = None
    if isinstance(raw_total, int) and not isinstance(raw_total, bool):
        total = raw_total
    elif raw_total is not None:
        problems.append(f"completion.total is not an integer ({quote(raw_total)})")
    raw_more = completion.get("hasMore")
    has_more: bool | None = None
    if isinstance(raw_more, bool):
        has_more = raw_more
    elif raw_more is not None:
        problems.append(f"completion.hasMore is not a boolean ({quote(raw_more)})")
    values = tuple(raw_values)
    return Reply(
        values=values,
        strings=tuple(v for v in values if isinstance(v, str)),
        total=total,
        total_given=raw_total is not None,
        has_more=has_more,
        problems=tuple(problems),
        usable=True,
    )


def reply_issues(reply: Reply) -> list[Issue]:
    """The rules every completion reply must keep, whatever was asked."""
    issues: list[Issue] = []
    if reply.problems:
        issues.append(Issue("mcp.reply-shape", "; ".join(reply.problems)))
    if not reply.usable:
        return issues
    count = len(reply.values)
    if count > MAX_VALUES:
        issues.append(Issue("mcp.max-values", f"{count} values; MCP allows at most {MAX_VALUES}"))
    others = [v for v in reply.values if not isinstance(v, str)]
    if others:
        phrase = values_phrase(len(others), "value is not a string", "values are not strings")
        issues.append(Issue("mcp.string-values", f"{phrase}: {quote_list(others)}"))
    repeated = [v for v, n in Counter(reply.strings).items() if n > 1]
    if repeated:
        phrase = values_phrase(len(repeated), "value appears", "values appear")
        issues.append(Issue("mcp.duplicates", f"{phrase} more than once: {quote_list(repeated)}"))
    total = reply.total
    if total is not None and total < count:
        issues.append(Issue("mcp.total", f"total {total} is below the {count} values sent"))
    if total is not None and reply.has_more is True and total <= count:
        issues.append(Issue("mcp.has-more", f"hasMore is true but total {total} says all {count} values were sent"))
    if total is not None and reply.has_more is not True and total > count:
        state = "false" if reply.has_more is False else "absent"
        issues.append(Issue("mcp.has-more", f"hasMore is {state} but total {total} exceeds the {count} values sent"))
    if not reply.total_given:
        issues.append(Issue("rea.total", "total is missing"))
    strings = list(reply.strings)
    for before, after in itertools.pairwise(strings):
        if after < before:
            issues.append(Issue("rea.code-point-order", f"{quote(after)} comes after {quote(before)}"))
            break
    long_values = [v for v in strings if len(v) > MAX_VALUE_CHARS]
    if long_values:
        longest = max(len(v) for v in long_values)
        issues.append(
            Issue(
                "rea.value-length",
                f"{values_phrase(len(long_values))} over {MAX_VALUE_CHARS:,} characters (the longest has {longest:,})",
            )
        )
    return issues


def prefix_issues(reply: Reply, prefix: str) -> list[Issue]:
    """Values that are not (NFKC, case-insensitive) prefix matches."""
    strays = [v for v in reply.strings if not folded_prefix_of(v, prefix)]
    if not strays:
        return []
    strayed = values_phrase(len(strays), "value does", "values do")
    message = f"{strayed} not start with the prefix {quote(prefix)}: {quote_list(strays)}"
    return [Issue("mcp.prefix", message), Issue("rea.prefix-match", message)]


def narrowing_issues(parent_prefix: str, parent: Reply, child_prefix: str, child: Reply) -> list[Issue]:
    """What a longer prefix's reply must keep from a shorter one's."""
    if not (parent.usable and child.usable):
        return []
    issues: list[Issue] = []
    offered = set(parent.strings)
    if parent.complete:
        extra = [v for v in child.strings if v not in offered]
        if extra:
            issues.append(
                Issue(
                    "narrowing.subset",
                    f"{quote(child_prefix)} offers {quote_list(extra)}, not among the values of the complete reply "
                    f"to {quote(parent_prefix)}",
                )
            )
    if parent.total is not None and child.total is not None and child.total > parent.total:
        issues.append(
            Issue(
                "narrowing.total",
                f"total grows from {parent.total} ({quote(parent_prefix)}) to {child.total} ({quote(child_prefix)})",
            )
        )
    if child.complete:
        kept = set(child.strings)
        missing = [v for v in parent.strings if v.startswith(child_prefix) and v not in kept]
        if missing:
            issues.append(
                Issue(
                    "narrowing.kept",
                    f"the complete reply to {quote(child_prefix)} leaves out {quote_list(missing)}, offered for "
                    f"{quote(parent_prefix)} and starting with {quote(child_prefix)}",
                )
            )
    return issues


def _signature(exchange: Exchange) -> tuple[Any, ...]:
    if exchange.outcome == "result":
        reply = parse_reply(exchange.result)
        return ("result", reply.values, reply.total, reply.has_more, reply.usable)
    return (exchange.outcome, exchange.error_code)


def _still_opening(exchange: Exchange) -> bool:
    """The server said its data was not loaded yet (REA's target still opening)."""
    return isinstance(exchange.result, dict) and target_opening(exchange.result)


def determinism_issues(first: Exchange, second: Exchange, what: str = "the same request") -> list[Issue]:
    if not (first.answered and second.answered) or _signature(first) == _signature(second):
        return []
    if _still_opening(first) or _still_opening(second):
        return []  # a reply given before the data was loaded may differ from one given after
    return [Issue("determinism.repeat", f"{what} got a different reply the second time")]


def transform_issues(kind: str, prefix: str, changed: str, base: Reply, other: Reply) -> list[Issue]:
    """A prefix in another case (`kind` "case") or NFKC form ("nfkc") must get the same reply."""
    if not (base.usable and other.usable) or base.same_as(other):
        return []
    if sorted(map(fold, base.strings)) == sorted(map(fold, other.strings)) and base.total == other.total:
        return [
            Issue(
                "rea.original-spelling",
                f"{quote(changed)} gets {quote_list(other.strings)} where {quote(prefix)} gets "
                f"{quote_list(base.strings)}: the spelling follows the prefix",
            )
        ]
    check = "rea.case-insensitive" if kind == "case" else "rea.nfkc"
    return [
        Issue(
            check,
            f"{quote(changed)} gets {len(other.strings)} values (total {other.total}) where {quote(prefix)} "
            f"gets {len(base.strings)} (total {base.total})",
        )
    ]


def has_field_diagnostics(data: Any) -> bool:
    """`data.errors` is a non-empty list of `{field, message}` strings (the REA contract)."""
    if not isinstance(data, dict):
        return False
    errors = data.get("errors")
    return (
        isinstance(errors, list)
        and bool(errors)
        and all(
            isinstance(e, dict) and isinstance(e.get("field"), str) and isinstance(e.get("message"), str)
            for e in errors
        )
    )


def _rejection(exchange: Exchange) -> str:
    """Why `exchange` is not a -32602 with field diagnostics ("" when it is)."""
    if exchange.outcome == "result":
        return "it was answered with a result"
    if exchange.error_code != INVALID_PARAMS:
        return f"the error code is {exchange.error_code}, not {INVALID_PARAMS}"
    if not has_field_diagnostics(exchange.error_data):
        return "the error has no data.errors [{field, message}]"
    return ""


def unknown_argument_issues(argument: str, exchange: Exchange) -> list[Issue]:
    if not exchange.answered:
        return []
    issues: list[Issue] = []
    if exchange.outcome == "result":
        reply = parse_reply(exchange.result)
        if reply.values:
            issues.append(
                Issue(
                    "errors.unknown-argument",
                    f"{len(reply.values)} values offered for {quote(argument)}, an argument the target does not have",
                )
            )
    why = _rejection(exchange)
    if why:
        issues.append(Issue("rea.unknown-argument-rejected", f"the unknown argument {quote(argument)}: {why}"))
    return issues


def over_long_issues(length: int, exchange: Exchange) -> list[Issue]:
    if not exchange.answered:
        return []
    why = _rejection(exchange)
    return [Issue("rea.over-long-rejected", f"a {length:,}-character value: {why}")] if why else []


def error_reply_issues(exchange: Exchange, what: str) -> list[Issue]:
    """A well-formed request answered with a JSON-RPC error."""
    if exchange.outcome != "error":
        return []
    message = f"{what} got error {exchange.error_code} instead of a result"
    return [Issue("mcp.error-reply", message), Issue("rea.empty-not-error", message)]
