"""The fast stage on what is staged: on every `git commit` (and on `git merge`, through the
pre-merge-commit hook); `--range` is push_range.py's. Until a covered file, a model file, the
manifest or NOTES.md is part of the commit, it costs one `git diff --cached`, one `git ls-files`
and one JSON read per model; only then does it import check.py
(docs/architecture.md#the-fast-stage-guard).

It judges what the commit records: the staged set comes from `git diff --cached`, never from
FILES alone (pre-commit does not pass deleted files to a hook, and a deleted or renamed covered
file must block), and the models are the manifests in the index. FILES matter only when nothing
is staged (`pre-commit run --all-files`): then the entries for those paths are checked against
the index.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from execlease_hook.core import paths, term
from execlease_hook.core.errors import CannotRun
from execlease_hook.git import repo
from execlease_hook.manifest import find, watch_paths

if TYPE_CHECKING:
    from execlease_hook.git.blobs import IndexSource
    from execlease_hook.guard.check import Findings, Plan
    from execlease_hook.manifest.model import Manifest

# What `--format` adds to its report for a judged model (commands/guard.py).
Judged = Callable[['Manifest', 'Plan', 'Findings', 'IndexSource'], None]


def touched_paths(root: Path, staged: list[repo.StagedChange], files: list[str]) -> set[str]:
    """Staged paths (both sides of a rename) in a commit; else the FILES pre-commit passed."""
    if staged:
        return {c.path for c in staged} | {c.old_path for c in staged if c.old_path}
    return {paths.rel(root, os.path.abspath(f)) for f in files}


CONFIGS = ('checks', 'mutations', 'findings')  # the manifest's lists of items with a cfg


def governed_paths(rel: str, parsed: dict | None) -> set[str] | None:
    """Every path a model governs (manifest, NOTES.md, spec, cfgs, covered files), read from the
    manifest's bytes without validating; None when they cannot be read this way (the full load
    will say why)."""
    if parsed is None:
        return None
    try:
        names = [parsed['spec']]
        names += (item['config'] for key in CONFIGS for item in parsed.get(key, ()))
        covered = [entry['path'] for entry in parsed.get('coverage', {}).get('entries', ())]
    except (KeyError, TypeError, AttributeError):
        return None
    if not all(
        isinstance(p, str) and paths.spelling_problem(p) is None for p in (*names, *covered)
    ):
        return None  # the full load names the field (a path git would spell differently)
    folder = Path(rel).parent.as_posix()
    prefix = '' if folder == '.' else f'{folder}/'
    return {rel, prefix + 'NOTES.md', *(prefix + n for n in names), *covered}


def model_modules(rel: str, parsed: dict | None, touched: set[str]) -> set[str]:
    """The touched .tla modules the model may read besides its spec: those directly in its folder
    and in its library folders (`libraries`, read from the manifest without validating). Whether
    the model reads one is the checks' question (spec/modules.py); this costs a look at paths."""
    folders = [Path(rel).parent.as_posix()]
    found = parsed.get('libraries') if parsed is not None else None
    if isinstance(found, list):
        folders += [
            lib['folder']
            for lib in found
            if isinstance(lib, dict) and isinstance(lib.get('folder'), str)
        ]
    return {path for path in touched if any(paths.module_in_folder(f, path) for f in folders)}


def diff_bases(parsed: dict | None, touched: set[str]) -> list[str]:
    """What a change's diff would read for the entries whose paths are touched, read from the
    manifest without validating (anything but an object id is left to the full load): the
    entry's `syncedBlob`, else the file at `coverage.syncCommit`."""
    coverage = parsed.get('coverage') if parsed is not None else None
    if not isinstance(coverage, dict) or not isinstance(coverage.get('entries'), list):
        return []
    sync = coverage.get('syncCommit')
    found: list[str] = []
    for entry in coverage['entries']:
        if not isinstance(entry, dict) or entry.get('path') not in touched:
            continue
        blob = entry.get('syncedBlob')
        if isinstance(blob, str) and _object_id(blob):
            found.append(blob)
        elif isinstance(sync, str) and _object_id(sync):
            found.append(f'{sync}:{entry["path"]}')
    return found


def _object_id(value: str) -> bool:
    return len(value) in (40, 64) and all(c in '0123456789abcdef' for c in value)


def staged_models(root: Path, model: str | None) -> list[tuple[str, str]]:
    """(path, blob id) of each manifest the commit records: the index's, or the one --model names."""
    if model is not None:
        rel = paths.rel(root, find.named(model))
        blob = repo.index_blob(root, rel)
        if blob is None:
            state = (
                'exists only in the working tree' if (root / rel).is_file() else 'does not exist'
            )
            raise CannotRun(
                f'--model {model}: {rel} is not in the index ({state}); `git add` it: '
                'the guard judges what the commit records'
            )
        return [(rel, blob)]
    return repo.model_manifests(root)  # every manifest.json: judge_staged keeps the models


def read_manifests(root: Path, models: list[tuple[str, str]]) -> dict[str, bytes | None]:
    """Each staged manifest's bytes, in the order of `models`: the working tree's file when it is
    byte for byte the staged blob (checked by its git blob id, no process), else read from the
    index in one batch (no process for none)."""
    local: dict[str, bytes] = {}
    for rel, blob in models:
        try:
            data = (root / rel).read_bytes()
        except OSError:
            continue
        if repo.blob_id(data, blob) == blob:
            local[rel] = data
    rest = repo.read_blobs(root, [f':{rel}' for rel, _ in models if rel not in local])
    return {rel: local[rel] if rel in local else rest[f':{rel}'] for rel, _ in models}


def judge_staged(
    root: Path,
    files: list[str],
    model: str | None,
    every: bool,
    verbose: bool,
    judged: Judged | None,
    max_bytes: int,
) -> int:
    """The exit code of the staged changes (`files`: what pre-commit passed; `model`: --model;
    `every`: --all, every entry checked); `judged`: told of each judged model, for --format;
    `max_bytes`: EXECLEASE_MAX_COVERED_MB."""
    staged = repo.staged_changes(root)
    touched = touched_paths(root, staged, files)
    models = staged_models(root, model)
    find.inside(root, [root / rel for rel, _ in models])  # a manifest linked from elsewhere
    data = read_manifests(root, models)
    if model is None:  # a manifest.json that is no execlease manifest is not a model
        data = {rel: blob for rel, blob in data.items() if find.is_model(rel, blob)}
        if not data:
            deleted = [c.path for c in staged if c.status == 'D' and Path(c.path).name == find.NAME]
            gone = f' ({", ".join(deleted)} deleted in this commit)' if deleted else ''
            raise CannotRun(
                f'no model found in the index{gone}: {find.NONE_FOUND} under {root}, staged, '
                'or name one with --model DIR'
            )
    wanted = []
    for rel, blob in data.items():
        parsed = find.plain_json(blob)
        governed = governed_paths(rel, parsed)
        # What the checks read beyond the governed paths: where the model's `coverage.watch`
        # rules look for uncovered protocol code, and the model's modules.
        globs = watch_paths.raw_globs(parsed)  # [] for None
        watched = {p for p in touched if watch_paths.matches(globs, p)} if globs else set()
        watched |= model_modules(rel, parsed, touched)
        if every or governed is None or paths.touched(governed, touched) or watched:
            wanted.append((rel, parsed, governed, watched))
    if not wanted:
        if verbose:
            print('execlease guard: nothing a model governs is part of this commit')
        return 0
    # Lazy: what judging loads (manifest validation, coverage, tree-sitter, the fingerprint
    # rules) would make every commit that concerns nothing pay for it. Measured as
    # benchmarks/guard_latency.py (b), CPU time, 25 interleaved runs at load 15: 284 ms as
    # written, 494 ms with these at the top (`python -c pass`: 108 ms).
    from execlease_hook.git import blobs
    from execlease_hook.guard import check

    code = 0
    for rel, parsed, governed, watched in wanted:
        # What the checks will read, so that one `git cat-file --batch` fetches it all: every
        # governed file when all entries are checked, else the touched ones and NOTES.md (its
        # table rows follow the entries).
        if governed is None or every or rel in touched:
            hint = governed or set()
        else:
            hint = (governed & touched) | {(Path(rel).parent / 'NOTES.md').as_posix()}
        # What a change's diff reads (the synced code of the touched entries) joins that batch.
        source = blobs.IndexSource(root, sorted(hint | watched), diff_bases(parsed, touched))
        m, text, unstaged = check.load_model(rel, root, source, data[rel], worktree=True)
        inside = paths.above_covered({e.id: e.path for e in m.coverage.entries}, touched)
        if inside:
            raise CannotRun(f'{rel}: ' + '; '.join(inside))
        p = check.plan(m, touched, every)
        if not (p.entries or p.model or p.notes or p.watched):
            continue
        snap = check.Snapshot(source, staged, 'staged')
        found = check.check(m, p, snap, text, max_bytes)
        if judged is not None:
            judged(m, p, found, source)
        if found.only_map:
            from execlease_hook.guard import map_fix  # lazy: see check.check

            fixed = map_fix.fix(m, source, found, max_bytes)
            if fixed is not None:
                print(fixed)
                code = max(code, 1)
                continue
        if found.blocks:
            print(term.wrap(check.render(m, found, unstaged)))
        elif verbose:
            print(f'execlease guard: {rel}: {len(p.entries)} staged entries unchanged')
        code = max(code, found.code)
    return code
