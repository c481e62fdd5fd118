"""The guard's mechanical repair of a stale NOTES.md table, with real git (see also guard_test)."""

from __future__ import annotations

import pytest

from execlease_hook.cli import main as cli
from tests.conftest import LEASE_PY, NOTES

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
    assert (
        worktree.endswith('\nAn unstaged paragraph.\n') and 'An unstaged paragraph.' not in staged
    )


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


END = '<!-- code-to-action:end -->'
TYPED = '| `Claim` | see | the claim is one UPDATE |'


def type_in_table(text: str, line: str = TYPED) -> str:
    return text.replace(END, f'{line}\n{END}')


def stage_drift(repo) -> None:
    repo.write('app/lease.py', DRIFT)
    repo.add('app/lease.py')


def test_abstract_rows_and_staged_file_first_converge(covered_repo, capsys):
    """The fix writes the table the check expects: abstract rows included, the manifest's order
    although the staged file's entries are located first."""
    import json

    from tests.conftest import MANIFEST, sync_coverage

    covered_repo.write('app/first.py', 'def first(db):\n    return db\n')
    data = json.loads(covered_repo.read(MANIFEST))
    data['coverage']['entries'].insert(
        0, {'id': 'first', 'path': 'app/first.py', 'function': 'first', 'action': 'Renew'}
    )
    data['coverage']['abstract'] = [{'action': 'Expire', 'reason': 'time passes'}]
    covered_repo.write(MANIFEST, json.dumps(data, indent=2) + '\n')
    tla = 'verification/lease/Lease.tla'
    covered_repo.write(
        tla, covered_repo.read(tla).replace('Next ==', "Expire == x' = x\nNext == Expire \\/")
    )
    sync_coverage(covered_repo.path)
    covered_repo.add('.')
    covered_repo.commit('an abstract action, entries of two files')
    stage_drift(covered_repo)
    code, out = run_guard(capsys)
    assert (
        code == 1 and 'rewritten in the working tree and the index' in out and 'warning' not in out
    )
    assert run_guard(capsys) == (0, '')
    assert '| `Expire` | abstract | time passes |' in covered_repo.git('show', f':{NOTES}')


@pytest.mark.parametrize(
    ('edit', 'warned'),
    (
        pytest.param(lambda t: t, (), id='stale-only'),
        pytest.param(
            lambda t: t.replace('lease.py:4](', 'lease.py:40](').replace('#L4)', '#L40)'),
            (),
            id='a-line-number-typed',
        ),
        pytest.param(type_in_table, (TYPED,), id='a-row-typed'),
        pytest.param(
            lambda t: type_in_table(t, 'Ask the team before editing.'),
            ('Ask the team before editing.',),
            id='prose-typed',
        ),
        pytest.param(lambda t: type_in_table(t, ''), (), id='a-blank-line'),
    ),
)
def test_the_warning_quotes_only_lines_typed_by_hand(covered_repo, capsys, edit, warned):
    covered_repo.write(NOTES, edit(covered_repo.read(NOTES)))
    covered_repo.add(NOTES)
    stage_drift(covered_repo)
    code, out = run_guard(capsys)
    assert code == 1 and 'rewritten in the working tree and the index' in out
    if warned:
        assert ''.join(f'\n  {line}' for line in warned) + '\nThe fix is staged' in out
    assert ('warning: lines edited inside the generated table' in out) is bool(warned)
    assert run_guard(capsys) == (0, '')


def test_a_line_the_last_commit_had_is_no_new_edit(covered_repo, capsys):
    """A table in an older layout (here: a header this version does not write) is rewritten
    without a warning: nobody edited it in this commit."""
    covered_repo.write(
        NOTES,
        covered_repo.read(NOTES).replace('| Action | Entry | Code |', '| Action | Id | Code |'),
    )
    covered_repo.add(NOTES)
    covered_repo.commit('the table of an older version')
    stage_drift(covered_repo)
    code, out = run_guard(capsys)
    assert code == 1 and 'rewritten' in out and 'warning' not in out
    assert '| Action | Entry | Code |' in covered_repo.git('show', f':{NOTES}')


def test_a_line_typed_in_the_working_tree_only_is_quoted(covered_repo, capsys):
    stage_drift(covered_repo)
    covered_repo.write(NOTES, type_in_table(covered_repo.read(NOTES)))  # not staged
    code, out = run_guard(capsys)
    assert code == 1 and f'they were:\n  {TYPED}\n' in out
    assert TYPED not in covered_repo.read(NOTES)


def test_an_entry_made_abstract_is_rewritten(covered_repo, capsys):
    import json

    from tests.conftest import MANIFEST

    data = json.loads(covered_repo.read(MANIFEST))
    data['coverage']['entries'] = data['coverage']['entries'][:2]
    data['coverage']['abstract'] = [
        {'action': 'BeginStep', 'reason': 'the step table is not modelled'}
    ]
    covered_repo.write(MANIFEST, json.dumps(data, indent=2) + '\n')
    covered_repo.add(MANIFEST)
    code, out = run_guard(capsys)
    assert code == 1
    assert '`replay-decision`: a row for an entry the manifest does not have' in out
    assert run_guard(capsys) == (0, '')
    assert '| `BeginStep` | abstract | the step table is not modelled |' in covered_repo.read(NOTES)
