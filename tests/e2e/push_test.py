"""Pre-push and merges judge what is pushed and merged, through the real pre-commit and git.

The consumer of tlc_push_e2e_test (a tiny TLA+ model covering one Python function, the three
hook types installed, a bare remote): commits that skip the pre-commit hook (--no-verify, a
cherry-pick) are caught on push whatever the working tree or the index hold, on the branch
being pushed; a merge runs the guard through pre-merge-commit.
"""

from __future__ import annotations

import pytest

from tests.conftest import MANIFEST, sync_coverage
from tests.e2e import tlc_push_test
from tests.e2e.tlc_push_test import COUNTER_PY, HOOK_TLC, remote_head, run
from tests.verify.suite_test import shared_results

# The fixtures (a consumer with the three hook types installed and a bare remote; the same
# after its first push), shared.
pushing = tlc_push_test.pushing
pushed = tlc_push_test.pushed

WEAK = COUNTER_PY.replace('if count < limit:', 'if count <= limit:')
HOOK_GUARD = 'execlease guard'


def bypass(repo, text: str, message: str) -> str:
    """A commit of covered code without a sync, made past the pre-commit hook."""
    repo.write('app/counter.py', text)
    repo.add('app/counter.py')
    return repo.commit(message)  # --no-verify


def remote_branches(repo) -> list[str]:
    return [line.split('\t')[1] for line in repo.git('ls-remote', '--heads', 'origin').splitlines()]


@pytest.mark.timeout(900)
def test_push_judges_the_pushed_commits_not_the_staged_fix(pushed, pre_commit_home):
    # The consumer's first push, while the model holds (tlc_push_test.pushed: made once for
    # the run's tests that start with it, each of them in a copy of its own).
    pushing = pushed.repo
    code, out = pushed.push
    assert code == 0, out
    assert (
        f'{HOOK_TLC}' in out and 'Passed' in out
    )  # pre-commit shows a hook's output only on failure
    assert remote_head(pushing) == pushing.head() == pushed.tip
    tip = remote_head(pushing)

    bad = bypass(pushing, WEAK, 'weaken increment')
    sync_coverage(pushing.path)
    pushing.add(MANIFEST)  # the fix sits staged; the working tree and the index are whole
    code, out = run(pushing, pre_commit_home, 'git', 'push', 'origin', 'main')
    assert code == 1, out
    assert f'{HOOK_TLC}' in out and 'Failed' in out
    assert f'commit {bad[:12]} ("weaken increment") is blocked' in out
    assert 'increment: app/counter.py:1  (model action Inc): covered code changed' in out
    assert 'its tree checked out alone' in out
    assert (
        'covered code changed: entry increment at app/counter.py:1, action Inc' in out
    )  # the tip's suite
    assert remote_head(pushing) == tip

    # Committing the sync afterwards leaves the unsynced commit in the history: still refused.
    code, out = run(pushing, pre_commit_home, 'git', 'commit', '-q', '-m', 'sync')
    assert code == 0, out
    code, out = run(pushing, pre_commit_home, 'git', 'push', 'origin', 'main')
    assert code == 1, out
    assert f'commit {bad[:12]} ("weaken increment") is blocked' in out
    assert 'A later sync does not repair an earlier commit' in out
    assert 'covered code changed: entry' not in out  # the tip itself is whole

    # Folded into one commit, the push goes through.
    pushing.git('reset', '-q', '--soft', tip)
    code, out = run(
        pushing, pre_commit_home, 'git', 'commit', '-q', '-m', 'weaken increment, synced'
    )
    assert code == 0, out
    code, out = run(pushing, pre_commit_home, 'git', 'push', 'origin', 'main')
    assert code == 0, out
    assert remote_head(pushing) == pushing.head()


@pytest.mark.timeout(900)
def test_a_branch_other_than_the_current_one_is_judged_on_that_branch(pushed, pre_commit_home):
    pushing = pushed.repo  # main pushed first, while the model holds
    assert pushed.push[0] == 0
    assert remote_head(pushing) == pushing.head()
    pushing.git('checkout', '-q', '-b', 'bad')
    bad = bypass(pushing, WEAK, 'weaken increment')
    pushing.git('checkout', '-q', 'main')
    pushing.git('checkout', '-q', '-b', 'good')
    pushing.write('README', 'notes\n')
    pushing.add('README')
    pushing.commit('a readme')
    pushing.git('checkout', '-q', 'main')

    # A new branch (the remote has no such ref): judged from where the remote's refs end.
    code, out = run(pushing, pre_commit_home, 'git', 'push', 'origin', 'bad')
    assert code == 1, out
    assert 'judging the push of refs/heads/bad -> origin refs/heads/bad: 1 new commit' in out
    assert f'commit {bad[:12]} ("weaken increment") is blocked' in out
    assert 'refs/heads/bad' not in remote_branches(pushing)
    code, out = run(pushing, pre_commit_home, 'git', 'push', 'origin', 'good')
    assert code == 0, out
    assert 'refs/heads/good' in remote_branches(pushing)

    # A cherry-pick runs no pre-commit hook: the commit is made, and the push catches it.
    code, out = run(pushing, pre_commit_home, 'git', 'cherry-pick', 'bad')
    assert code == 0, out
    assert HOOK_GUARD not in out
    code, out = run(pushing, pre_commit_home, 'git', 'push', 'origin', 'main')
    assert code == 1, out
    assert '("weaken increment") is blocked' in out


@pytest.mark.timeout(900)
def test_a_merge_runs_the_guard(pushing, pre_commit_home):
    pushing.git('checkout', '-q', '-b', 'side')
    bypass(pushing, WEAK, 'weaken increment')
    pushing.git('checkout', '-q', 'main')
    head = pushing.head()
    code, out = run(pushing, pre_commit_home, 'git', 'merge', '--no-ff', '-m', 'merge side', 'side')
    assert code != 0, out
    assert HOOK_GUARD in out and 'Failed' in out
    assert 'increment: app/counter.py:1  (model action Inc): covered code changed' in out
    assert pushing.head() == head  # no merge commit
    pushing.git('merge', '--abort')

    pushing.git('checkout', '-q', '-b', 'fine', head)
    pushing.write('README', 'notes\n')
    pushing.add('README')
    pushing.commit('a readme')
    pushing.git('checkout', '-q', 'main')
    code, out = run(pushing, pre_commit_home, 'git', 'merge', '--no-ff', '-m', 'merge fine', 'fine')
    assert code == 0, out
    assert HOOK_GUARD in out and 'Passed' in out
    assert pushing.git('log', '-1', '--format=%s').strip() == 'merge fine'


@pytest.mark.timeout(900)
def test_a_new_repository_makes_its_first_commit_through_the_hooks(
    git_repo, hook_repo, pre_commit_home, tmp_path, tmp_path_factory
):
    import sys
    from pathlib import Path

    from tests.e2e.tlc_push_test import PRE_COMMIT, hooks_config, write_counter_model

    write_counter_model(git_repo)
    git_repo.write('.pre-commit-config.yaml', hooks_config(hook_repo))
    code, out = run(
        git_repo,
        pre_commit_home,
        *PRE_COMMIT,
        'install',
        '--hook-type',
        'pre-commit',
        '--hook-type',
        'pre-push',
    )
    assert code == 0, out
    # The model of `pushing`, whose TLC results this repository reads (`shared_results`): what
    # is tested here is the first commit and push, not running TLC.
    shared_results(tmp_path_factory, git_repo)
    git_repo.add('.')
    code, out = run(git_repo, pre_commit_home, 'git', 'commit', '-m', 'first')
    assert code == 1, out  # never synced
    assert 'covered code never synced' in out
    execlease = str(Path(sys.executable).parent / 'execlease')
    code, out = run(git_repo, pre_commit_home, execlease, 'verify', '--update-coverage')
    assert code == 0, out
    assert 'syncCommit' not in out  # none before, none now: there is no commit yet
    git_repo.add('.')
    code, out = run(git_repo, pre_commit_home, 'git', 'commit', '-m', 'first')
    assert code == 0, out
    assert HOOK_GUARD in out and 'Passed' in out
    remote = tmp_path / 'remote.git'
    git_repo.git('init', '-q', '--bare', '-b', 'main', str(remote))
    git_repo.git('remote', 'add', 'origin', str(remote))
    code, out = run(git_repo, pre_commit_home, 'git', 'push', 'origin', 'main')
    assert code == 0, out
    assert remote_head(git_repo) == git_repo.head()
