"""What a push carries, judged commit by commit and at its tip: never the working tree.

- `execlease guard --range A..B` checks every commit in A..B (or every commit reachable from a
  single REV) with the guard's rules against that commit's own manifest: the changes are the
  commit's against its first parent, the models and contents are those of its tree. No TLC.
  The NOTES.md table is judged at the tip only: it is documentation a later commit may fix.
- `execlease verify --rev REV` runs the whole suite on the tree of REV, written into a
  temporary folder through a temporary index (the working tree, the index and HEAD are not
  touched, no hook runs), with the repository's TLA+ tools and result cache, so an unchanged
  model costs nothing.
- `execlease verify --pushed` (the execlease-tlc hook) does both for what pre-commit says is
  being pushed on pre-push: PRE_COMMIT_FROM_REF..PRE_COMMIT_TO_REF (for a new branch, pre-commit
  starts the range where the remote's known refs end), or, when the whole history is new,
  everything reachable from PRE_COMMIT_LOCAL_BRANCH. Without them (the manual stage) it verifies
  the working tree, as `execlease verify` does.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
from pathlib import Path

from execlease_hook import git, term
from execlease_hook.errors import CannotRun

RANGE_STEPS = (
    'What to do: each commit named above records covered code or a model that its own manifest.json',
    'does not describe (it was made with --no-verify, or by a revert, cherry-pick or rebase, which',
    'run no pre-commit hook). A later sync does not repair an earlier commit:',
    '  1. Make the model describe the code: `execlease verify`, then `execlease verify --update-coverage`.',
    '  2. Fold the sync into the commit that changed the code: `git commit --fixup=<commit>`, then',
    '     `git rebase -i --autosquash <commit>~1`; then check with `execlease guard --range <base>..HEAD`.',
    '  3. Push again.',
)


def _resolve(root: Path, rev: str) -> str:
    commit = git.rev_parse(root, rev)
    if commit is None:
        raise CannotRun(f'{rev!r} names no commit in {root}; give a branch, tag or commit id')
    return commit


def parse_range(root: Path, spec: str) -> tuple[list[tuple[str, str | None]], str]:
    """The commits of `A..B` (or all of a single REV), oldest first, and the tip."""
    if '...' in spec:
        raise CannotRun(f'--range {spec}: give A..B (the commits in B that are not in A) or one REV')
    if '..' in spec:
        base, _, tip_rev = spec.partition('..')
        if not base or not tip_rev:
            raise CannotRun(f'--range {spec}: name both ends, e.g. origin/main..HEAD')
        tip = _resolve(root, tip_rev)
        return git.rev_list(root, tip, '--not', _resolve(root, base)), tip
    tip = _resolve(root, spec)
    return git.rev_list(root, tip), tip


def guard_range(root: Path, spec: str, model: str | None) -> int:
    commits, tip = parse_range(root, spec)
    if not commits:
        print(f'execlease guard: no commits in {spec}: nothing to judge')
        return 0
    return judge_commits(root, commits, tip, model)


def _model_filter(root: Path, model: str | None) -> str | None:
    if model is None:
        return None
    folder = Path(os.path.abspath(model))
    manifest = folder if folder.suffix == '.json' else folder / 'manifest.json'
    return Path(os.path.relpath(manifest, root)).as_posix()


def judge_commits(root: Path, commits: list[tuple[str, str | None]], tip: str, model: str | None) -> int:
    """Each commit against its own manifest; prints what blocks; the exit code (0, 1 or 2)."""
    from execlease_hook import coverage, guard, guard_check

    only = _model_filter(root, model)
    code = 0
    steps = False
    modelled = False
    for commit, parent in commits:
        changes = git.commit_changes(root, commit, parent)
        touched = guard.touched_paths(root, changes, [])
        manifests = git.model_manifests(root, commit, only)
        if not manifests:
            continue
        modelled = True
        data = git.read_blobs(root, [f'{commit}:{rel}' for rel, _ in manifests])
        at_tip = commit == tip
        for rel, _ in manifests:
            blob = data[f'{commit}:{rel}']
            governed = guard.governed_paths(rel, blob)
            if governed is not None and governed.isdisjoint(touched) and not at_tip:
                continue
            source = coverage.CommitSource(root, commit, sorted(governed or ()))
            loaded = guard_check.load_model(rel, root, source, blob, worktree=False)
            m = loaded.manifest
            p = guard_check.plan(m, touched, False, notes=at_tip)
            if at_tip:
                p = dataclasses.replace(p, notes=True, full_map=True)
            if not (p.entries or p.model or p.notes):
                continue
            snap = guard_check.Snapshot(source, changes, commit[:12], commit)
            found = guard_check.check(m, p, snap, loaded.text)
            if found.blocks:
                title = f'commit {commit[:12]} ("{git.subject(root, commit)}")'
                print(term.wrap(guard_check.render(m, found, subject=title, steps=False)))
                print()
            steps = steps or found.needs_steps
            code = max(code, found.code)
    if not modelled:
        raise CannotRun('no model found in the judged commits: expected verification/<name>/manifest.json '
                        'in their trees, or name one with --model DIR')
    if steps:
        print(term.wrap('\n'.join(RANGE_STEPS)))
    return code


def pushed_range(root: Path) -> tuple[list[tuple[str, str | None]], str, str] | None:
    """(commits, tip, what) of the push pre-commit is running for; None outside a push."""
    to_ref = os.environ.get('PRE_COMMIT_TO_REF')
    from_ref = os.environ.get('PRE_COMMIT_FROM_REF')
    local = os.environ.get('PRE_COMMIT_LOCAL_BRANCH')
    remote = os.environ.get('PRE_COMMIT_REMOTE_BRANCH')
    what = local or to_ref or ''
    if remote:
        what += f' -> {os.environ.get("PRE_COMMIT_REMOTE_NAME", "")} {remote}'.rstrip()
    if from_ref and to_ref:
        tip = _resolve(root, to_ref)
        return git.rev_list(root, tip, '--not', _resolve(root, from_ref)), tip, what
    if local:
        # pre-commit exports no range when the first commit not on the remote is a root commit:
        # the whole history of the pushed branch is new.
        tip = _resolve(root, local)
        return git.rev_list(root, tip), tip, what
    return None


def verify(options: argparse.Namespace, root: Path, json_path: object) -> int:
    """`execlease verify --rev REV` / `--pushed`."""
    from execlease_hook import suite

    if options.update_coverage:
        raise CannotRun('--update-coverage records the working tree; it cannot be combined with '
                        '--rev or --pushed')
    range_code = 0
    if options.rev:
        tip, label = _resolve(root, options.rev), options.rev
    else:
        pushed = pushed_range(root)
        if pushed is None:
            return suite.run_suite(options, json_path, root, root)  # manual stage: the working tree
        commits, tip, label = pushed
        print(term.wrap(f'execlease: judging the push of {label}: {len(commits)} new commit'
                        f'{"" if len(commits) == 1 else "s"} (each against its own manifest), then '
                        f'the whole suite on {tip[:12]} checked out alone'), flush=True)
        if commits:
            range_code = judge_commits(root, commits, tip, options.model)
    from execlease_hook import scratch   # marked: a killed run's is swept by the next

    tmp = scratch.make('execlease-rev-')
    try:
        tree = tmp / 'tree'
        git.checkout_tree(root, tip, tree)
        print(term.wrap(f'execlease verify: commit {tip[:12]} ({label}), its tree checked out alone '
                        f'in {tree} (not the working tree)'), flush=True)
        local = argparse.Namespace(**vars(options))
        if options.model is not None:
            rel = os.path.relpath(os.path.abspath(options.model), root)
            local.model = str(tree / rel)
        tip_code = suite.run_suite(local, json_path, tree, root)
    finally:
        scratch.remove(tmp)
    return 2 if 2 in (range_code, tip_code) else max(range_code, tip_code)
