"""`execlease verify --rev REV`: the tree of a commit, checked out alone, judged on the real TLC."""

from __future__ import annotations

from execlease_hook.cli import main as cli


def test_verify_rev_judges_the_commit_not_the_working_tree(
    git_repo, capsys, offline_tlc, tmp_path_factory
):
    from tests.verify.suite_test import CAUGHT, COUNTER_PY, MODEL, shared_results, write_model

    write_model(git_repo, mutations=(CAUGHT,))
    # The repository's result cache is the run's shared one (suite_test.shared_results): what is
    # judged here is which tree a commit's run reads, and that it reads the repository's cache;
    # the check and the mutation are those of the suite's and the syncs' tests, run once for all.
    shared_results(tmp_path_factory, git_repo)
    assert cli.main(['verify', '--update-coverage']) == 0
    git_repo.add('.')
    good = git_repo.commit('synced')
    git_repo.write('app/counter.py', COUNTER_PY.replace('if x < top:', 'if x <= top:'))
    git_repo.add('.')
    git_repo.commit('unsynced')
    git_repo.write('app/counter.py', COUNTER_PY)  # the working tree is whole again
    capsys.readouterr()
    assert cli.main(['verify']) == 0
    assert cli.main(['verify', '--rev', 'HEAD']) == 1
    out = capsys.readouterr().out
    assert 'its tree checked out alone' in out
    assert 'covered code changed: entry inc at app/counter.py:1, action Inc' in out
    # A spec broken in the working tree only does not touch a commit's verdict; the cache is shared.
    spec = git_repo.path / MODEL / 'Counter.tla'
    spec.write_text(spec.read_text().replace('Inc == x < N', 'Inc == x < N +'))
    assert cli.main(['verify', '--rev', good[:10]]) == 0
    captured = capsys.readouterr()
    assert captured.out.rstrip().endswith('PASSED')
    assert (
        'check main: held' in captured.err and 'cached)' in captured.err
    )  # the repository's cache
    assert git_repo.git('status', '--porcelain').splitlines() == [
        ' M app/counter.py',
        f' M {MODEL}/Counter.tla',
    ]
    assert cli.main(['verify', '--rev', 'HEAD', '--update-coverage']) == 2
