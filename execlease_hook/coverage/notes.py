"""The code-to-action table of a model's NOTES.md (manifest/notes_table.py) from its coverage:
one row per covered entry, at the line the entry starts today."""
from __future__ import annotations

from execlease_hook.core import paths

from collections.abc import Sequence
from typing import TYPE_CHECKING
from execlease_hook.manifest import notes_table as notes_map
from execlease_hook.coverage.compare import EntryStatus
from execlease_hook.core.errors import CannotRun
from execlease_hook.manifest.model import Manifest
if TYPE_CHECKING:
    pass


def map_rows(m: Manifest, statuses: Sequence[EntryStatus]) -> list[notes_map.MapRow]:
    unlocated = [s for s in statuses if s.located is None]
    if unlocated:
        raise CannotRun(
            f'{paths.rel(m.root, m.folder / "NOTES.md")}: not written: '
            + ', '.join(s.entry.id for s in unlocated)
            + ' cannot be located (see above); fix the anchors first',
        )
    return [
        notes_map.MapRow(s.entry.action, s.entry.id, s.entry.path, s.located.start_line)
        for s in statuses if s.located is not None
    ]


def write_map(m: Manifest, statuses: Sequence[EntryStatus]) -> bool:
    folder = paths.rel(m.root, m.folder)
    table = notes_map.render(map_rows(m, statuses), folder, [(a.action, a.reason) for a in m.coverage.abstract])
    return notes_map.write_notes(m.folder / 'NOTES.md', table)
