"""The bounded battery of completion requests for one prompt or resource template.

For each argument, in this order (so a request limit keeps the most telling
requests): the empty value twice (determinism), an over-long value and a
request after it (the connection still answers), each other argument filled
in with its first suggestion (context sensitivity), every other argument set
to an unknown value (an empty list, not an error), each distinct first
character of the values, prefixes growing along a few of the values
(narrowing), and in the `rea` profile the same prefix in another letter case
and in fullwidth forms. Once per target, an argument it does not have.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from rea_tui.host.audit.channel import ArgumentCapReached, AuditChannel, Hung, Lost
from rea_tui.host.audit.checks import (
    Issue,
    Reply,
    determinism_issues,
    error_reply_issues,
    narrowing_issues,
    over_long_issues,
    parse_reply,
    prefix_issues,
    quote,
    transform_issues,
    unknown_argument_issues,
)
from rea_tui.host.audit.matching import ascii_swapcase, can_widen, fullwidth, has_ascii_letter
from rea_tui.host.audit.report import ArgumentStats, Exchange, TargetReport
from rea_tui.host.audit.rules import MAX_VALUE_CHARS
from rea_tui.host.features.completion import CompletionRef

OVER_LONG_LENGTH: Final = MAX_VALUE_CHARS + 1
OVER_LONG_CHARACTER: Final = "x"
UNKNOWN_ARGUMENT: Final = "rea-tui-audit-no-such-argument"
UNKNOWN_CONTEXT_VALUE: Final = "rea-tui-audit-unknown-value"
MAX_CONTEXT_PROBES: Final = 8
MAX_FIRST_CHARACTERS: Final = 12
MAX_SEEDS: Final = 6
MAX_PREFIX_CHARS: Final = 64
PREFIX_LENGTHS: Final = (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)


def prefix_lengths(length: int) -> list[int]:
    """The prefix lengths grown along a value of `length` characters (its whole length when short enough)."""
    lengths = [k for k in PREFIX_LENGTHS if k < length]
    if 1 < length <= MAX_PREFIX_CHARS:
        lengths.append(length)
    return lengths


def first_characters(values: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(v[0] for v in values if v))[:MAX_FIRST_CHARACTERS]


def first_suggestion(exchange: Exchange | None) -> str | None:
    """The first value of a usable reply, if it is one a server must accept back."""
    if exchange is None or exchange.outcome != "result":
        return None
    strings = parse_reply(exchange.result).strings
    if not strings or not strings[0] or len(strings[0]) > MAX_VALUE_CHARS:
        return None
    return strings[0]


@dataclass
class _Probe:
    prefix: str
    exchange: Exchange
    reply: Reply


@dataclass
class TargetBattery:
    """The battery for one target's arguments."""

    channel: AuditChannel
    ref: CompletionRef
    target: TargetReport
    arguments: Sequence[str]
    empty: dict[str, Exchange] = field(default_factory=dict)
    """Each argument's reply to the empty value (no context)."""
    skipped: set[str] = field(default_factory=set)

    def stats(self, argument: str) -> ArgumentStats:
        return self.target.argument(argument)

    def suggestion(self, argument: str) -> str | None:
        return first_suggestion(self.empty.get(argument))

    async def guarded(self, argument: str | None, step: Callable[[], Awaitable[None]]) -> None:
        """Run one step; a hang, an exit or the request limit ends it, and the audit goes on."""
        stats = self.stats(argument) if argument is not None else None
        try:
            await step()
        except ArgumentCapReached:
            pass
        except Hung as hung:
            self.channel.flag([_timeout_issue(self.channel.timeout_s)], self.ref, argument, [hung.exchange])
            if argument is not None:
                self.skipped.add(argument)
            if stats is not None:
                stats.stopped = "timeout"
        except Lost as lost:
            await self.lost(argument, lost.exchange)

    async def lost(self, argument: str | None, exchange: Exchange, *, stop: bool = True) -> None:
        """Report the exit and reconnect; with `stop`, the argument's battery ends here."""
        self.channel.flag(
            [Issue("transport.exited", f"the server went away during the request: {exchange.note}")],
            self.ref,
            argument,
            [exchange],
        )
        if argument is not None and stop:
            self.stats(argument).stopped = "server exited"
            self.skipped.add(argument)
        await self.channel.restart()

    async def run(self) -> None:
        for argument in self.arguments:
            self.channel.position = (self.ref.name, argument)
            await self.guarded(argument, functools.partial(self.empty_twice, argument))
        if self.arguments:
            self.channel.position = (self.ref.name, None)
            await self.guarded(None, self.unknown_argument)
        for argument in self.arguments:
            if argument in self.skipped:
                continue
            self.channel.position = (self.ref.name, argument)
            battery = ArgumentBattery(self, argument)
            await self.guarded(argument, battery.errors)
            if argument in self.skipped:
                continue
            await self.guarded(argument, battery.explore)

    async def empty_twice(self, argument: str) -> None:
        stats = self.stats(argument)
        first = await self.channel.complete(self.ref, argument, "", stats=stats)
        self.empty[argument] = first
        self.channel.flag(error_reply_issues(first, "the empty value"), self.ref, argument, [first])
        if first.outcome == "result":
            reply = parse_reply(first.result)
            if reply.usable:
                stats.values, stats.total, stats.has_more = len(reply.values), reply.total, reply.has_more
        second = await self.channel.complete(self.ref, argument, "", stats=stats)
        self.channel.flag(determinism_issues(first, second, "the empty value"), self.ref, argument, [second, first])

    async def unknown_argument(self) -> None:
        name = UNKNOWN_ARGUMENT
        while name in self.arguments:
            name += "-"
        exchange = await self.channel.complete(self.ref, name, "", target=self.target)
        self.channel.flag(unknown_argument_issues(name, exchange), self.ref, None, [exchange])


def _timeout_issue(timeout_s: float, what: str = "the request") -> Issue:
    return Issue("transport.timeout", f"no reply to {what} within {timeout_s:g} s (the request was cancelled)")


class ArgumentBattery:
    """Phase two of one argument's battery (the empty value was asked already)."""

    def __init__(self, owner: TargetBattery, argument: str) -> None:
        self.owner = owner
        self.channel = owner.channel
        self.ref = owner.ref
        self.argument = argument
        self.stats = owner.stats(argument)
        self.others = [a for a in owner.arguments if a != argument]
        self.context: dict[str, str] = {}
        self.base: _Probe | None = None
        empty = owner.empty.get(argument)
        if empty is not None and empty.outcome == "result":
            self.base = _Probe("", empty, parse_reply(empty.result))
        self.probes: dict[str, _Probe] = {}

    async def ask(self, value: str, context: Mapping[str, str] | None = None) -> Exchange:
        return await self.channel.complete(self.ref, self.argument, value, context, stats=self.stats)

    def flag(self, issues: Sequence[Issue], *exchanges: Exchange) -> None:
        self.channel.flag(issues, self.ref, self.argument, exchanges)

    # -- invalid requests, and the connection afterwards --------------------------------

    async def errors(self) -> None:
        try:
            probe = await self.ask(OVER_LONG_CHARACTER * OVER_LONG_LENGTH)
        except Lost as lost:
            # An exit on an invalid value is the finding; the battery goes on after a reconnect.
            await self.owner.lost(self.argument, lost.exchange, stop=False)
        else:
            self.flag(over_long_issues(OVER_LONG_LENGTH, probe), probe)
        try:
            after = await self.ask("")
        except Hung as hung:
            self.flag(
                [Issue("errors.alive", "the connection stopped answering after the over-long value")], hung.exchange
            )
            self.owner.skipped.add(self.argument)
            self.stats.stopped = "stopped answering"
            await self.channel.restart()
            return
        empty = self.owner.empty.get(self.argument)
        if empty is not None:
            self.flag(
                determinism_issues(empty, after, "the empty value, asked again after other requests"), after, empty
            )

    # -- context, prefixes, transforms --------------------------------------------------

    async def explore(self) -> None:
        await self.contexts()
        base = self.base
        if base is None or not base.reply.usable:
            return
        characters = first_characters(base.reply.strings)
        for character in characters:
            await self.prefix(character, base)
        seeds = self.seeds(characters)
        chains = {seed: prefix_lengths(len(seed)) for seed in seeds}
        depth = 0
        transformed = False
        while any(depth < len(lengths) for lengths in chains.values()):
            for seed, lengths in chains.items():
                if depth >= len(lengths):
                    continue
                # A fuzzy server's seed need not start with the character it was offered for.
                parent = self.probes.get(seed[: lengths[depth - 1]]) if depth else self.probes.get(seed[:1], base)
                if parent is None:
                    continue
                await self.prefix(seed[: lengths[depth]], parent)
            depth += 1
            if not transformed and self.channel.profile == "rea":
                transformed = True
                await self.transforms()
        if not transformed and self.channel.profile == "rea":
            await self.transforms()

    async def contexts(self) -> None:
        probed = 0
        for other in self.others:
            if probed >= MAX_CONTEXT_PROBES:
                break
            suggestion = self.owner.suggestion(other)
            if suggestion is None:
                continue
            probed += 1
            context = {other: suggestion}
            exchange = await self.ask("", context)
            self.flag(error_reply_issues(exchange, f"the empty value with {other}={quote(suggestion)}"), exchange)
            if exchange.outcome != "result" or self.base is None:
                continue
            reply = parse_reply(exchange.result)
            self.stats.context[other] = not reply.same_as(self.base.reply)
            if not self.context and not self.base.reply.strings and reply.strings:
                # Nothing without context: explore the prefixes in the first context that offers values.
                self.context = context
                self.base = _Probe("", exchange, reply)
        if self.others:
            unknown = dict.fromkeys(self.others[:MAX_CONTEXT_PROBES], UNKNOWN_CONTEXT_VALUE)
            exchange = await self.ask("", unknown)
            self.flag(
                error_reply_issues(exchange, "the empty value with other arguments set to unknown values"), exchange
            )

    def seeds(self, characters: Sequence[str]) -> list[str]:
        seeds: list[str] = []
        for character in characters:
            probe = self.probes.get(character)
            if probe is None or not probe.reply.strings:
                continue
            for value in (probe.reply.strings[0], probe.reply.strings[-1]):
                if value not in seeds and len(seeds) < MAX_SEEDS:
                    seeds.append(value)
        return seeds

    async def prefix(self, prefix: str, parent: _Probe) -> _Probe | None:
        """Ask for `prefix` (once) and check it against the reply to the shorter `parent` prefix."""
        probe = self.probes.get(prefix)
        if probe is None:
            exchange = await self.ask(prefix, self.context)
            self.flag(error_reply_issues(exchange, f"the prefix {quote(prefix)}"), exchange)
            if exchange.outcome != "result":
                return None
            probe = _Probe(prefix, exchange, parse_reply(exchange.result))
            self.probes[prefix] = probe
            self.flag(prefix_issues(probe.reply, prefix), exchange)
        self.flag(narrowing_issues(parent.prefix, parent.reply, prefix, probe.reply), probe.exchange, parent.exchange)
        return probe

    def transform_base(self, usable: Callable[[str], bool]) -> _Probe | None:
        """The first prefix asked whose reply has values and that `usable` accepts; two or more characters preferred."""
        candidates = [p for p in self.probes.values() if p.reply.strings and usable(p.prefix)]
        longer = [p for p in candidates if len(p.prefix) >= 2]
        chosen = longer or candidates
        return chosen[0] if chosen else None

    async def transforms(self) -> None:
        cased = self.transform_base(has_ascii_letter)
        if cased is not None:
            changed = ascii_swapcase(cased.prefix)
            exchange = await self.ask(changed, self.context)
            self.flag(error_reply_issues(exchange, f"the prefix {quote(changed)}"), exchange)
            if exchange.outcome == "result":
                reply = parse_reply(exchange.result)
                self.flag(prefix_issues(reply, changed), exchange)
                self.flag(transform_issues("case", cased.prefix, changed, cased.reply, reply), exchange, cased.exchange)
        wide = self.transform_base(can_widen)
        if wide is not None:
            changed = fullwidth(wide.prefix)
            exchange = await self.ask(changed, self.context)
            self.flag(error_reply_issues(exchange, f"the prefix {quote(changed)}"), exchange)
            if exchange.outcome == "result":
                reply = parse_reply(exchange.result)
                self.flag(prefix_issues(reply, changed), exchange)
                self.flag(transform_issues("nfkc", wide.prefix, changed, wide.reply, reply), exchange, wide.exchange)
