"""The guard's mechanical repair of a stale NOTES.md table, with real git (see also guard_test)."""
from __future__ import annotations

from tests.conftest import LEASE_PY, NOTES
from execlease_hook.cli import main as cli

DRIFT = LEASE_PY.replace('import sqlite3\n', 'import sqlite3\nimport os\n')


def run_guard(capsys) -> tuple[int, str]:
    code = cli.main(['guard'])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_unstaged_edits_outside_the_table_are_kept(covered_repo, capsys):
    covered_repo.write('app/lease.py', DRIFT)
    covered_repo.add('app/lease.py')
    covered_repo.write(NOTES, covered_repo.read(NOTES) + '\nAn unstaged paragraph.\n')
    code, out = run_guard(capsys)
    assert code == 1 and 'rewritten in the working tree and the index' in out
    worktree, staged = covered_repo.read(NOTES), covered_repo.git('show', f':{NOTES}')
    assert '[app/lease.py:5]' in worktree and '[app/lease.py:5]' in staged
    assert worktree.endswith('\nAn unstaged paragraph.\n') and 'An unstaged paragraph.' not in staged


def test_notes_missing_from_the_working_tree_is_fixed_in_the_index(covered_repo, capsys):
    covered_repo.write('app/lease.py', DRIFT)
    covered_repo.add('app/lease.py')
    (covered_repo.path / NOTES).unlink()
    code, out = run_guard(capsys)
    assert code == 1
    assert 'rewritten in the index (not the working tree:' in out
    assert '[app/lease.py:5]' in covered_repo.git('show', f':{NOTES}')
    assert not (covered_repo.path / NOTES).exists()
    assert run_guard(capsys) == (0, '')


def test_an_entry_that_cannot_be_located_is_not_a_mechanical_fix(covered_repo, capsys):
    covered_repo.write('app/lease.py', DRIFT.replace('def renew', 'def extend'))
    covered_repo.add('app/lease.py')
    before = covered_repo.git('show', f':{NOTES}')
    code, out = run_guard(capsys)
    assert code == 2
    assert 'rewritten' not in out
    assert covered_repo.git('show', f':{NOTES}') == before
