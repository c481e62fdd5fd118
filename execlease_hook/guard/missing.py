"""An entry the staged code no longer has where the manifest says: the block that says why (its
file deleted or renamed, the function renamed: rename_hint.py) and where it moved, with the
manifest line to edit."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import TYPE_CHECKING

from execlease_hook.core import paths
from execlease_hook.core.errors import CannotRun
from execlease_hook.coverage import rename_hint
from execlease_hook.fingerprint.scheme import matches
from execlease_hook.fingerprint.tokens import tokens
from execlease_hook.git import repo
from execlease_hook.guard import anchor_fix
from execlease_hook.locate.entry import find_functions, locate
from execlease_hook.locate.source import language_for
from execlease_hook.manifest.model import CoveredEntry, Manifest

if TYPE_CHECKING:
    from execlease_hook.coverage.compare import EntryStatus
    from execlease_hook.git.blobs import CommitSource, IndexSource


def _manifest_line(entry: CoveredEntry, text: str) -> int | None:
    """The line of the entry's "path" in manifest.json's text (the stable dump: one key per line).

    Values are compared decoded, so a hand-written "\\u00fc" matches the path "ü"."""
    key_value = re.compile(r'"(id|path)"\s*:\s*("(?:[^"\\]|\\.)*")')
    seen_id = False
    for number, line in enumerate(text.splitlines(), 1):
        for key, raw in key_value.findall(line):
            try:
                value = json.loads(raw)
            except ValueError:
                continue
            if key == 'id':
                seen_id = value == entry.id
            elif seen_id and value == entry.path:
                return number
    return None


def missing_block(
    m: Manifest,
    s: EntryStatus,
    staged: list[repo.StagedChange],
    source: IndexSource | CommitSource,
    manifest_text: str,
    max_bytes: int,
) -> tuple[str, bool]:
    """The block for an entry that cannot be located; True when it also moved and changed."""
    e = s.entry
    lines = [f'{e.id}: {e.path}  (model action {e.action}): cannot locate the covered code']
    change = next((c for c in staged if e.path in (c.path, c.old_path)), None)
    if change is not None and change.status == 'D':
        lines.append(f'  {e.path} is deleted in this commit')
    elif change is not None and change.old_path == e.path:
        lines.append(f'  {e.path} is renamed to {change.path} in this commit')
    else:
        lines.append(f'  {s.problem}')
    moved = _find_moved(e, staged, source, change, max_bytes)
    where = paths.rel(m.root, m.path)
    line = _manifest_line(e, manifest_text)
    at = f'{where}:{line}' if line else where
    for path, start, same in moved:
        lines += (
            f'  it moved unchanged to {path}:{start} (same fingerprint)'
            if same
            else f'  found at {path}:{start}, but changed: covered code changed',
            f'  {at}: change "path": "{e.path}" to "path": "{path}", then '
            + ('`execlease coverage --write-map`' if same else 'follow the steps below'),
        )
    renamed = None
    if not moved and e.function is not None and (change is None or change.status != 'D'):
        # The function a covered function was renamed to, in its file or its rename target.
        files = [change.path] if change is not None and change.old_path == e.path else [e.path]
        source.prefetch(files)
        renamed = rename_hint.find(m, e, files, source.read, _synced(m, e), max_bytes)
    if renamed is not None:
        how = 'with the code it had at the sync' if renamed.unchanged else 'its code differs'
        lines.append(
            f'  {renamed.path}:{renamed.line} defines {renamed.function}: renamed from '
            f'{e.function}? ({how})'
        )
        lines.extend(rename_hint.repair(m, e, renamed, at))
    elif not moved:
        # A region's anchors to paste: those standing where the synced region stood.
        code = source.read(e.path) if e.region else None
        fix = (
            anchor_fix.replacement(e, code, _synced(m, e), max_bytes) if code is not None else None
        )
        if fix is not None:
            lines += (
                *(f'  {why}' for why in fix.why),
                '  the anchors that stand where the synced region stood '
                '(then compared with its recorded hash):',
                *anchor_fix.manifest_edit(e, fix.region, at, manifest_text, line),
            )
        else:
            lines.append(
                f'  update the entry in {at} (path, function or anchors) so it matches exactly once; '
                '`execlease coverage` shows where each entry is'
            )
    changed = any(not same for _, _, same in moved) or (
        renamed is not None and not renamed.unchanged
    )
    return '\n'.join(lines), changed


def _synced(m: Manifest, e: CoveredEntry) -> bytes | None:
    """The entry's file as it was hashed: its synced blob, else the file at the sync commit."""
    sync = m.coverage.sync_commit
    specs = [s for s in (e.synced_blob, sync and f'{sync}:{e.path}') if s]
    found = repo.read_blobs(m.root, specs)
    return next((found[s] for s in specs if found[s] is not None), None)


def _find_moved(
    e: CoveredEntry,
    staged: list[repo.StagedChange],
    source: IndexSource | CommitSource,
    change: repo.StagedChange | None,
    max_bytes: int,
) -> list[tuple[str, int, bool]]:
    """Where the entry's code reappears in another staged file: (path, line, unchanged?)."""
    candidates = [c.path for c in staged if c.status != 'D' and c.path != e.path]
    if change is not None and change.old_path == e.path:
        candidates.insert(0, change.path)  # the rename target first
    candidates = [p for p in dict.fromkeys(candidates) if language_for(p) is not None]
    source.prefetch(candidates)
    found: list[tuple[str, int, bool]] = []
    for path in candidates:
        content = source.read(path)
        if content is None:
            continue
        try:
            if e.function is not None:
                hits = find_functions(path, content, e.function, max_bytes)
            else:
                hits = [locate(replace(e, path=path), content, tokens, max_bytes)]
        except CannotRun:
            continue
        found.extend((path, h.start_line, e.hash is not None and matches(h, e.hash)) for h in hits)
    return found
