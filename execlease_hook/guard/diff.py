"""A changed entry's block: the diff of its staged code against the code it was synced with (the
synced blob, or the sync commit's file for a manifest of before synced blobs), its hunks at the
file's own line numbers, at most DIFF_LINES lines."""

from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING

from execlease_hook.core.errors import CannotRun
from execlease_hook.fingerprint.tokens import tokens
from execlease_hook.git import repo
from execlease_hook.locate.entry import locate
from execlease_hook.locate.source import language_for, parse_from
from execlease_hook.manifest.model import CoveredEntry, Manifest

if TYPE_CHECKING:
    from execlease_hook.coverage.compare import EntryStatus
    from execlease_hook.git.blobs import CommitSource, IndexSource


DIFF_LINES = 40


def _indent(content: bytes, start_byte: int) -> str:
    """What precedes the entry on its first line (a method's indentation), for a readable diff."""
    line_start = content.rfind(b'\n', 0, start_byte) + 1
    return content[line_start:start_byte].decode('utf-8', errors='replace')


def _shift_hunks(lines: list[str], old_first: int, new_first: int) -> list[str]:
    """difflib numbers lines from 1 within the entry; show the file's line numbers instead."""

    def shift(h: re.Match[str]) -> str:
        old, new = int(h[1]) + old_first - 1, int(h[3]) + new_first - 1
        return f'@@ -{old}{h[2] or ""} +{new}{h[4] or ""} @@'

    return [re.sub(r'^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@', shift, line) for line in lines]


def entry_diffs(
    m: Manifest,
    statuses: list[EntryStatus],
    source: IndexSource | CommitSource,
    label: str,
    max_bytes: int,
) -> dict[str, str]:
    """Per entry id: a short unified diff from the code as it was hashed to the judged code (in
    `source`, named `label`), or why there is none. The base is the entry's synced blob (written
    into the object database by the sync: exactly the hashed content), else, for manifests older
    than that, the file at coverage.syncCommit."""
    sync = m.coverage.sync_commit
    blobs = source.read_objects([s.entry.synced_blob for s in statuses if s.entry.synced_blob])
    old_files: dict[str, bytes | None] = {}
    if sync is not None and any(blobs.get(s.entry.synced_blob or '') is None for s in statuses):
        old_files = source.read_objects([f'{sync}:{s.entry.path}' for s in statuses])
    out: dict[str, str] = {}
    present: bool | None = None
    for s in statuses:
        e, located = s.entry, s.located
        assert located is not None
        content = blobs.get(e.synced_blob) if e.synced_blob else None
        base = f'{e.path} (as synced, blob {e.synced_blob[:12]})' if e.synced_blob else ''
        if content is None and sync is not None:
            content = old_files.get(f'{sync}:{e.path}')
            base = f'{e.path} @ {sync[:12]} (sync)'
        if content is None:
            if sync is not None and present is None:
                present = repo.rev_parse(m.root, sync) is not None
            out[e.id] = _no_diff(e, sync, present)
            continue
        now = source.read(e.path) or b''
        language = language_for(e.path)
        if language is not None:
            parse_from(language, content, now)  # the staged tree, reparsed where they differ
        try:
            before = locate(e, content, tokens, max_bytes)
        except CannotRun as err:
            out[e.id] = f'  (no diff: the entry cannot be located in the synced content: {err})'
            continue
        old = (_indent(content, before.start_byte) + before.text).splitlines()
        new = (_indent(now, located.start_byte) + located.text).splitlines()
        diff = difflib.unified_diff(old, new, base, f'{e.path} ({label})', n=2, lineterm='')
        lines = _shift_hunks(list(diff), before.start_line, located.start_line)
        lines = lines or [
            '(the text is the same; the syntax tree differs, e.g. the scheme or grammar changed)'
        ]
        if len(lines) > DIFF_LINES:
            lines = lines[:DIFF_LINES] + [f'... {len(lines) - DIFF_LINES} more diff lines']
        out[e.id] = '\n'.join(f'  {line}' for line in lines)
    return out


def _no_diff(e: CoveredEntry, sync: str | None, present: bool | None) -> str:
    lost = f'the synced blob {e.synced_blob[:12]} is not in this clone; ' if e.synced_blob else ''
    if sync is None:
        if e.synced_blob:
            return f'  (no diff: {lost[:-2]})'
        return '  (no diff: the manifest records neither a synced blob nor coverage.syncCommit yet)'
    if present is False:
        return (
            f'  (no diff: {lost}the sync commit {sync[:12]} is not in this clone, a shallow '
            'clone? `git fetch --unshallow` shows it)'
        )
    return f'  (no diff: {lost}{e.path} did not exist at the sync commit {sync[:12]})'
