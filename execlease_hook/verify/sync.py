"""`execlease verify --update-coverage [--reason TEXT]`: record that the model describes the code.

Only after the whole suite passed (whatever it runs, it must all have held) does the sync
rewrite manifest.json, atomically: what docs/architecture.md lists, and why `syncedBlob` is
written into git's object database (a later blocked commit shows the change since the hashed code).

A sync is a claim that the model describes the code. When covered code moved and no model file
did, the claim rests on a judgement nobody wrote down: the sync refuses (exit 1) unless given
`--reason`, which is recorded as `syncReason` on the entries it concerns.
"""

from __future__ import annotations

import dataclasses

from execlease_hook.core import paths
from execlease_hook.coverage.notes import write_map
from execlease_hook.git import repo
from execlease_hook.git.blobs import WorktreeSource
from execlease_hook.manifest import model, notes_table, write
from execlease_hook.spec import record
from execlease_hook.tlc.kinds import KINDS
from execlease_hook.verify.result import ModelResult

# The failures a sync resolves: covered code changed since the last sync, or never synced.
COVERAGE_FAILURE = ('covered code changed', 'covered code never synced')
# The notes a sync makes stale: the states, the model and the record it rewrote.
RECORDED_NOTES = ('distinct states', 'since the last sync', 'older execlease wrote')


def update_coverage(r: ModelResult, reason: str | None = None) -> None:
    """Record the working tree's fingerprints and content, the model hash, HEAD and states."""
    m = r.manifest
    if reason is not None and not reason.strip():
        r.problems.append('--reason: give the reason in words (it is recorded in manifest.json)')
        return
    if r.problems:
        r.problems.append(f'{m.path}: not updating coverage: the suite could not run completely')
        return
    if any(not f.startswith(COVERAGE_FAILURE) for f in r.failures):
        r.failures.append(
            f'{m.path}: not updating coverage: every check, mutation and finding, and everything else '
            'the suite checks (named above), must hold first (nothing was changed)',
        )
        return
    if not m.covers_code:  # a model of no code: no hashes, no map; only the states
        checks = _checked_states(r)
        if checks == m.checks or _written(r, dataclasses.replace(m, checks=checks), 'the states'):
            r.notes = [n for n in r.notes if 'distinct states' not in n]
        return

    source = WorktreeSource(m.root)
    view = record.read(m, source)
    model_hash = record.record(view)
    compared = record.compare(view, source)  # per definition: a comment is no change
    code_moved = [s for s in r.coverage if s.status == 'changed']  # not a new entry nor scheme
    # An older record's form alone (compared.upgrade) is no change of the model.
    if code_moved and not compared.changes and reason is None:
        names = ', '.join(f'{s.entry.id} ({s.where}, action {s.entry.action})' for s in code_moved)
        r.failures.append(
            f'{paths.rel(m.root, m.path)}: not updating coverage: covered code changed since the last sync '
            f'({names}) but no definition of the model (spec, cfgs) did. If the model already describes the new '
            'code, say why: --update-coverage --reason "..." (recorded in manifest.json with these '
            'entries and shown by `execlease coverage`); otherwise change the model first. Nothing was changed.',
        )
        return
    covered = sorted({s.entry.path for s in r.coverage})
    blobs = repo.write_blobs(m.root, covered)
    # Each file's synced blob as its first entry recorded it.
    before_blobs = {
        e.path: e.synced_blob for e in reversed(m.coverage.entries) if e.synced_blob is not None
    }
    entries = []
    for s in r.coverage:
        e = s.entry
        if s.current != e.hash:
            # An entry unchanged under an older scheme (ts1) is re-recorded in the current one.
            scheme = ' (same code, new fingerprint scheme)' if s.status == 'unchanged' else ''
            r.moved.append(f'entry {e.id} ({s.where}): {e.hash or "none"} -> {s.current}{scheme}')
        # The reason explains this code; a sync with a model change needs none.
        why = reason if s.status == 'changed' else e.sync_reason
        if why != e.sync_reason and why is not None:
            r.moved.append(f'entry {e.id}: syncReason "{why}"')
        entries.append(
            dataclasses.replace(e, hash=s.current, synced_blob=blobs[e.path], sync_reason=why)
        )
    for path in covered:
        if before_blobs.get(path) != blobs[path]:
            r.moved.append(
                f'synced blob of {path}: {(before_blobs.get(path) or "none")[:12]} -> {blobs[path][:12]}'
            )
    if model_hash != m.coverage.model_hash:
        if isinstance(m.coverage.model_hash, str):
            changed = ['recorded per definition from now on (was one sha256 of the bytes)']
        else:
            changed = (
                [*compared.changes, *compared.upgrade] if m.coverage.model_hash is not None else []
            )
        r.moved.append('modelHash: ' + ('; '.join(changed) or 'recorded'))
    head = repo.head(m.root)
    if head != m.coverage.sync_commit:
        r.moved.append(
            f'syncCommit: {m.coverage.sync_commit or "none"} -> {head or "none (no commit yet)"}'
        )
    checks = _checked_states(r)
    updated = dataclasses.replace(
        m,
        checks=checks,
        coverage=dataclasses.replace(
            m.coverage, entries=tuple(entries), model_hash=model_hash, sync_commit=head
        ),
    )
    if updated != m and not _written(r, updated, 'coverage'):
        return
    # The NOTES.md table regenerated when the model keeps one, so the next commit's map is current.
    notes = m.folder / 'NOTES.md'
    try:
        has_table = notes_table.has_markers(notes.read_text(encoding='utf-8'))
    except (OSError, UnicodeDecodeError):
        has_table = False
    if has_table and write_map(updated, r.coverage):
        r.moved.append(f'{paths.rel(m.root, notes)}: code-to-action table rewritten')
    # The coverage failures were what --update-coverage was asked to record.
    r.failures = [f for f in r.failures if not f.startswith(COVERAGE_FAILURE)]
    r.notes = [n for n in r.notes if not any(words in n for words in RECORDED_NOTES)]


def _checked_states(r: ModelResult) -> tuple[model.Check, ...]:
    """The manifest's checks with the distinct-state counts this run's check jobs found (a check
    that did not run keeps its count); each count that moved is noted in r.moved."""
    m = r.manifest
    distinct = {
        j.job.name: j.verdict.distinct
        for j in r.jobs
        if KINDS[j.job.kind].records_states and j.verdict
    }
    checks = []
    for c in m.checks:
        states = distinct.get(c.name, c.states)
        if states != c.states:
            r.moved.append(
                f'check {c.name} states: {c.states if c.states is not None else "none"} -> {states}'
            )
        checks.append(dataclasses.replace(c, states=states))
    return tuple(checks)


def _written(r: ModelResult, updated: model.Manifest, what: str) -> bool:
    """The manifest rewritten; else (False) the problem said, and nothing moved."""
    m = r.manifest
    try:
        write.write(m.path, updated)
    except OSError as e:
        r.problems.append(
            f'{m.path}: not updating {what}: cannot write it ({e.strerror or e}); make '
            f'{m.folder} writable and run again (nothing was changed)'
        )
        r.moved = []
        return False
    return True
