"""The code-to-action table of a model's NOTES.md (manifest/notes_table.py) from its coverage.

`map_table` is the one rendering of the table: the guard's check compares the staged table with
it, the guard's fix, `coverage --write-map`, `verify --update-coverage` and `add` write it. Its
rows follow manifest.json alone (the entries in their order, then the abstract actions in
theirs), never the order in which entries were located: the guard locates the staged files'
entries first, and a table ordered that way would differ from the one `--write-map` writes, so a
rewritten table would be stale again at the next commit.
"""

from __future__ import annotations

from collections.abc import Sequence

from execlease_hook.core import paths
from execlease_hook.core.errors import CannotRun
from execlease_hook.coverage.compare import EntryStatus
from execlease_hook.manifest import notes_table
from execlease_hook.manifest.model import Manifest


def map_table(m: Manifest, statuses: Sequence[EntryStatus]) -> str:
    """The table between the markers as generated for the manifest and the located code: a row
    per covered entry of the manifest, in the manifest's order, at the line where the entry
    starts today; refuses when an entry was not located (or not compared at all)."""
    by_id = {s.entry.id: s for s in statuses}
    rows: list[notes_table.MapRow] = []
    unlocated: list[str] = []
    for entry in m.coverage.entries:
        s = by_id.get(entry.id)
        if s is None or s.located is None:
            unlocated.append(entry.id)
        else:
            rows.append(
                notes_table.MapRow(entry.action, entry.id, entry.path, s.located.start_line)
            )
    if unlocated:
        raise CannotRun(
            f'{paths.rel(m.root, m.folder / "NOTES.md")}: not written: '
            + ', '.join(unlocated)
            + ' cannot be located (see above); fix the anchors first',
        )
    return notes_table.render(
        rows, paths.rel(m.root, m.folder), [(a.action, a.reason) for a in m.coverage.abstract]
    )


def write_map(m: Manifest, statuses: Sequence[EntryStatus]) -> bool:
    return notes_table.write_notes(m.folder / 'NOTES.md', map_table(m, statuses))
