"""Checks on what a provider answers, applied before anything trusts it.

A provider speaks plain JSON-like data, as an out-of-process backend would; a
malformed answer raises `MalformedOutput` here, so it can never surface an
unverified identifier.
"""

from __future__ import annotations

import re
from typing import Any

from rea_tui.server.providers.base import MalformedOutput

_ADDRESS = re.compile(r"^0x[0-9a-f]+$")

ProcedureRow = tuple[str, list[str]]
"""`(address as lowercase hex, every name at it)`."""


def validate_documents(raw: Any) -> list[str]:
    if not isinstance(raw, list):
        raise MalformedOutput("list_documents did not return a list")
    names: list[str] = []
    for item in raw:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item["name"]:
            raise MalformedOutput("list_documents returned an entry without a string name")
        names.append(item["name"])
    return names


def validate_page(raw: Any) -> tuple[list[ProcedureRow], int | None]:
    if not isinstance(raw, dict) or not isinstance(raw.get("procedures"), list):
        raise MalformedOutput("list_procedures did not return a page")
    next_offset = raw.get("next_offset")
    if next_offset is not None and (not isinstance(next_offset, int) or isinstance(next_offset, bool)):
        raise MalformedOutput("list_procedures returned a non-integer next_offset")
    records: list[ProcedureRow] = []
    for item in raw["procedures"]:
        if not isinstance(item, dict):
            raise MalformedOutput("procedure entry is not an object")
        address, names = item.get("address"), item.get("names")
        if not isinstance(address, str) or not _ADDRESS.match(address):
            raise MalformedOutput("procedure address is not a lowercase hex string")
        if not isinstance(names, list) or not all(isinstance(n, str) and n for n in names):
            raise MalformedOutput("procedure names is not a list of strings")
        records.append((address, names))
    return records, next_offset
