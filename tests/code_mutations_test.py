from __future__ import annotations

import pytest

from execlease_hook.code_mutations import mutated_copy, repository_files
from execlease_hook.errors import CannotRun
from execlease_hook.manifest import CodeMutation, Replace
from tests.conftest import GitRepo


def mutation(start: str, to: str = 'return 2') -> CodeMutation:
    return CodeMutation('m', 'app/a.py', Replace(start, to))


def test_copy_is_mutated_working_tree_is_not(git_repo: GitRepo):
    git_repo.write('app/a.py', 'def f():\n    return 1\n')
    git_repo.write('.gitignore', 'ignored/\n')
    git_repo.write('ignored/big.bin', 'x')
    git_repo.add('app/a.py', '.gitignore')
    git_repo.write('notes.txt', 'untracked, not ignored')
    with mutated_copy(git_repo.path, mutation('return 1')) as copy:
        assert (copy / 'app/a.py').read_text() == 'def f():\n    return 2\n'
        assert (copy / 'notes.txt').exists() and not (copy / 'ignored').exists()
    assert not copy.exists()
    assert git_repo.read('app/a.py') == 'def f():\n    return 1\n'
    assert repository_files(git_repo.path) == ['.gitignore', 'app/a.py', 'notes.txt']


@pytest.mark.parametrize(
    ('start', 'found'), [('nothing like it', 'does not match'), ('return', 'matches 2 times')],
    ids=['missing', 'twice'],
)
def test_anchor_must_match_once(git_repo: GitRepo, start, found):
    git_repo.write('app/a.py', 'def f():\n    return 1\n\ndef g():\n    return 1\n')
    with pytest.raises(CannotRun, match=f'code mutation m: replace.from {found} in app/a.py'):
        with mutated_copy(git_repo.path, mutation(start)):
            pass
