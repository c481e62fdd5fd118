"""What a push carries, judged commit by commit and at its tip: never the working tree.

`execlease guard --range A..B` checks every commit in A..B (or every commit reachable from a
single REV) with the guard's rules against that commit's own manifest: the changes are the
commit's against its first parent, the models and contents are those of its tree. No TLC. The
NOTES.md table is judged at the tip only: it is documentation a later commit may fix.
`execlease verify --pushed` judges the pushed commits here too, then verifies the pushed tip as
`--rev` does (docs/architecture.md, the slow stage: "What a push carries").
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from execlease_hook.core import paths, term
from execlease_hook.core.errors import CannotRun
from execlease_hook.git import blobs, repo
from execlease_hook.guard import check, stage
from execlease_hook.manifest import find

RANGE_STEPS = (
    'What to do: each commit named above records covered code or a model that its own manifest.json',
    'does not describe (it was made with --no-verify, or by a revert, cherry-pick or rebase, which',
    'run no pre-commit hook). A later sync does not repair an earlier commit:',
    '  1. Make the model describe the code: `execlease verify`, then `execlease verify --update-coverage`.',
    '  2. Fold the sync into the commit that changed the code: `git commit --fixup=<commit>`, then',
    '     `git rebase -i --autosquash <commit>~1`; then check with `execlease guard --range <base>..HEAD`.',
    '  3. Push again.',
)


def resolve_rev(root: Path, rev: str) -> str:
    commit = repo.rev_parse(root, rev)
    if commit is None:
        raise CannotRun(f'{rev!r} names no commit in {root}; give a branch, tag or commit id')
    return commit


def guard_range(root: Path, spec: str, model: str | None, max_bytes: int, quiet: bool) -> int:
    """Every commit of `A..B` (or all of a single REV), oldest first, judged."""
    if '...' in spec:
        raise CannotRun(
            f'--range {spec}: give A..B (the commits in B that are not in A) or one REV'
        )
    base, dots, tip_rev = spec.partition('..')
    if dots and (not base or not tip_rev):
        raise CannotRun(f'--range {spec}: name both ends, e.g. origin/main..HEAD')
    tip = resolve_rev(root, tip_rev if dots else spec)
    not_in = ('--not', resolve_rev(root, base)) if dots else ()
    commits = repo.rev_list(root, tip, *not_in)
    if not commits:
        print(f'execlease guard: no commits in {spec}: nothing to judge')
        return 0
    code = judge_commits(root, commits, tip, model, max_bytes)
    if code == 0 and not quiet:  # a pass says what was judged: silence reads as "did nothing"
        count = f'{len(commits)} commit' + ('s' if len(commits) != 1 else '')
        print(
            term.wrap(
                f'execlease guard: {spec}: {count} judged, each against its own manifest: '
                'no covered code or model changed without a sync'
            )
        )
    return code


def judge_commits(
    root: Path, commits: list[tuple[str, str | None]], tip: str, model: str | None, max_bytes: int
) -> int:
    """Each commit against its own manifest; prints what blocks; the exit code (0, 1 or 2).
    `max_bytes`: the largest covered file located (EXECLEASE_MAX_COVERED_MB)."""
    only = None if model is None else paths.rel(root, find.named(model))
    code, steps, modelled = 0, False, False
    for commit, parent in commits:
        changes = repo.commit_changes(root, commit, parent)
        touched = stage.touched_paths(root, changes, [])
        manifests = repo.model_manifests(root, commit, only)
        data = repo.read_blobs(root, [blob_id for _, blob_id in manifests])
        if only is None:  # a manifest.json that is no execlease manifest is not a model
            manifests = [(rel, b) for rel, b in manifests if find.is_model(rel, data[b])]
        if not manifests:
            continue
        modelled = True
        at_tip = commit == tip
        for rel, blob_id in manifests:
            blob = data[blob_id]
            parsed = find.plain_json(blob)
            governed = stage.governed_paths(rel, parsed)
            if (
                governed is not None
                and governed.isdisjoint(touched)
                and not at_tip
                and not stage.model_modules(rel, parsed, touched)
            ):
                continue
            source = blobs.CommitSource(root, commit, sorted(governed or ()))
            m, text, _ = check.load_model(rel, root, source, blob, worktree=False)
            p = dataclasses.replace(check.plan(m, touched, False), notes=at_tip, full_map=at_tip)
            if not (p.entries or p.model or p.notes):
                continue
            snap = check.Snapshot(source, changes, commit[:12], commit)
            found = check.check(m, p, snap, text, max_bytes)
            if found.blocks:
                title = f'commit {commit[:12]} ("{repo.subject(root, commit)}")'
                print(term.wrap(check.render(m, found, subject=title, steps=False)))
                print()
            steps = steps or found.needs_steps
            code = max(code, found.code)
    if not modelled:
        raise CannotRun(
            f'no model found in the judged commits: {find.NONE_FOUND}, in their trees, or name '
            'one with --model DIR'
        )
    if steps:
        print(term.wrap('\n'.join(RANGE_STEPS)))
    return code
