"""The guard's checks, once it knows that something a model governs is staged, on what it judges:
the index (a commit being made) or one commit (a pushed range), and each model as that snapshot
records it (its manifest, read with the covered blobs).

Kept whole, though long: it is the order of the checks of one commit. Each block it writes is
built where its check has the facts it names: a changed entry's diff in diff.py, a missing entry's
move or rename in missing.py; repairing the NOTES.md table is map_fix.py's, judging pushed commits
push_range.py's. Imported only once something is concerned (see stage.py): this module and what
it pulls in (manifest, coverage, tree-sitter) are the cost of such a commit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from execlease_hook.core import paths
from execlease_hook.core.errors import CannotRun
from execlease_hook.coverage import compare
from execlease_hook.git import repo
from execlease_hook.guard.diff import entry_diffs
from execlease_hook.manifest import model, read
from execlease_hook.manifest.model import CoveredEntry, Manifest, folder_prefix, library_folders

if TYPE_CHECKING:
    from execlease_hook.coverage.compare import EntryStatus
    from execlease_hook.git.blobs import CommitSource, IndexSource

STEPS = (
    'What to do (`execlease help covered-code` says more):',
    "  1. Find the entry's model action in the code-to-action map of {notes} and re-read both.",
    '  2. If the protocol changed, change the action so it matches the code: one action per atomic',
    "     step of the code, the action's enabling condition equal to the conditions the code acts on",
    "     (a query's filter, a lock held, the checks before a write), the cited file:line current.",
    '  3. Run `execlease verify`.',
    '  4. Only once the model describes the new code, run `execlease verify --update-coverage`',
    '     (records the new hashes and the synced code; if no model file changed, it asks for',
    '     --reason "why the model still holds"); then `git add` the manifest and commit again.',
)


@dataclass(frozen=True)
class Plan:
    """What one model needs checked for this commit."""

    entries: tuple[CoveredEntry, ...]
    model: bool  # spec or a cfg is staged: compare the model hash
    notes: bool  # check the NOTES.md table rows of these entries
    full_map: bool  # check the whole table (every entry): --all, manifest or NOTES.md staged
    watched: tuple[str, ...] = ()  # paths to search for uncovered protocol code (coverage.watch)


@dataclass
class Findings:
    """Blocking problems found for one model, as text blocks; the exit code they imply."""

    blocks: list[str] = field(default_factory=list)
    code: int = 0
    needs_steps: bool = False
    stale_map: list[str] = field(default_factory=list)  # the map's block lines, when it is stale

    @property
    def only_map(self) -> bool:
        """The NOTES.md table is the only thing out of date: a mechanical fix, no sync needed."""
        return bool(self.stale_map) and len(self.blocks) == 1

    def add(self, text: str, code: int, steps: bool = False) -> None:
        self.blocks.append(text)
        self.code = max(self.code, code)
        self.needs_steps = self.needs_steps or steps


@dataclass(frozen=True)
class Snapshot:
    """What the guard judges: the index or one commit."""

    source: IndexSource | CommitSource
    changes: list[repo.StagedChange]  # against HEAD, or against the commit's first parent
    label: str  # 'staged', or the commit's short id
    commit: str | None = None  # None: the index


def load_model(
    rel: str, root: Path, source: IndexSource | CommitSource, blob: bytes | None, worktree: bool
) -> tuple[Manifest, str, bool]:
    """The manifest at `rel` as `source` records it (`blob`, when already read), its text, and
    whether the working tree's file differs (`worktree`: compared, for the note about unstaged
    changes)."""
    blob = source.read(rel) if blob is None else blob
    if blob is None:
        raise CannotRun(
            f'{rel}: not in {source.description}; `git add` it (the guard judges what '
            'the commit records, never the working tree)'
        )
    try:
        text = blob.decode('utf-8')
    except UnicodeDecodeError as e:
        where = 'staged' if worktree else source.description
        raise CannotRun(
            f'{root / rel} ({where}): not UTF-8 (byte {e.start}); save it as UTF-8 and `git add` it'
        ) from None
    try:
        unstaged = worktree and (root / rel).read_bytes() != blob
    except OSError:
        unstaged = True
    return read.parse(text, root / rel, root), text, unstaged


def plan(m: Manifest, touched: set[str], check_all: bool) -> Plan:
    if not m.covers_code:  # a model of no code (no "coverage"): nothing for the guard to judge
        return Plan((), False, False, False, ())
    folder, prefix = paths.rel(m.root, m.folder), folder_prefix(m)
    everything = check_all or paths.rel(m.root, m.path) in touched
    entries = tuple(e for e in m.coverage.entries if everything or e.path in touched)
    model = everything or any(prefix + name in touched for name in m.model_files)
    if not model:  # a staged module the model may read (spec/modules.py) is the model too
        folders = [folder, *library_folders(m)]
        model = any(paths.module_in_folder(f, path) for f in folders for path in touched)
    full_map = everything or f'{prefix}NOTES.md' in touched
    watched: tuple[str, ...] = ()
    if m.coverage.watch:
        from execlease_hook.coverage import watch  # lazy: see check()

        watched = tuple(
            watch.watched(m, repo.tracked_files(m.root) if everything else sorted(touched))
        )
    return Plan(entries, model, full_map or bool(entries), full_map, watched)


def render(
    m: Manifest,
    found: Findings,
    unstaged_manifest: bool = False,
    subject: str = 'the commit',
    steps: bool = True,
) -> str:
    notes = paths.rel(m.root, m.folder / 'NOTES.md')
    where = paths.rel(m.root, m.path)
    lines = [f'execlease guard: {where}: {subject} is blocked', '']
    if unstaged_manifest:
        lines += (
            f'note: {where} has changes that are not staged; the guard judges the staged one, which is',
            f'      what this commit records. If those changes are the sync, `git add {where}`.',
            '',
        )
    for block in found.blocks:
        lines += (block, '')
    if found.needs_steps and steps:
        lines += (step.format(notes=notes) for step in STEPS)
    return '\n'.join(lines).rstrip('\n')


def check(m: Manifest, p: Plan, snap: Snapshot, manifest_text: str, max_bytes: int) -> Findings:
    """`max_bytes`: the largest covered file located (EXECLEASE_MAX_COVERED_MB)."""
    staged, source = snap.changes, snap.source
    notes_path = paths.rel(m.root, m.folder / 'NOTES.md')
    model_paths: list[str] = []
    if p.model:  # the modules the spec reads, guessed from the working tree: one batch
        # Lazy, as are the imports of a missing entry's, a watch rule's and a NOTES.md table's
        # checks below (and of the report and the map's repair in stage.py): parts most commits
        # do not reach, whose classes are built on import (dataclasses). With them all at the
        # top, a guard judging one changed covered file took 159 ms of CPU against 134 ms
        # (benchmarks/guard_latency.py (c), 20 interleaved runs at load 30, the floor 31 ms).
        from execlease_hook.spec import modules

        model_paths = [*model.model_paths(m), *modules.likely_paths(m)]
    notes = (notes_path,) if p.notes else ()
    source.prefetch((*(e.path for e in p.entries), *model_paths, *notes))
    found = Findings()
    statuses = compare.compare(m, source, p.entries, max_bytes)
    bad = [s for s in statuses if s.status != 'unchanged']
    changed = [s for s in bad if s.status in ('changed', 'never synced')]
    diffs = entry_diffs(m, changed, source, snap.label, max_bytes)  # {} for none
    for s in bad:
        if s.status in ('missing', 'ambiguous'):
            from execlease_hook.guard.missing import missing_block

            text, moved_and_changed = missing_block(m, s, staged, source, manifest_text, max_bytes)
            found.add(text, 2, steps=moved_and_changed)
        else:
            what = 'changed' if s.status == 'changed' else 'never synced (no hash recorded yet)'
            diff = diffs.get(s.entry.id)
            text = f'{s.entry.id}: {s.where}  (model action {s.entry.action}): covered code {what}'
            found.add(text + ('\n' + diff if diff else ''), 1, steps=True)
    if p.model:  # the staged spec and cfgs against coverage.modelHash, and the action map
        from execlease_hook.spec import action_map, record

        folder = paths.rel(m.root, m.folder)
        view = record.read(m, source)
        compared = record.compare(view, source)
        if compared.changes:
            found.add(
                f'model {folder}: the spec or a config changed since the last verified sync\n'
                + ''.join(f'  {line}\n' for line in compared.changes)
                + '  the model changed without a verified sync: run `execlease verify`, '
                'then `execlease verify --update-coverage`',
                1,
            )
        if compared.unjudged:
            found.add(
                f'model {folder}: the model record does not hold every module the model reads\n'
                + ''.join(f'  {line}\n' for line in compared.upgrade)
                + f'  {record.UPGRADE_STEP}',
                1,
            )
        mapped = action_map.check(m, view.model_index, view.actions())
        for problem in (*mapped.problems, *view.mutation_problems()):
            found.add(problem, 2)
        for gap in mapped.gaps:
            found.add(gap, 1)
    if p.watched:  # staged functions in watched paths that look like protocol code
        from execlease_hook.coverage import watch

        known = {s.entry.id for s in statuses}
        rest = [e for e in m.coverage.entries if e.path in p.watched and e.id not in known]
        result = watch.check(
            m, source, p.watched, [*statuses, *compare.compare(m, source, rest, max_bytes)]
        )
        for problem in result.problems:
            found.add(problem, 2)
        if result.uncovered:
            where = paths.rel(m.root, m.path)
            found.add(
                '\n'.join(u.message() for u in result.uncovered)
                + f'\n  cover: add an entry to coverage.entries of {where} (path, function, action) and model it;'
                + '\n  or ignore: add {"path": ..., "function": ..., "reason": ...} to coverage.ignored',
                1,
            )
    if p.notes:
        stale = _stale_map(m, p, statuses, source, notes_path, max_bytes)
        if stale:
            what = 'staged code' if snap.commit is None else f'code of commit {snap.label}'
            found.stale_map = [
                f'{notes_path}: the code-to-action table is stale against the {what}',
                *(f'  {line}' for line in stale),
            ]
            write = f'  run `execlease coverage --write-map`, then `git add {notes_path}`'
            found.add('\n'.join((*found.stale_map, write)), 1)
    return found


def _stale_map(
    m: Manifest,
    p: Plan,
    statuses: list[EntryStatus],
    source: IndexSource | CommitSource,
    notes_path: str,
    max_bytes: int,
) -> list[str]:
    """Lines saying how the staged table differs from the generated one; [] when it is current
    or the model keeps no table. Only the rows of the checked entries, unless the whole table is
    checked (p.full_map): then the table must be `coverage/notes.map_table`'s, which is also
    what the repair (map_fix.py) and `coverage --write-map` write, so that one rewrite passes."""
    text = source.read(notes_path)
    if text is None:
        return []
    from execlease_hook.coverage.notes import map_table
    from execlease_hook.manifest import notes_table

    notes_text = text.decode('utf-8', errors='replace')
    if not notes_table.has_markers(notes_text):
        return []  # the model does not keep a generated table
    table = notes_table.current_table(notes_text, notes_path)
    folder = paths.rel(m.root, m.folder)
    if p.full_map:
        known = {s.entry.id for s in statuses}
        rest = [e for e in m.coverage.entries if e.id not in known]
        statuses = statuses + compare.compare(m, source, rest, max_bytes)
    rows = notes_table.table_rows(table)
    stale: list[str] = []
    for s in statuses:
        if s.located is None:
            continue
        want = notes_table.render_row(
            notes_table.MapRow(s.entry.action, s.entry.id, s.entry.path, s.located.start_line),
            folder,
        )
        have = rows.get(s.entry.id)
        if have is None:
            stale.append(f'`{s.entry.id}`: no row; expected {want}')
        elif have != want:
            stale.append(f'`{s.entry.id}`: the table says {have}\n    the staged code says {want}')
    if not p.full_map or any(s.located is None for s in statuses):
        return stale

    expected = map_table(m, statuses)
    if table == expected:
        return stale
    ids = {e.id for e in m.coverage.entries}
    stale.extend(
        f'`{i}`: a row for an entry the manifest does not have' for i in sorted(set(rows) - ids)
    )
    stale.extend(f'not generated: {line}' for line in notes_table.hand_lines(table, folder))
    if stale:
        return stale
    have_lines, want_lines = table.splitlines(), expected.splitlines()
    stale.extend(f'expected {line}' for line in want_lines if line not in have_lines)
    stale.extend(
        f'not in the generated table: {line or "(a blank line)"}'
        for line in have_lines
        if line not in want_lines
    )
    if not stale and sorted(have_lines) != sorted(want_lines):
        stale.append('a row appears more than once')
    return stale or [
        "the rows are not in manifest.json's order (its entries, then coverage.abstract)"
    ]
