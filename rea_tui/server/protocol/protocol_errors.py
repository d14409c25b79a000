"""Protocol errors: field diagnostics for invalid params, -32603 for the unexpected.

Schema-invalid params become JSON-RPC -32602 with `data.errors`, one
`{field, message}` per problem, so a client can fix the named field and retry
on the same connection. Any other exception becomes -32603. Nothing leaves
with code 0 (what the SDK sends for plain exceptions on legacy stdio).
"""

from __future__ import annotations

import logging
import re
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS
from pydantic import ValidationError

logger = logging.getLogger("rea_tui.server")

_MODEL_NAME = re.compile(r"^([A-Z][A-Za-z0-9]*|[a-z-]+\[.*\])$")

FieldError = dict[str, str]


class InvalidParams(MCPError):
    def __init__(self, errors: list[FieldError]) -> None:
        summary = "; ".join(f"{e['field']}: {e['message']}" for e in errors[:5])
        super().__init__(INVALID_PARAMS, f"Invalid params: {summary}", {"errors": errors})


def field_error(field: str, message: str) -> FieldError:
    return {"field": field, "message": message}


def validation_errors(exc: ValidationError) -> list[FieldError]:
    """Pydantic errors as `{field, message}`, the field being the dotted params path."""
    errors: list[FieldError] = []
    seen: set[tuple[str, str]] = set()
    for err in exc.errors(include_url=False, include_input=False):
        # Union members show up in `loc` as model names (`PromptReference`); they are not fields.
        loc = [str(part) for part in err.get("loc", ()) if not _MODEL_NAME.match(str(part))]
        if loc and loc[0] == "params":
            loc = loc[1:]
        entry = (".".join(loc) or "params", str(err.get("msg", "invalid")))
        if entry not in seen:
            seen.add(entry)
            errors.append(field_error(*entry))
    return errors or [field_error("params", "invalid")]


class ErrorMapping:
    """Server middleware: every request failure leaves as -32602 (with field errors) or -32603."""

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        try:
            return await call_next(ctx)
        except InvalidParams:
            raise
        except MCPError as exc:
            if exc.code == INVALID_PARAMS:
                data = exc.data if isinstance(exc.data, dict) else {}
                if "errors" not in data:
                    field = "requestState" if data.get("reason") == "invalid_request_state" else "params"
                    errors = [field_error(field, exc.message)]
                    raise MCPError(INVALID_PARAMS, exc.message, {**data, "errors": errors}) from exc
                raise
            if exc.code == 0:
                logger.error("request %s failed with code 0: %s", ctx.method, exc.message)
                raise MCPError(INTERNAL_ERROR, "Internal error", {"method": ctx.method}) from exc
            raise
        except ValidationError as exc:
            raise InvalidParams(validation_errors(exc)) from None
        except Exception as exc:
            logger.exception("request %s failed", ctx.method)
            raise MCPError(INTERNAL_ERROR, "Internal error", {"method": ctx.method}) from exc
