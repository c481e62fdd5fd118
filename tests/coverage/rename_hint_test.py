"""The guard names the exact repair of an entry whose function was renamed (real git, the guard
in process; tests/e2e/guard_test.py runs the same through the real pre-commit)."""

from __future__ import annotations

import re

import pytest

from execlease_hook.cli import main as cli
from tests.conftest import LEASE_PY, MANIFEST

RENAMED = LEASE_PY.replace('def claim_lease(', 'def take_lease(')


def guard(capsys) -> tuple[int, str]:
    code = cli.main(['guard'])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def manifest_line(repo, key_value: str) -> int:
    lines = repo.read(MANIFEST).splitlines()
    entry = next(n for n, text in enumerate(lines) if '"id": "claim-lease"' in text)
    return next(n for n, text in enumerate(lines[entry:], entry + 1) if key_value in text)


def test_a_function_renamed_unchanged_names_the_edit_and_the_sync(covered_repo, capsys):
    covered_repo.write('app/lease.py', RENAMED)
    covered_repo.add('app/lease.py')
    code, out = guard(capsys)
    assert code == 2
    assert (
        'app/lease.py:4 defines take_lease: renamed from claim_lease? (with the code it had at '
        'the sync)'
    ) in out
    line = manifest_line(covered_repo, '"path": "app/lease.py"')
    assert (
        f'{MANIFEST}:{line}: change "function": "claim_lease" to "function": "take_lease"'
    ) in out
    assert (
        "then `execlease verify --update-coverage --reason 'renamed claim_lease to take_lease; "
        "the code is the same'`"
    ) in out
    assert 'What to do' not in out  # nothing to model: the steps are not printed


def test_a_method_renamed_and_changed_is_the_new_name_and_the_steps(covered_repo, capsys):
    text = LEASE_PY.replace('def renew(self, run_id, now):', 'def extend(self, run_id, now):')
    text = text.replace('now + 30', 'now + 60')
    covered_repo.write('app/lease.py', text)
    covered_repo.add('app/lease.py')
    code, out = guard(capsys)
    assert code == 2
    assert (
        'app/lease.py:18 defines LeaseStore.extend: renamed from LeaseStore.renew? (its code differs)'
        in out
    )
    assert 'change "function": "LeaseStore.renew" to "function": "LeaseStore.extend"' in out
    assert 'then follow the steps below: the code changed too' in out and 'What to do' in out
    assert '__init__' not in out.split('defines')[1]  # a function of the scope, not any function


def test_a_renamed_file_with_a_renamed_function_names_both_edits(covered_repo, capsys):
    covered_repo.write('lib/.keep', '')
    covered_repo.git('mv', 'app/lease.py', 'lib/lease.py')
    covered_repo.write('lib/lease.py', RENAMED)
    covered_repo.add('lib/lease.py')
    code, out = guard(capsys)
    assert code == 2
    assert 'app/lease.py is renamed to lib/lease.py in this commit' in out
    assert (
        'change "path": "app/lease.py" to "path": "lib/lease.py" and "function": "claim_lease" '
        'to "function": "take_lease"'
    ) in out
    # The other entries moved with the file, unchanged: their edit is the path alone.
    assert 'it moved unchanged to lib/lease.py:18' in out


@pytest.mark.parametrize(
    'text',
    (
        pytest.param(
            LEASE_PY.replace(
                'def claim_lease(db, run_id, now):',
                'def zzz(db, run_id, now):\n    pass\n\n\ndef claim(db, run_id, now):',
            ),
            id='two-new-functions-the-closest-name',
        ),
    ),
)
def test_without_one_new_function_the_closest_name_is_named(covered_repo, capsys, text):
    covered_repo.write('app/lease.py', text)
    covered_repo.add('app/lease.py')
    code, out = guard(capsys)
    assert code == 2
    assert re.search(r'defines claim: renamed from claim_lease\?', out), out


def test_nothing_like_it_keeps_the_general_advice(covered_repo, capsys):
    covered_repo.write(
        'app/lease.py',
        LEASE_PY.replace(
            LEASE_PY[LEASE_PY.index('def claim_lease') : LEASE_PY.index('class LeaseStore')], ''
        ),
    )
    covered_repo.add('app/lease.py')
    code, out = guard(capsys)
    assert code == 2
    assert 'renamed from' not in out
    assert 'so it matches exactly once' in out


def test_a_file_of_thousands_of_functions_is_searched_in_bounded_work(
    covered_repo, capsys, monkeypatch
):
    """Each candidate compared costs a parse of the file: only a few are compared, counted (not
    timed: the same bound holds on a busy machine)."""
    from execlease_hook.coverage import rename_hint

    compared: list[str] = []
    real = rename_hint._named_back

    def counted(e, path, content, d, max_bytes):
        compared.append(d.qualname)
        return real(e, path, content, d, max_bytes)

    monkeypatch.setattr(rename_hint, '_named_back', counted)
    filler = ''.join(f'def filler_{i}(db, run_id, now):\n    return {i}\n\n\n' for i in range(3000))
    covered_repo.write('app/lease.py', RENAMED + '\n\n' + filler)
    covered_repo.git('add', 'app/lease.py')
    covered_repo.commit('fillers')  # the fillers are not new: take_lease is
    covered_repo.write(
        'app/lease.py', RENAMED.replace('take_lease', 'grab_lease') + '\n\n' + filler
    )
    covered_repo.add('app/lease.py')
    code, out = guard(capsys)
    assert code == 2
    assert 'defines grab_lease: renamed from claim_lease? (with the code it had at the sync)' in out
    assert 'grab_lease' in compared and len(compared) <= rename_hint.MAX_TRIES, compared
