from __future__ import annotations

import os

from execlease_hook.git import repo as git
from execlease_hook.git.worktree import file_id, worktree_ids
from tests.conftest import GitRepo


def test_ids_are_what_the_working_tree_holds(git_repo: GitRepo):
    git_repo.write('a.py', 'A = 1\n')
    git_repo.write('b.py', 'B = 1\n')
    git_repo.write('gone.py', 'G = 1\n')
    git_repo.write('.gitignore', 'build/\n')
    git_repo.add('.')
    git_repo.commit('files')
    index = worktree_ids(git_repo.path)
    assert index['a.py'] == git.blob_id(b'A = 1\n', index['a.py'])
    assert set(index) == {'.gitignore', 'a.py', 'b.py', 'gone.py'}
    git_repo.write('b.py', 'B = 2\n')  # modified, not staged
    git_repo.write('new.py', 'N = 1\n')  # untracked, not ignored
    git_repo.write('build/out.bin', 'ignored')
    (git_repo.path / 'gone.py').unlink()  # deleted, still in the index
    os.symlink('a.py', git_repo.path / 'link.py')
    ids = worktree_ids(git_repo.path)
    assert ids['a.py'] == index['a.py']
    assert ids['b.py'] == git.blob_id(b'B = 2\n', ids['a.py']) != index['b.py']
    assert ids['new.py'] == git.blob_id(b'N = 1\n', ids['a.py'])
    assert ids['gone.py'] == 'gone' and 'build/out.bin' not in ids
    assert ids['link.py'] == git.blob_id(
        b'a.py', ids['a.py']
    )  # a link: its target, as git stores it
    git_repo.add('.')
    assert worktree_ids(git_repo.path) == {k: v for k, v in ids.items() if k != 'gone.py'}


def test_a_tree_checked_out_alone_is_read_whole(git_repo: GitRepo, tmp_path):
    """`verify --rev` runs in a commit's tree written to a folder of its own, which git does not
    know: every file in it counts, with the ids git gives the commit's blobs."""
    git_repo.write('a.py', 'A = 1\n')
    git_repo.write('tools/log.sh', 'echo x\n')
    git_repo.add('.')
    git_repo.commit('files')
    tree = tmp_path / 'tree'
    git.checkout_tree(git_repo.path, 'HEAD', tree)
    assert worktree_ids(tree) == worktree_ids(git_repo.path)
    (tree / 'tools' / 'log.sh').write_text('echo y\n')
    assert worktree_ids(tree)['tools/log.sh'] == git.blob_id(b'echo y\n', '0' * 40)


def test_a_folder_and_a_missing_file(tmp_path):
    assert file_id(tmp_path, '0' * 40) == 'folder'
    assert file_id(tmp_path / 'nothing', '0' * 40) == 'gone'
