"""The guard's checks, once it knows that something a model governs is staged.

Imported only then (see guard.py): this module and what it pulls in (manifest, coverage,
tree-sitter) are the cost of a commit that touches covered code.

About 500 lines, kept whole: each block of a blocked commit is written where its check has the
facts it names (which staged change deleted or renamed a file, where the code moved, the diff
against the synced blob), so a check and its words are one job. Reading the NOTES.md table is
notes_map.py's, repairing it map_fix.py's, judging pushed commits push_range.py's.
"""
from __future__ import annotations

from execlease_hook.core import paths

from pathlib import Path

from execlease_hook.git import repo as git
from execlease_hook.manifest import read as manifest_read
from execlease_hook.manifest.model import CoveredEntry, Manifest
from execlease_hook.core.record import field, record

TYPE_CHECKING = False   # typing.TYPE_CHECKING without importing typing (record.py)
if TYPE_CHECKING:
    from execlease_hook.coverage import rename_hint
    from execlease_hook.coverage.compare import EntryStatus
    from execlease_hook.git.blobs import CommitSource, IndexSource

STEPS = (
    'What to do (README.md, "When your change touches covered code"):',
    "  1. Find the entry's model action in the code-to-action map of {notes} and re-read both.",
    '  2. If the protocol changed, change the action so it matches the code: one action per real',
    "     transaction, the guard equal to the code's WHERE clause and checks, the cited file:line current.",
    '  3. Run `execlease verify`.',
    '  4. Only once the model describes the new code, run `execlease verify --update-coverage`',
    '     (records the new hashes and the synced code; if no model file changed, it asks for',
    '     --reason "why the model still holds"); then `git add` the manifest and commit again.',
)
DIFF_LINES = 40


@record
class Plan:
    """What one model needs checked for this commit."""

    entries: tuple[CoveredEntry, ...]
    model: bool                 # spec or a cfg is staged: compare the model hash
    notes: bool                 # check the NOTES.md table rows of these entries
    full_map: bool              # check the whole table (every entry): --all, manifest or NOTES.md staged
    watched: tuple[str, ...] = ()  # paths to search for uncovered protocol code (coverage.watch)


@record(frozen=False)
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


@record
class Snapshot:
    """What is judged: the index (a commit being made) or one commit (a pushed range)."""

    source: IndexSource | CommitSource
    changes: list[git.StagedChange]     # against HEAD, or against the commit's first parent
    label: str                          # 'staged', or the commit's short id
    commit: str | None = None           # None: the index



def plan(m: Manifest, touched: set[str], check_all: bool, notes: bool = True) -> Plan:
    if not m.covers_code:       # a model of no code (no "coverage"): nothing for the guard to judge
        return Plan((), False, False, False, ())
    folder = paths.rel(m.root, m.folder)
    prefix = '' if folder == '.' else f'{folder}/'
    everything = check_all or paths.rel(m.root, m.path) in touched
    entries = m.coverage.entries if everything else tuple(
        e for e in m.coverage.entries if e.path in touched
    )
    model = everything or any(prefix + name in touched for name in m.model_files)
    if not model and m.libraries:   # a staged module of a library folder is the model too
        from execlease_hook.manifest.model import library_folders

        folders = library_folders(m)
        model = any(paths.module_in_folder(f, path) for f in folders for path in touched)
    full_map = everything or f'{prefix}NOTES.md' in touched
    watched: tuple[str, ...] = ()
    if m.coverage.watch:
        from execlease_hook.coverage import watch

        watched = tuple(watch.watched(m, git.tracked_files(m.root) if everything else sorted(touched)))
    return Plan(entries, model, notes and (full_map or bool(entries)), notes and full_map, watched)


def render(m: Manifest, found: Findings, unstaged_manifest: bool = False,
           subject: str = 'the commit', steps: bool = True) -> str:
    notes = paths.rel(m.root, m.folder / 'NOTES.md')
    where = paths.rel(m.root, m.path)
    lines = [f'execlease guard: {where}: {subject} is blocked', '']
    if unstaged_manifest:
        lines.extend((
            f'note: {where} has changes that are not staged; the guard judges the staged one, which is',
            f'      what this commit records. If those changes are the sync, `git add {where}`.',
            '',
        ))
    for block in found.blocks:
        lines.extend((block, ''))
    if found.needs_steps and steps:
        lines.extend(step.format(notes=notes) for step in STEPS)
    return '\n'.join(lines).rstrip('\n')


def check(m: Manifest, p: Plan, snap: Snapshot, manifest_text: str | None = None) -> Findings:
    from execlease_hook.coverage import compare as coverage

    staged, source = snap.changes, snap.source
    root = m.root
    folder = paths.rel(root, m.folder)
    notes_path = paths.rel(root, m.folder / 'NOTES.md')
    from execlease_hook.manifest import model as manifest_model

    model_paths = manifest_model.model_paths(m)
    source.prefetch((
        *(e.path for e in p.entries), *(model_paths if p.model else ()),
        *((notes_path,) if p.notes else ()),
    ))
    found = Findings()
    statuses = coverage.compare(m, source, p.entries)
    bad = [s for s in statuses if s.status != 'unchanged']
    if bad:
        diffs = _diffs(m, [s for s in bad if s.status in ('changed', 'never synced')], snap)
        for s in bad:
            if s.status in ('missing', 'ambiguous'):
                text, moved_and_changed = _missing_block(m, s, staged, source, manifest_text)
                found.add(text, 2, steps=moved_and_changed)
            else:
                found.add(_changed_block(s, diffs.get(s.entry.id, '')), 1, steps=True)

    if p.model:
        _check_model(m, source, found)

    if p.watched:
        _check_watch(m, p, statuses, source, found)

    if p.notes:
        stale = _stale_map(m, p, statuses, source, notes_path)
        if stale:
            what = 'staged code' if snap.commit is None else f'code of commit {snap.label}'
            found.stale_map = [f'{notes_path}: the code-to-action table is stale against the {what}',
                               *(f'  {line}' for line in stale)]
            found.add(
                '\n'.join(found.stale_map)
                + '\n  run `execlease coverage --write-map`, then `git add '
                + notes_path + '`',
                1,
            )
    return found


def _check_model(m: Manifest, source: IndexSource | CommitSource, found: Findings) -> None:
    """The staged spec and cfgs against coverage.modelHash, and the map between actions and entries."""
    from execlease_hook.spec import actions as action_map
    from execlease_hook.spec import record as model_record

    folder = paths.rel(m.root, m.folder)
    view = model_record.read(m, source)
    changed = model_record.changes(view, source)
    if changed:
        found.add(
            f'model {folder}: the spec or a config changed since the last verified sync\n'
            + ''.join(f'  {line}\n' for line in changed)
            + '  the model changed without a verified sync: run `execlease verify`, '
            'then `execlease verify --update-coverage`',
            1,
        )
    mapped = action_map.check(m, view.index, view.actions())
    for problem in (*mapped.problems, *view.mutation_problems()):
        found.add(problem, 2)
    for gap in mapped.gaps:
        found.add(gap, 1)


def _check_watch(
        m: Manifest, p: Plan, statuses: list[EntryStatus], source: IndexSource | CommitSource, found: Findings,
) -> None:
    """Staged functions in watched paths that look like protocol code must be covered or ignored."""
    from execlease_hook.coverage import compare as coverage
    from execlease_hook.coverage import watch

    known = {s.entry.id for s in statuses}
    rest = [e for e in m.coverage.entries if e.path in p.watched and e.id not in known]
    result = watch.check(m, source, p.watched, [*statuses, *coverage.compare(m, source, rest)])
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


def _changed_block(s: EntryStatus, diff: str) -> str:
    e = s.entry
    what = 'covered code changed' if s.status == 'changed' else \
        'covered code never synced (no hash recorded yet)'
    head = f'{e.id}: {s.where}  (model action {e.action}): {what}'
    return head + ('\n' + diff if diff else '')


def _indent(content: bytes, start_byte: int) -> str:
    """What precedes the entry on its first line (a method's indentation), for a readable diff."""
    line_start = content.rfind(b'\n', 0, start_byte) + 1
    return content[line_start:start_byte].decode('utf-8', errors='replace')


def _shift_hunks(lines: list[str], old_first: int, new_first: int) -> list[str]:
    """difflib numbers lines from 1 within the entry; show the file's line numbers instead."""
    import re

    def shift(match: re.Match[str]) -> str:
        a, b, c, d = match.group(1), match.group(2) or '', match.group(3), match.group(4) or ''
        return f'@@ -{int(a) + old_first - 1}{b} +{int(c) + new_first - 1}{d} @@'

    hunk = re.compile(r'^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@')
    return [hunk.sub(shift, line) if line.startswith('@@') else line for line in lines]


def _diffs(m: Manifest, statuses: list[EntryStatus], snap: Snapshot) -> dict[str, str]:
    """Per entry id: a short unified diff from the code as it was hashed to the judged code, or
    why there is none. The base is the entry's synced blob (written into the object database by
    the sync: exactly the hashed content), else, for manifests older than that, the file at
    coverage.syncCommit."""
    if not statuses:
        return {}
    import difflib

    from execlease_hook.core.errors import CannotRun
    from execlease_hook.locate.source import language_for
    from execlease_hook.locate.entry import locate
    from execlease_hook.locate.source import parse_from

    sync = m.coverage.sync_commit
    source = snap.source
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
                present = git.has_commit(m.root, sync)
            out[e.id] = _no_diff(e, sync, present)
            continue
        now = snap.source.read(e.path) or b''
        language = language_for(e.path)
        if language is not None:
            parse_from(language, content, now)     # the staged tree, reparsed where they differ
        try:
            before = locate(e, content)
        except CannotRun as err:
            out[e.id] = f'  (no diff: the entry cannot be located in the synced content: {err})'
            continue
        lines = _shift_hunks(list(difflib.unified_diff(
            (_indent(content, before.start_byte) + before.text).splitlines(),
            (_indent(now, located.start_byte) + located.text).splitlines(),
            base, f'{e.path} ({snap.label})', n=2, lineterm='',
        )), before.start_line, located.start_line)
        if not lines:
            lines = ['(the text is the same; the syntax tree differs, e.g. the scheme or grammar changed)']
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
        return (f'  (no diff: {lost}the sync commit {sync[:12]} is not in this clone, a shallow '
                'clone? `git fetch --unshallow` shows it)')
    return f'  (no diff: {lost}{e.path} did not exist at the sync commit {sync[:12]})'


def _manifest_line(m: Manifest, entry: CoveredEntry, text: str | None = None) -> int | None:
    """The line of the entry's "path" in manifest.json (the stable dump: one key per line), in
    the judged manifest's text when given.

    Values are compared decoded, so a hand-written "\\u00fc" matches the path "ü"."""
    import json
    import re

    if text is None:
        try:
            text = m.path.read_text(encoding='utf-8')
        except (OSError, UnicodeDecodeError):
            return None
    lines = text.splitlines()
    key_value = re.compile(r'"(id|path)"\s*:\s*("(?:[^"\\]|\\.)*")')
    seen_id = False
    for number, line in enumerate(lines, 1):
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


def _missing_block(
        m: Manifest, s: EntryStatus, staged: list[git.StagedChange], source: IndexSource | CommitSource,
        manifest_text: str | None = None,
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
    moved = _find_moved(e, staged, source, change)
    where = paths.rel(m.root, m.path)
    line = _manifest_line(m, e, manifest_text)
    at = f'{where}:{line}' if line else where
    for path, start, same in moved:
        if same:
            lines.append(f'  it moved unchanged to {path}:{start} (same fingerprint)')
            lines.append(f'  {at}: change "path": "{e.path}" to "path": "{path}", then '
                         '`execlease coverage --write-map`')
        else:
            lines.append(f'  found at {path}:{start}, but changed: covered code changed')
            lines.append(f'  {at}: change "path": "{e.path}" to "path": "{path}", then follow the '
                         'steps below')
    renamed = None
    if not moved and e.function is not None and (change is None or change.status != 'D'):
        renamed = _renamed(m, e, change, source)
    if renamed is not None:
        from execlease_hook.coverage import rename_hint

        how = 'with the code it had at the sync' if renamed.unchanged else 'its code differs'
        lines.append(f'  {renamed.path}:{renamed.line} defines {renamed.function}: renamed from '
                     f'{e.function}? ({how})')
        lines.extend(rename_hint.repair(m, e, renamed, at))
    elif not moved:
        lines.append(
            f'  update the entry in {at} (path, function or anchors) so it matches exactly once; '
            '`execlease coverage` shows where each entry is',
        )
    changed = any(not same for _, _, same in moved) or (renamed is not None and not renamed.unchanged)
    return '\n'.join(lines), changed


def _renamed(m: Manifest, e: CoveredEntry, change: git.StagedChange | None,
             source: IndexSource | CommitSource) -> rename_hint.Renamed | None:
    """The function a covered function was renamed to, in its file or the file's rename target."""
    from execlease_hook.coverage import rename_hint

    paths = [change.path] if change is not None and change.old_path == e.path else [e.path]
    source.prefetch(paths)
    synced = None
    if e.synced_blob is not None:
        synced = git.read_blobs(m.root, [e.synced_blob]).get(e.synced_blob)
    if synced is None and m.coverage.sync_commit is not None:
        spec = f'{m.coverage.sync_commit}:{e.path}'
        synced = git.read_blobs(m.root, [spec]).get(spec)
    return rename_hint.find(m, e, paths, source.read, synced)


def _find_moved(
        e: CoveredEntry, staged: list[git.StagedChange], source: IndexSource | CommitSource,
        change: git.StagedChange | None,
) -> list[tuple[str, int, bool]]:
    """Where the entry's code reappears in another staged file: (path, line, unchanged?)."""
    from execlease_hook.core.record import replace

    from execlease_hook.core.errors import CannotRun
    from execlease_hook.fingerprint.scheme import matches
    from execlease_hook.locate.entry import find_functions, locate
    from execlease_hook.locate.source import language_for

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
                hits = find_functions(path, content, e.function)
            else:
                hits = [locate(replace(e, path=path), content)]
        except CannotRun:
            continue
        found.extend((path, h.start_line, e.hash is not None and matches(h, e.hash)) for h in hits)
    return found


def _stale_map(
        m: Manifest, p: Plan, statuses: list[EntryStatus], source: IndexSource | CommitSource, notes_path: str,
) -> list[str]:
    """Lines saying which table rows disagree with the staged code; [] when fresh or no table."""
    from execlease_hook.coverage import compare as coverage
    from execlease_hook.manifest import notes_table as notes_map

    text = source.read(notes_path)
    if text is None:
        return []
    notes_text = text.decode('utf-8', errors='replace')
    if not notes_map.has_markers(notes_text):
        return []  # the model does not keep a generated table
    table = notes_map.current_table(notes_text, notes_path)
    folder = paths.rel(m.root, m.folder)
    if p.full_map:
        known = {s.entry.id for s in statuses}
        rest = [e for e in m.coverage.entries if e.id not in known]
        statuses = statuses + coverage.compare(m, source, rest)
    located = {s.entry.id: s for s in statuses if s.located is not None}
    rows = notes_map.table_rows(table)
    stale: list[str] = []
    expected_rows = []
    for s in statuses:
        if s.located is None:
            continue
        row = notes_map.MapRow(s.entry.action, s.entry.id, s.entry.path, s.located.start_line)
        expected_rows.append(row)
        want = notes_map.render_row(row, folder)
        have = rows.get(s.entry.id)
        if have is None:
            stale.append(f'`{s.entry.id}`: no row; expected {want}')
        elif have != want:
            stale.append(f'`{s.entry.id}`: the table says {have}\n    the staged code says {want}')
    if p.full_map and len(located) == len(m.coverage.entries):
        extra = sorted(set(rows) - set(located))
        stale.extend(f'`{i}`: a row for an entry the manifest does not have' for i in extra)
        abstract = [(a.action, a.reason) for a in m.coverage.abstract]
        if not stale and table != notes_map.render(expected_rows, folder, abstract):
            stale.append('the table differs from the generated one (order or header)')
    return stale


@record
class StagedModel:
    """A model as the judged commit records it: its manifest, read with the covered blobs."""

    manifest: Manifest
    source: IndexSource | CommitSource
    unstaged_manifest: bool     # the working tree's manifest.json differs from the staged one
    text: str                   # the manifest's text, as judged


def load_model(rel: str, root: Path, source: IndexSource | CommitSource, blob: bytes | None,
               worktree: bool) -> StagedModel:
    """The manifest at `rel` as `source` records it (`blob`, when already read). `worktree`:
    compare it with the working tree's file, for the note about unstaged changes."""
    from execlease_hook.core.errors import CannotRun

    if blob is None:
        blob = source.read(rel)
    where = 'staged' if worktree else source.description
    if blob is None:
        raise CannotRun(f'{rel}: not in {source.description}; `git add` it (the guard judges what '
                        'the commit records, never the working tree)')
    try:
        text = blob.decode('utf-8')
    except UnicodeDecodeError as e:
        raise CannotRun(f'{root / rel} ({where}): not UTF-8 (byte {e.start}); save it as UTF-8 and `git add` it') from None
    unstaged = False
    if worktree:
        try:
            unstaged = (root / rel).read_bytes() != blob
        except OSError:
            unstaged = True
    return StagedModel(manifest_read.parse(text, root / rel, root), source, unstaged, text)
