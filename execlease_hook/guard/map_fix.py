"""The guard's one repair: a stale NOTES.md code-to-action table, when nothing else is wrong.

Lines move (an import added above covered code) without anything covered changing; the table
then cites old lines. That repair is always the same, so the guard makes it itself, the way
pre-commit's fixer hooks do: it rewrites the table in the index and in the working tree, says
what changed, and exits 1 so that the commit is run again (and then records the fixed table).
The table written is `coverage/notes.map_table`'s, the one the check compares with, so the
commit run again passes. Lines typed by hand inside the table are overwritten the same way (the
table follows manifest.json and the code); the message then quotes them, so that nothing is lost.
"""

from __future__ import annotations

import contextlib

from execlease_hook.core import paths
from execlease_hook.core.atomic import write_text_atomic
from execlease_hook.core.errors import CannotRun
from execlease_hook.coverage import compare
from execlease_hook.coverage.notes import map_table
from execlease_hook.git import repo
from execlease_hook.git.blobs import IndexSource
from execlease_hook.guard.check import Findings
from execlease_hook.manifest import notes_table
from execlease_hook.manifest.model import Manifest


def fix(m: Manifest, source: IndexSource, found: Findings, max_bytes: int) -> str | None:
    """Rewrites the staged and the working tree's table; the message saying so. None when it
    cannot be fixed mechanically (an entry cannot be located, the markers are broken)."""
    root = m.root
    folder, notes = paths.rel(root, m.folder), paths.rel(root, m.folder / 'NOTES.md')
    staged = source.read(notes)
    if staged is None:
        return None
    try:
        staged_text = staged.decode('utf-8')
        table = map_table(m, compare.compare(m, source, None, max_bytes))
        new_staged = notes_table.replace_table(staged_text, table, notes)
        staged_table = notes_table.current_table(staged_text, notes)
    except (UnicodeDecodeError, CannotRun):
        return None
    at_head = repo.read_blobs(root, [f'HEAD:{notes}'])[f'HEAD:{notes}'] if repo.head(root) else None
    head_text, head_table = (at_head or b'').decode('utf-8', errors='replace'), None
    if notes_table.has_markers(head_text):
        with contextlib.suppress(CannotRun):  # markers broken at HEAD: no table there
            head_table = notes_table.current_table(head_text, notes)
    lost = notes_table.hand_lines(staged_table, folder, head_table)
    repo.stage_blob(root, notes, repo.write_blob_data(root, new_staged.encode('utf-8')))
    path = m.folder / 'NOTES.md'
    try:
        text = path.read_text(encoding='utf-8')
        new_text = notes_table.replace_table(text, table, notes)
        here = notes_table.hand_lines(notes_table.current_table(text, notes), folder, head_table)
        lost += (line for line in here if line not in lost)
        if new_text != text:
            write_text_atomic(path, new_text)
        worktree = 'the working tree and the index'
    except (OSError, UnicodeDecodeError, CannotRun) as e:
        worktree = f'the index (not the working tree: {e})'
    lines = [
        f'execlease guard: {notes}: the code-to-action table was out of date (nothing covered '
        f'changed); rewritten in {worktree}:',
        *found.stale_map[1:],
    ]
    if lost:
        lines.append(
            f'warning: lines edited inside the generated table of {notes} were overwritten (the '
            'table is generated from manifest.json and the code: edit those, or write notes '
            'outside the markers); they were:'
        )
        lines.extend(f'  {line}' for line in lost)
    lines.append('The fix is staged: run the commit again.')
    return '\n'.join(lines)
