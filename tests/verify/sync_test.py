"""`execlease verify --update-coverage`: a first commit, synced blobs and the honest sync, with
the real TLC on a small model and real git."""

from __future__ import annotations

import json

import pytest

from execlease_hook.cli import main as cli
from tests.conftest import GitRepo
from tests.verify.suite_test import CAUGHT, COUNTER_PY, MODEL, shared_results, write_model

pytestmark = pytest.mark.usefixtures('offline_tlc')
MANIFEST = f'{MODEL}/manifest.json'
WEAKER = COUNTER_PY.replace('if x < top:', 'if x <= top:')


def verify(capsys, *args: str) -> tuple[int, str]:
    code = cli.main(['verify', *args])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def guard(capsys, *args: str) -> tuple[int, str]:
    code = cli.main(['guard', *args])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.fixture(autouse=True)
def results(tmp_path_factory: pytest.TempPathFactory, git_repo: GitRepo) -> None:
    """What these tests judge is how a sync writes coverage from the verdicts, not how TLC runs:
    each job's verdict comes from the run's shared results once a test has run that job (the
    same model's check and mutation, run by every test here)."""
    shared_results(tmp_path_factory, git_repo)


def entries(repo: GitRepo) -> dict[str, dict[str, str]]:
    return {e['id']: e for e in json.loads(repo.read(MANIFEST))['coverage']['entries']}


def test_first_commit_of_a_new_repository(git_repo, capsys):
    write_model(git_repo, mutations=(CAUGHT,))
    assert git_repo.git('rev-parse', '--verify', '-q', 'HEAD', check=False) == ''
    code, out = verify(capsys, '--update-coverage')
    assert code == 0, out
    assert 'syncCommit: none -> none (no commit yet)' not in out  # it was none and stays none
    data = json.loads(git_repo.read(MANIFEST))
    assert data['coverage']['syncCommit'] is None
    blob = git_repo.git('hash-object', 'app/counter.py').strip()
    assert {e['syncedBlob'] for e in data['coverage']['entries']} == {blob}
    assert (
        git_repo.git('cat-file', '-t', blob).strip() == 'blob'
    )  # written into the object database
    git_repo.add('.')
    assert guard(capsys) == (0, '')  # the first `git commit` passes the guard
    git_repo.commit('first')
    # The next change shows its diff against the synced blob, although no sync commit exists.
    git_repo.write('app/counter.py', WEAKER)
    git_repo.add('app/counter.py')
    code, out = guard(capsys)
    assert code == 1
    assert f'--- app/counter.py (as synced, blob {blob[:12]})' in out
    assert '-    if x < top:' in out and '+    if x <= top:' in out


def test_code_only_sync_needs_a_reason(git_repo, capsys):
    write_model(git_repo, mutations=(CAUGHT,))
    assert verify(capsys, '--update-coverage')[0] == 0
    git_repo.add('.')
    git_repo.commit('synced')
    git_repo.write('app/counter.py', WEAKER)
    before = git_repo.read(MANIFEST)
    code, out = verify(capsys, '--update-coverage')
    assert code == 1
    assert (
        'not updating coverage: covered code changed since the last sync (inc (app/counter.py:1, '
        'action Inc)) but no definition of the model (spec, cfgs) did'
    ) in out
    assert '--update-coverage --reason "..."' in out and 'Nothing was changed.' in out
    assert 'FAILED (did not hold)' in out
    assert git_repo.read(MANIFEST) == before
    assert verify(capsys, '--update-coverage', '--reason', '  ')[0] == 2

    reason = 'x <= top: the model already allows the top value (Inc guard is x < N + 1)'
    code, out = verify(capsys, '--update-coverage', '--reason', reason)
    assert code == 0, out
    assert f'entry inc: syncReason "{reason}"' in out
    after = entries(git_repo)
    assert after['inc']['syncReason'] == reason
    assert 'syncReason' not in after['flip']  # only the entry that moved
    code, out = cli.main(['coverage']), capsys.readouterr().out
    assert code == 0
    assert f'      synced without a model change: {reason}' in out
    # A later sync that moves the entry with the model drops the reason; one that does not keep it.
    git_repo.write('app/counter.py', WEAKER.replace('return 1 - y', 'return 1 - y  # same code'))
    assert verify(capsys, '--update-coverage')[0] == 0
    assert entries(git_repo)['inc']['syncReason'] == reason
    # The model's edits are suite_test's (test_update_coverage_rewrites_only_what_it_should), byte
    # for byte: the jobs of each edited spec are run once for both tests (the shared results).
    spec = git_repo.path / MODEL / 'Counter.tla'
    spec.write_text(spec.read_text().replace('====', '\\* a comment\n===='))  # no model change
    git_repo.write('app/counter.py', COUNTER_PY)
    assert verify(capsys, '--update-coverage')[0] == 1
    spec.write_text(
        spec.read_text().replace('YIsOne == y = 1', 'YIsOne == y = 1 /\\ x >= 0')
    )  # a definition moved
    git_repo.write('app/counter.py', COUNTER_PY)
    code, out = verify(capsys, '--update-coverage')
    assert code == 0, out
    assert 'syncReason' not in entries(git_repo)['inc']


def test_new_entry_needs_no_reason(git_repo, capsys):
    write_model(git_repo)
    assert verify(capsys, '--update-coverage')[0] == 0
    data = json.loads(git_repo.read(MANIFEST))
    data['coverage']['entries'].append(
        {
            'id': 'inc-guard',
            'path': 'app/counter.py',
            'within': 'increment',
            'region': {'from': 'if x < top:', 'to': 'return x + 1'},
            'action': 'Inc',
        }
    )
    git_repo.write(MANIFEST, json.dumps(data, indent=2) + '\n')
    code, out = verify(capsys, '--update-coverage')
    assert code == 0, out
    assert 'entry inc-guard (app/counter.py:2): none -> ts' in out
    assert 'synced blob' not in out  # the file's synced content did not move


def test_failure_diff_after_a_rename_uses_the_synced_blob(git_repo, capsys):
    write_model(git_repo)
    assert verify(capsys, '--update-coverage')[0] == 0
    git_repo.add('.')
    git_repo.commit('synced')
    git_repo.git('mv', 'app/counter.py', 'app/count.py')
    git_repo.write('app/count.py', WEAKER)
    text = git_repo.read(MANIFEST).replace('"app/counter.py"', '"app/count.py"')
    git_repo.write(MANIFEST, text)
    git_repo.add('app/count.py', MANIFEST)
    code, out = guard(capsys)
    assert code == 1
    assert 'inc: app/count.py:1  (model action Inc): covered code changed' in out
    assert (
        '--- app/counter.py (as synced, blob' in out or '--- app/count.py (as synced, blob' in out
    )
    assert '-    if x < top:' in out and '+    if x <= top:' in out


def test_failure_diff_in_a_fresh_clone(git_repo, capsys, tmp_path, monkeypatch):
    write_model(git_repo)
    assert verify(capsys, '--update-coverage')[0] == 0
    git_repo.add('.')
    git_repo.commit('synced')
    clone = GitRepo(tmp_path / 'clone')
    git_repo.git('clone', '-q', str(git_repo.path), str(clone.path))
    monkeypatch.chdir(clone.path)
    clone.write('app/counter.py', WEAKER)
    clone.add('app/counter.py')
    code, out = guard(capsys)
    assert code == 1
    assert '(as synced, blob' in out and '+    if x <= top:' in out


def test_sync_of_an_unsynced_blob_before_the_sync_is_committed(git_repo, capsys):
    # Synced, not committed: the blob is in the object database already, so the diff is exact.
    write_model(git_repo)
    git_repo.add('.')
    git_repo.commit('code and model')
    synced = COUNTER_PY.replace('return x\n', 'return x  # top\n')
    git_repo.write('app/counter.py', synced)
    assert verify(capsys, '--update-coverage')[0] == 0
    git_repo.write('app/counter.py', synced.replace('if x < top:', 'if x <= top:'))
    git_repo.add('.')
    code, out = guard(capsys)
    assert code == 1
    changed = [
        line[2:]
        for line in out.splitlines()
        if line.startswith(('  -', '  +')) and not line.startswith(('  ---', '  +++'))
    ]
    # Exactly the change since the hashed code: the comment synced before is not shown again.
    assert changed == ['-    if x < top:', '+    if x <= top:']
