"""The analyst's notes: observations, inferences and unknowns, kept apart, each citing evidence."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Literal

NoteKind = Literal["observation", "inference", "unknown"]
NOTE_KINDS: tuple[NoteKind, ...] = ("observation", "inference", "unknown")
_CITATION = re.compile(r"\bE\d+\b")


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


def citations_in(text: str) -> list[str]:
    """Evidence ids written inline (`E3`), in order, without repeats."""
    return list(dict.fromkeys(_CITATION.findall(text)))


class Notebook:
    """The session's notes, in three separate lists."""

    def __init__(self) -> None:
        self.notes: list[Note] = []
        self._listeners: list[Callable[[Note | None], None]] = []

    def subscribe(self, listener: Callable[[Note | None], None]) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def _changed(self, note: Note | None) -> None:
        for listener in list(self._listeners):
            listener(note)

    def add(
        self, kind: NoteKind, text: str, cites: Iterable[str] = (), known_ids: Iterable[str] | None = None
    ) -> Note:
        """Add a note; cited ids are the given ones plus any written in the text.

        With `known_ids`, citing evidence that does not exist is refused.
        """
        if kind not in NOTE_KINDS:
            raise ValueError(f"a note is an observation, an inference or an unknown, not {kind!r}")
        text = text.strip()
        if not text:
            raise ValueError("a note needs some text")
        cited = list(dict.fromkeys([*cites, *citations_in(text)]))
        if known_ids is not None:
            known = set(known_ids)
            unknown = [c for c in cited if c not in known]
            if unknown:
                raise ValueError(f"no such evidence: {', '.join(unknown)}")
        note = Note(number=len(self.notes) + 1, kind=kind, text=text, cites=cited)
        self.notes.append(note)
        self._changed(note)
        return note

    def remove(self, number: int) -> None:
        self.notes = [n for n in self.notes if n.number != number]
        self._changed(None)

    def of_kind(self, kind: NoteKind) -> list[Note]:
        return [n for n in self.notes if n.kind == kind]
