"""The session's resource watches: updates of a URI nobody follows keep nothing; a URI a view shows is counted.

The subscribed path (counted and read again while the view is closed) runs against server-everything in
tests/ui/test_server_screens.py.
"""

from __future__ import annotations

from rea_tui.host import HostEvent, ResourceUpdated
from rea_tui.host.features.resource_watch import ResourceWatches, WatchedResource
from rea_tui.host.protocol.observers import Listeners

# As many distinct URIs as a misbehaving server might announce.
FLOOD = 10_000


def test_updates_of_unfollowed_uris_keep_nothing_and_a_shown_one_is_counted() -> None:
    events: Listeners[HostEvent] = Listeners()
    watches = ResourceWatches(events, lambda _name: None)  # no server ready: nothing is subscribed
    for number in range(FLOOD):
        events.emit(ResourceUpdated("hostile", f"file:///{number}"))
    assert len(watches) == 0

    shown = watches.get("hostile", "file:///shown")  # a view opened it
    changes: list[WatchedResource] = []
    shown.changed.subscribe(changes.append)
    events.emit(ResourceUpdated("hostile", "file:///shown"))
    events.emit(ResourceUpdated("other", "file:///shown"))  # another server's resource of the same URI
    assert shown.updates == 1 and shown.reads == 0  # not subscribed: counted, not read
    assert changes == [shown]
    assert watches.get("hostile", "file:///shown") is shown and len(watches) == 1
