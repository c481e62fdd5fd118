"""The code-to-action table of a model's NOTES.md (manifest/notes_table.py) from its coverage:
`map_table`, the one rendering, in manifest.json's order, never the order entries were located in
(docs/architecture.md, covered code against the manifest, says who writes it and why).
"""

from __future__ import annotations

from collections.abc import Sequence

from execlease_hook.core import paths
from execlease_hook.core.errors import CannotRun
from execlease_hook.coverage.compare import EntryStatus
from execlease_hook.manifest import notes_table
from execlease_hook.manifest.model import Manifest


def map_table(m: Manifest, statuses: Sequence[EntryStatus]) -> str:
    """The table between the markers, each entry's row at the line where it starts today, then
    the abstract actions'; refuses when an entry was not located (or not compared at all)."""
    located = {s.entry.id: s.located for s in statuses if s.located is not None}
    unlocated = [e.id for e in m.coverage.entries if e.id not in located]
    if unlocated:
        raise CannotRun(
            f'{paths.rel(m.root, m.folder / "NOTES.md")}: not written: '
            + ', '.join(unlocated)
            + ' cannot be located (see above); fix the anchors first',
        )
    rows = [
        notes_table.MapRow(e.action, e.id, e.path, located[e.id].start_line)
        for e in m.coverage.entries
    ]
    abstract = [(a.action, a.reason) for a in m.coverage.abstract]
    return notes_table.render(rows, paths.rel(m.root, m.folder), abstract)


def write_map(m: Manifest, statuses: Sequence[EntryStatus]) -> bool:
    return notes_table.write_notes(m.folder / 'NOTES.md', map_table(m, statuses))
