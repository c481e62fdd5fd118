"""`execlease guard [--all] [--model DIR] [FILES...]`: the fast stage, on every `git commit`.

Speed is a feature (STYLE §10, issue 3 §7): until it knows that a covered file, a model file,
the manifest or NOTES.md is part of the commit, the guard costs one `git diff --cached` and one
JSON read per model, and imports neither dataclasses nor typing nor tree-sitter. Only then does
it import guard_check (manifest validation, coverage, tree-sitter for the staged suffixes).

The staged set comes from `git diff --cached`, never from FILES alone: pre-commit does not pass
deleted files to a hook, and a deleted or renamed covered file must block. FILES matter only
when nothing is staged (`pre-commit run --all-files`): then the entries for those paths are
checked against the index.
"""
from __future__ import annotations

import argparse  # already imported by cli; `typing` is not, so no TYPE_CHECKING block here
import os
from pathlib import Path

from execlease_hook import git, paths
from execlease_hook.models import find_models


def touched_paths(root: Path, staged: list[git.StagedChange], files: list[str]) -> set[str]:
    """Staged paths (both sides of a rename) in a commit; else the FILES pre-commit passed."""
    if staged:
        return {c.path for c in staged} | {c.old_path for c in staged if c.old_path}
    return {Path(os.path.relpath(os.path.abspath(f), root)).as_posix() for f in files}


_parsed: dict[Path, dict] = {}     # emptied at the start of every run


def _manifest_json(m_path: Path) -> dict:
    """The working tree's manifest as plain JSON, parsed once per run; raises OSError/ValueError."""
    if m_path not in _parsed:
        import json

        _parsed[m_path] = json.loads(m_path.read_bytes())
    return _parsed[m_path]


def watched_globs(m_path: Path) -> list[str]:
    """The path globs of the model's `coverage.watch` rules, read without validating."""
    from execlease_hook import watch_paths

    try:
        return watch_paths.raw_globs(_manifest_json(m_path))
    except (OSError, ValueError, RecursionError):   # the full load says why
        return []


def governed_paths(m_path: Path, root: Path) -> set[str] | None:
    """Every path a model governs (manifest, NOTES.md, spec, cfgs, covered files), read without
    validating; None when the manifest cannot be read this way (the full load will say why)."""
    folder = Path(os.path.relpath(m_path.parent, root)).as_posix()
    prefix = '' if folder == '.' else f'{folder}/'
    try:
        data = _manifest_json(m_path)
        names = [data['spec']]
        names.extend(item['config'] for key in ('checks', 'mutations', 'findings')
                     for item in data.get(key, ()))
        covered = [entry['path'] for entry in data['coverage']['entries']]
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
        return None
    if not all(isinstance(p, str) and paths.spelling_problem(p) is None for p in (*names, *covered)):
        return None     # the full load names the field (a path git would spell differently)
    return {prefix + 'manifest.json', prefix + 'NOTES.md', *(prefix + n for n in names), *covered}


def _watched(m_path: Path, touched: set[str]) -> set[str]:
    """The touched paths where the model's watch rules look for uncovered protocol code."""
    globs = watched_globs(m_path)
    if not globs:
        return set()
    from execlease_hook import watch_paths

    return {path for path in touched if watch_paths.matches(globs, path)}


def run(options: argparse.Namespace) -> int:
    _parsed.clear()
    root = git.repo_root()
    manifest_paths = find_models(root, options.model)
    staged = git.staged_changes(root)
    touched = touched_paths(root, staged, list(options.files))
    # The working tree's manifest decides cheaply whether a model is concerned at all; the
    # checks themselves judge the staged manifest (guard_check.load_staged).
    wanted = []
    for m_path in manifest_paths:
        governed = governed_paths(m_path, root)
        watched = _watched(m_path, touched)
        if options.all or governed is None or paths.touched(governed, touched) or watched:
            wanted.append((m_path, governed, watched))
    verbose = getattr(options, 'verbose', 0) > 0
    if not wanted:
        if verbose:
            print('execlease guard: nothing a model governs is part of this commit')
        return 0  # nothing any model governs is part of this commit
    from execlease_hook import guard_check

    code = 0
    for m_path, governed, watched in wanted:
        # What the checks will read, so that one `git cat-file --batch` fetches it all with the
        # manifest: every governed file when all entries are checked, else the touched ones and
        # NOTES.md (its table rows follow the entries).
        rel = Path(os.path.relpath(m_path, root)).as_posix()
        if governed is None or options.all or rel in touched:
            hint = governed or set()
        else:
            hint = (governed & touched) | {(Path(rel).parent / 'NOTES.md').as_posix()}
        hint = hint | watched
        model = guard_check.load_staged(m_path, root, hint)
        m = model.manifest
        inside = paths.above_covered({e.id: e.path for e in m.coverage.entries}, touched)
        if inside:
            from execlease_hook.errors import CannotRun

            raise CannotRun(f'{rel}: ' + '; '.join(inside))
        p = guard_check.plan(m, touched, options.all)
        if not (p.entries or p.model or p.notes or p.watched):
            continue
        found = guard_check.check(m, p, staged, model.source)
        if found.blocks:
            from execlease_hook import term

            print(term.wrap(guard_check.render(m, found, model.unstaged_manifest)))
        elif verbose:
            print(f'execlease guard: {rel}: {len(p.entries)} staged entries unchanged')
        code = max(code, found.code)
    return code

