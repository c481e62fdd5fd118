"""What execlease's own housekeeping could not do, said once at the end of a run.

The JVM's caches (the class-data archive, the compiled warm-JVM helper) only save time: when one
cannot be written (a full disk, a file-size limit, a read-only folder) the job runs without it and
its verdict is the same. A person should still learn why the run was slower and what to free, so
each such fallback leaves one note here, and `verify` prints them after its verdict. A note is
kept once however many jobs hit the same cause (the same text), and only the first few are kept.
"""

from __future__ import annotations

import threading

MAX_NOTES = 8  # one cause usually repeats in every job: a run shows its first few, not one per job

# Process-wide by design: the fallbacks happen inside the JVM machinery, on the pool's threads,
# far below the run that prints them; the run drains what its jobs left.
_lock = threading.Lock()
_notes: dict[str, None] = {}  # insertion-ordered set


def note(text: str) -> None:
    with _lock:
        if len(_notes) < MAX_NOTES:
            _notes.setdefault(text, None)


def drain() -> list[str]:
    """The notes since the last drain, in the order they were first said."""
    with _lock:
        said = list(_notes)
        _notes.clear()
    return said
