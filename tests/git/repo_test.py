from __future__ import annotations

from pathlib import Path

import pytest

from execlease_hook.cli import main as cli
from execlease_hook.core.errors import CannotRun
from execlease_hook.git import repo as git
from execlease_hook.git.repo import StagedChange


def test_repo_root_from_top_and_subfolder(git_repo):
    git_repo.write('a/b/c.txt', 'x\n')
    assert git.repo_root(git_repo.path) == git_repo.path
    assert git.repo_root(git_repo.path / 'a' / 'b') == git_repo.path


def test_repo_root_not_a_repository(tmp_path, monkeypatch):
    monkeypatch.setenv('GIT_CEILING_DIRECTORIES', str(tmp_path))
    with pytest.raises(CannotRun, match='not a git repository'):
        git.repo_root(tmp_path)


@pytest.mark.parametrize('argv', (['guard'], ['coverage']), ids=('guard', 'coverage'))
def test_cli_not_a_repository_exits_2(tmp_path, monkeypatch, capsys, argv):
    monkeypatch.setenv('GIT_CEILING_DIRECTORIES', str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    assert 'not a git repository' in capsys.readouterr().err


def test_head_unborn_then_committed(git_repo):
    assert git.head(git_repo.path) is None
    sha = git_repo.commit('first')
    assert git.head(git_repo.path) == sha


def _staged(repo) -> set[StagedChange]:
    return set(git.staged_changes(repo.path))


def test_staged_changes_unborn_branch(git_repo):
    git_repo.write('a.py', 'x = 1\n')
    git_repo.write('dir with space/b.py', 'y = 2\n')
    git_repo.add('a.py', 'dir with space/b.py')
    assert _staged(git_repo) == {
        StagedChange('A', 'a.py'),
        StagedChange('A', 'dir with space/b.py'),
    }


@pytest.mark.parametrize(
    ('action', 'expected'),
    (
        pytest.param(
            lambda r: (r.write('keep.py', 'k = 0\n'), r.add('keep.py')),
            {StagedChange('M', 'keep.py')},
            id='modified',
        ),
        pytest.param(
            lambda r: r.git('rm', '-q', 'gone.py'), {StagedChange('D', 'gone.py')}, id='deleted'
        ),
        pytest.param(
            lambda r: (r.write('sub/.keep', ''), r.git('mv', 'gone.py', 'sub/moved.py')),
            {StagedChange('R', 'sub/moved.py', 'gone.py')},
            id='renamed',
        ),
        pytest.param(
            lambda r: (r.write('new\tname.py', 'n = 1\n'), r.add('new\tname.py')),
            {StagedChange('A', 'new\tname.py')},
            id='added-with-tab',
        ),
        pytest.param(lambda r: r.write('keep.py', 'unstaged = 1\n'), set(), id='unstaged-only'),
    ),
)
def test_staged_changes(git_repo, action, expected):
    git_repo.write('keep.py', 'k = 1\n')
    git_repo.write('gone.py', ''.join(f'line_{i} = {i}\n' for i in range(30)))
    git_repo.add('keep.py', 'gone.py')
    git_repo.commit()
    action(git_repo)
    assert _staged(git_repo) == expected


def test_read_blobs_index_wins_over_working_tree(git_repo):
    git_repo.write('a.py', 'committed\n')
    git_repo.add('a.py')
    base = git_repo.commit()
    git_repo.write('a.py', 'staged\n')
    git_repo.add('a.py')
    git_repo.write('a.py', 'working tree\n')
    blobs = git.read_blobs(git_repo.path, [':a.py', f'{base}:a.py', ':absent.py', 'HEAD:absent.py'])
    assert blobs == {
        ':a.py': b'staged\n',
        f'{base}:a.py': b'committed\n',
        ':absent.py': None,
        'HEAD:absent.py': None,
    }


def test_read_blobs_binary_and_empty_and_tree(git_repo):
    payload = bytes(range(256)) * 3 + b'\n\n'
    git_repo.write('bin.dat', payload)
    git_repo.write('empty.txt', '')
    git_repo.write('d/x.txt', 'x')
    git_repo.add('bin.dat', 'empty.txt', 'd/x.txt')
    git_repo.commit()
    blobs = git.read_blobs(git_repo.path, ['HEAD:bin.dat', ':empty.txt', 'HEAD:d', ':d/x.txt'])
    assert blobs == {'HEAD:bin.dat': payload, ':empty.txt': b'', 'HEAD:d': None, ':d/x.txt': b'x'}


def test_read_blobs_no_specs_runs_nothing(tmp_path):
    assert git.read_blobs(tmp_path, []) == {}


def test_show_missing_commit_is_none(git_repo):
    git_repo.write('a.py', 'a\n')
    git_repo.add('a.py')
    sha = git_repo.commit()
    assert _at(git_repo.path, sha, 'a.py') == b'a\n'
    assert _at(git_repo.path, '1' * 40, 'a.py') is None
    assert git.rev_parse(git_repo.path, sha) == sha
    assert git.rev_parse(git_repo.path, '1' * 40) is None


def _at(root, commit, path):
    """What git.read_blobs reads of `path` at `commit`."""
    return git.read_blobs(root, [f'{commit}:{path}'])[f'{commit}:{path}']


def test_show_in_shallow_clone_lacks_old_commit(git_repo, tmp_path):
    git_repo.write('a.py', 'old\n')
    git_repo.add('a.py')
    old = git_repo.commit('old')
    git_repo.write('a.py', 'new\n')
    git_repo.add('a.py')
    git_repo.commit('new')
    clone = tmp_path / 'shallow'
    git_repo.git('clone', '-q', '--depth', '1', f'file://{git_repo.path}', str(clone))
    assert _at(clone, old, 'a.py') is None
    assert _at(clone, 'HEAD', 'a.py') == b'new\n'


def test_temporary_index_is_respected(git_repo, monkeypatch, tmp_path):
    # `git commit PATH` hands hooks a temporary index through GIT_INDEX_FILE.
    git_repo.write('a.py', 'a\n')
    git_repo.add('a.py')
    git_repo.commit()
    other_index = tmp_path / 'index.tmp'
    env_index = Path(git_repo.path / '.git' / 'index').read_bytes()
    other_index.write_bytes(env_index)
    monkeypatch.setenv('GIT_INDEX_FILE', str(other_index))
    git_repo.write('b.py', 'b\n')
    import subprocess

    subprocess.run(('git', 'add', 'b.py'), cwd=git_repo.path, check=True)
    assert git.staged_changes(git_repo.path) == [StagedChange('A', 'b.py')]
    monkeypatch.delenv('GIT_INDEX_FILE')
    assert git.staged_changes(git_repo.path) == []


def test_commit_changes_root_and_first_parent(git_repo):
    git_repo.write('a.py', 'a\n')
    git_repo.add('a.py')
    root = git_repo.commit('root')
    git_repo.git('mv', 'a.py', 'b.py')
    second = git_repo.commit('rename')
    assert git.commit_changes(git_repo.path, root, None) == [StagedChange('A', 'a.py')]
    assert git.commit_changes(git_repo.path, second, root) == [StagedChange('R', 'b.py', 'a.py')]
    assert git.rev_list(git_repo.path, second) == [(root, None), (second, root)]
    assert git.rev_list(git_repo.path, second, '--not', root) == [(second, root)]
    assert git.rev_parse(git_repo.path, 'HEAD~1') == root
    assert git.rev_parse(git_repo.path, 'no-such-ref') is None


def test_model_manifests_from_the_index_and_a_commit(git_repo):
    for rel in (
        'verification/a/manifest.json',
        'verification/b/manifest.json',
        'verification/a/deeper/manifest.json',
        'verification/manifest.json',
        'other/x/manifest.json',
    ):
        git_repo.write(rel, '{}\n')
    git_repo.add('.')
    commit = git_repo.commit('models')
    git_repo.git('rm', '-q', '--cached', 'verification/b/manifest.json')
    blob = git_repo.git('hash-object', 'verification/a/manifest.json').strip()
    # Every manifest.json the commit records (which are execlease's is manifest/find.py's question).
    assert git.model_manifests(git_repo.path) == [
        ('other/x/manifest.json', blob),
        ('verification/a/deeper/manifest.json', blob),
        ('verification/a/manifest.json', blob),
        ('verification/manifest.json', blob),
    ]
    assert git.model_manifests(git_repo.path, commit) == [
        ('other/x/manifest.json', blob),
        ('verification/a/deeper/manifest.json', blob),
        ('verification/a/manifest.json', blob),
        ('verification/b/manifest.json', blob),
        ('verification/manifest.json', blob),
    ]
    assert git.model_manifests(git_repo.path, only='verification/a/manifest.json') == [
        ('verification/a/manifest.json', blob)
    ]
    assert git.blob_id(b'{}\n', blob) == blob
    assert git.index_blob(git_repo.path, 'verification/a/manifest.json') == blob
    assert git.index_blob(git_repo.path, 'verification/b/manifest.json') is None


def test_checkout_tree_touches_neither_index_nor_working_tree(git_repo, tmp_path):
    git_repo.write('a.py', 'old\n')
    git_repo.add('a.py')
    old = git_repo.commit('old')
    git_repo.write('a.py', 'new\n')
    git_repo.add('a.py')
    git_repo.commit('new')
    git_repo.write('a.py', 'unstaged\n')
    (tmp_path / 'out').mkdir()
    git.checkout_tree(git_repo.path, old, tmp_path / 'out' / 'tree')
    assert (tmp_path / 'out' / 'tree' / 'a.py').read_text() == 'old\n'
    assert [p.name for p in (tmp_path / 'out').iterdir()] == ['tree']  # the temporary index is gone
    assert git_repo.read('a.py') == 'unstaged\n'
    assert git_repo.git('show', ':a.py') == 'new\n'


def test_write_blobs_and_stage_blob(git_repo):
    git_repo.write('a.py', 'a\n')
    git_repo.add('a.py')
    git_repo.write('a.py', 'changed\n')
    ids = git.write_blobs(git_repo.path, ['a.py'])
    assert git_repo.git('cat-file', '-p', ids['a.py']) == 'changed\n'
    blob = git.write_blob_data(git_repo.path, b'staged\n')
    git.stage_blob(git_repo.path, 'a.py', blob)
    assert git_repo.git('show', ':a.py') == 'staged\n'
    assert git_repo.read('a.py') == 'changed\n'
