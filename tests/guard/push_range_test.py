"""`execlease guard --range`: every commit judged against its own manifest, with real git (no TLC)."""

from __future__ import annotations

import pytest

from execlease_hook.cli import main as cli
from tests.conftest import LEASE_PY, MANIFEST, NOTES, sync_coverage

BODY_EDIT = LEASE_PY.replace('return cur.rowcount == 1', 'return cur.rowcount >= 1')
DRIFT = LEASE_PY.replace('import sqlite3\n', 'import sqlite3\nimport os\n')


def run_guard(capsys, *args: str) -> tuple[int, str]:
    code = cli.main(['guard', *args])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def passed(spec: str, count: int) -> tuple[int, str]:
    commits = f'{count} commit' + ('s' if count != 1 else '')
    return 0, (
        f'execlease guard: {spec}: {commits} judged, each against its own manifest: no '
        'covered code or model changed without a sync\n'
    )


def commit_file(repo, rel: str, text: str, message: str) -> str:
    repo.write(rel, text)
    repo.add(rel)
    return repo.commit(message)  # --no-verify: as a bypass, a revert, cherry-pick or rebase would


def test_clean_range_passes(covered_repo, capsys):
    base = covered_repo.head()
    commit_file(covered_repo, 'app/other.py', 'def unrelated():\n    return 2\n', 'unrelated')
    assert run_guard(capsys, '--range', f'{base}..HEAD') == passed(f'{base}..HEAD', 1)
    assert run_guard(capsys, '--range', f'{base}..HEAD', '-q') == (0, '')


def test_unsynced_commit_blocks_even_when_a_later_commit_syncs(covered_repo, capsys):
    base = covered_repo.head()
    bad = commit_file(covered_repo, 'app/lease.py', BODY_EDIT, 'weaken claim')
    sync_coverage(covered_repo.path)
    covered_repo.add(MANIFEST, NOTES)
    covered_repo.commit('sync later')
    code, out = run_guard(capsys, '--range', f'{base}..HEAD')
    assert code == 1
    assert f'execlease guard: {MANIFEST}: commit {bad[:12]} ("weaken claim") is blocked' in out
    assert 'claim-lease: app/lease.py:4  (model action Claim): covered code changed' in out
    assert f'+++ app/lease.py ({bad[:12]})' in out and '+    return cur.rowcount >= 1' in out
    assert 'sync later' not in out  # the syncing commit itself is whole
    assert 'A later sync does not repair an earlier commit' in out
    assert run_guard(capsys, '--range', f'{bad}..HEAD') == passed(f'{bad}..HEAD', 1)


def test_staged_fix_is_not_part_of_the_range(covered_repo, capsys):
    base = covered_repo.head()
    commit_file(covered_repo, 'app/lease.py', BODY_EDIT, 'weaken claim')
    sync_coverage(covered_repo.path)
    covered_repo.add(MANIFEST)  # the fix sits staged, not committed
    assert run_guard(capsys, '--range', f'{base}..HEAD')[0] == 1


def test_other_branch_is_judged_on_that_branch(covered_repo, capsys):
    covered_repo.git('checkout', '-q', '-b', 'bad')
    bad = commit_file(covered_repo, 'app/lease.py', BODY_EDIT, 'weaken claim')
    covered_repo.git('checkout', '-q', 'main')
    code, out = run_guard(capsys, '--range', 'main..bad')
    assert code == 1 and bad[:12] in out
    assert run_guard(capsys, '--range', 'bad..main') == (
        0,
        'execlease guard: no commits in bad..main: nothing to judge\n',
    )


def test_merge_is_judged_against_its_first_parent(covered_repo, capsys):
    covered_repo.git('checkout', '-q', '-b', 'side')
    commit_file(covered_repo, 'app/lease.py', BODY_EDIT, 'weaken claim')
    covered_repo.git('checkout', '-q', 'main')
    base = covered_repo.head()
    covered_repo.git('merge', '-q', '--no-ff', '--no-verify', '-m', 'merge side', 'side')
    merge = covered_repo.head()
    code, out = run_guard(capsys, '--range', f'{base}..HEAD')
    assert code == 1
    assert f'commit {merge[:12]} ("merge side") is blocked' in out


def test_line_drift_blocks_at_the_tip_only(covered_repo, capsys):
    base = covered_repo.head()
    commit_file(covered_repo, 'app/lease.py', DRIFT, 'import os')
    code, out = run_guard(capsys, '--range', f'{base}..HEAD')
    assert code == 1
    assert f'{NOTES}: the code-to-action table is stale against the code of commit' in out
    assert 'A later sync' not in out  # a new commit fixes it: no history to rewrite
    assert cli.main(['coverage', '--write-map']) == 0
    covered_repo.add(NOTES)
    covered_repo.commit('map')
    capsys.readouterr()
    code, out = run_guard(capsys, '--range', f'{base}..HEAD')
    assert code == 0 and out.startswith(f'execlease guard: {base}..HEAD: ') and 'judged' in out


def test_deleted_covered_file_in_a_commit_cannot_run(covered_repo, capsys):
    base = covered_repo.head()
    covered_repo.git('rm', '-q', 'app/lease.py')
    covered_repo.commit('drop lease')
    code, out = run_guard(capsys, '--range', f'{base}..HEAD')
    assert code == 2
    assert 'app/lease.py is deleted in this commit' in out


@pytest.mark.parametrize(
    ('spec', 'message'),
    (
        pytest.param('nope..HEAD', "'nope' names no commit", id='unknown-base'),
        pytest.param('HEAD...HEAD', 'give A..B', id='three-dots'),
        pytest.param('..HEAD', 'name both ends', id='open-range'),
    ),
)
def test_bad_range_cannot_run(covered_repo, capsys, spec, message):
    code, out = run_guard(capsys, '--range', spec)
    assert code == 2
    assert message in out


def test_single_rev_judges_the_whole_history(covered_repo, capsys):
    # covered_repo's first commit holds code and a manifest that was never synced.
    code, out = run_guard(capsys, '--range', 'HEAD')
    assert code == 1
    assert '("code and model") is blocked' in out and 'covered code never synced' in out


def test_model_option_names_the_judged_manifest(covered_repo, capsys):
    base = covered_repo.head()
    commit_file(covered_repo, 'app/lease.py', BODY_EDIT, 'weaken claim')
    assert run_guard(capsys, '--range', f'{base}..HEAD', '--model', 'verification/lease')[0] == 1
    assert run_guard(capsys, '--range', f'{base}..HEAD', '--model', 'verification/nope')[0] == 2
