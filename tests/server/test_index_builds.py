"""Indexes are built off the event loop: a completion asked while the first find_references builds the
reference index of libpython is answered before that build ends."""

from __future__ import annotations

import asyncio

from tests.server.live import LiveServer

WELL_KNOWN_MESSAGE = "object of type '%.200s' has no len()"
"""An error message of libpython: finding its references builds the strings and the reference index."""


async def test_completion_is_answered_while_an_index_builds() -> None:
    server = await LiveServer(mode="legacy").start()
    try:
        building = asyncio.create_task(server.structured("find_references", {"string": WELL_KNOWN_MESSAGE}))
        answered = 0
        while not building.done():
            page = await server.complete("procedure", "PyList_Appen")
            assert page.values == ["PyList_Append"]
            answered += 1 if not building.done() else 0
        found = await building
        assert found["total"] >= 1
        assert answered >= 1, "no completion was answered while the index was being built"
    finally:
        await server.stop()
