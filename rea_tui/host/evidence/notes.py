"""The analyst's notes: observations, inferences and unknowns, kept apart, each citing evidence."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

from rea_tui.host.protocol.observers import Listeners, Unsubscribe

NoteKind = Literal["observation", "inference", "unknown"]
NOTE_KINDS: tuple[NoteKind, ...] = ("observation", "inference", "unknown")
# An evidence ID written inline: the host's H3, a server's E-0004 (qualified by a server: rea:E-0004), or
# the E3 of a transcript from before host IDs.
_CITATION = re.compile(r"(?<![\w.:-])(?:(?:[a-z0-9][a-z0-9._-]*:)?E-?\d+|H\d+)(?![\w-])")
# The letters an evidence ID starts with (a server's E-0004, the host's H3), for completing one as it is typed.
ID_INITIALS = ("E", "H")
# Any word, for IDs of other shapes the ledger knows (trailing punctuation is not part of it).
_WORD = re.compile(r"[\w.:-]*[\w]")


@dataclass
class Note:
    number: int
    kind: NoteKind
    text: str
    cites: list[str] = field(default_factory=list)
    created: float = field(default_factory=time.time)

    def to_json(self) -> dict[str, object]:
        return {
            "number": self.number,
            "kind": self.kind,
            "text": self.text,
            "cites": self.cites,
            "created": self.created,
        }


def citations_in(text: str, known_ids: Iterable[str] = ()) -> list[str]:
    """Evidence IDs written inline (`E-0004`, `rea:E-0004`, `H3`, `E3`, or any of `known_ids`), in order, once each."""
    known = set(known_ids)
    found = [(m.start(), m.group()) for m in _CITATION.finditer(text)]
    if known:
        found += [(m.start(), m.group()) for m in _WORD.finditer(text) if m.group() in known]
    return list(dict.fromkeys(ref for _start, ref in sorted(found)))


@dataclass(frozen=True)
class NoteChanged:
    """A note was added, or removed."""

    note: Note
    removed: bool


class Notebook:
    """The session's notes, in three separate lists."""

    def __init__(self) -> None:
        self.notes: list[Note] = []
        self.listeners: Listeners[NoteChanged] = Listeners()

    def subscribe(self, listener: Callable[[NoteChanged], None]) -> Unsubscribe:
        return self.listeners.subscribe(listener)

    def _changed(self, note: Note, removed: bool) -> None:
        self.listeners.emit(NoteChanged(note, removed))

    def add(self, kind: NoteKind, text: str, cites: Iterable[str] = (), known_ids: Iterable[str] | None = None) -> Note:
        """Add a note; cited ids are the given ones plus any written in the text.

        With `known_ids`, citing evidence that does not exist is refused.
        """
        if kind not in NOTE_KINDS:
            raise ValueError(f"a note is an observation, an inference or an unknown, not {kind!r}")
        text = text.strip()
        if not text:
            raise ValueError("a note needs some text")
        known = set(known_ids) if known_ids is not None else set()
        cited = list(dict.fromkeys([*cites, *citations_in(text, known)]))
        if known_ids is not None:
            unknown = [c for c in cited if c not in known]
            if unknown:
                raise ValueError(f"no such evidence: {', '.join(unknown)}")
        note = Note(number=max((n.number for n in self.notes), default=0) + 1, kind=kind, text=text, cites=cited)
        self.notes.append(note)
        self._changed(note, False)
        return note

    def remove(self, number: int) -> None:
        for note in [n for n in self.notes if n.number == number]:
            self.notes.remove(note)
            self._changed(note, True)

    def of_kind(self, kind: NoteKind) -> list[Note]:
        return [n for n in self.notes if n.kind == kind]
