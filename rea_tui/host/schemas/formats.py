"""The string formats rea-tui checks: the four the MCP elicitation schema allows.

`email`, `uri`, `date` and `date-time` are checked in the TUI and the CLI
alike; any other `format` is an annotation, as JSON Schema 2020-12 says by
default. Checking never looks anything up (an email's domain is not resolved).
"""

from __future__ import annotations

from collections.abc import Callable

from jsonschema import FormatChecker

# The formats that are checked, and what the analyst is told to type for each.
CHECKED_FORMATS: dict[str, str] = {
    "email": "name@example.org",
    "uri": "https://…",
    "date": "YYYY-MM-DD",
    "date-time": "YYYY-MM-DDThh:mm:ssZ",
}
# Strings longer than this are not run through the format parsers (their cost grows with the text).
FORMAT_LENGTH_LIMIT = 8_192


class FormatTooLong(ValueError):
    pass


class InvalidEmail(ValueError):
    """email_validator's verdict, in a class of ours: its parser loads with the first email checked."""


def _is_email(instance: object) -> bool:
    if not isinstance(instance, str):
        return True
    if len(instance) > FORMAT_LENGTH_LIMIT:
        raise FormatTooLong(f"longer than {FORMAT_LENGTH_LIMIT:,} characters")
    from email_validator import EmailNotValidError, validate_email

    try:
        # Syntax only: deliverability would mean a DNS query from the analyst's machine.
        validate_email(instance, check_deliverability=False)
    except EmailNotValidError as exc:
        raise InvalidEmail(str(exc)) from exc
    return True


def value_checker() -> FormatChecker:
    """The checker for values: jsonschema's uri/date/date-time (RFC 3986 / 3339) and a real email parser."""
    stock = FormatChecker(formats=("uri", "date", "date-time"))
    checker = FormatChecker(formats=())
    for name in ("uri", "date", "date-time"):
        function, raises = stock.checkers[name]
        checker.checks(name, raises=(*_tuple(raises), FormatTooLong))(_bounded(function))
    checker.checks("email", raises=(InvalidEmail, FormatTooLong))(_is_email)
    return checker


def _tuple(raises: type[Exception] | tuple[type[Exception], ...]) -> tuple[type[Exception], ...]:
    return raises if isinstance(raises, tuple) else (raises,)


def _bounded(function: Callable[[object], object]) -> Callable[[object], bool]:
    def check(instance: object) -> bool:
        if isinstance(instance, str) and len(instance) > FORMAT_LENGTH_LIMIT:
            raise FormatTooLong(f"longer than {FORMAT_LENGTH_LIMIT:,} characters")
        return bool(function(instance))

    return check


class PatternError(ValueError):
    """A schema's pattern the `regex` module cannot compile (its message is the module's)."""


def schema_checker() -> FormatChecker:
    """For checking a schema against its metaschema: patterns must compile as the `regex` module reads them."""

    def compiles(instance: object) -> bool:
        if not isinstance(instance, str):
            return True
        import regex  # with the first pattern: most schemas have none, and a one-shot `call` pays for the import

        try:
            regex.compile(instance)
        except regex.error as exc:
            raise PatternError(str(exc)) from None
        return True

    checker = FormatChecker(formats=())
    checker.checks("regex", raises=PatternError)(compiles)
    return checker
