from __future__ import annotations

import json

import pytest

from execlease_hook.cli import main as cli
from tests.conftest import LEASE_PY, MANIFEST, MODEL_DIR, NOTES, NOTES_MD

BODY_EDIT = LEASE_PY.replace('return cur.rowcount == 1', 'return cur.rowcount >= 1')


def run_coverage(capsys, *args: str) -> tuple[int, str]:
    code = cli.main(['coverage', *args])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def entry_line(out: str, entry_id: str) -> list[str]:
    return next(
        line.split() for line in out.splitlines() if line.strip().startswith(entry_id + ' ')
    )


def test_lists_every_entry_unchanged(covered_repo, capsys):
    code, out = run_coverage(capsys)
    assert code == 0
    assert out.splitlines()[0] == f'{MANIFEST}  (3 entries; model unchanged)'
    hashes = {
        e['id']: e['hash'] for e in json.loads(covered_repo.read(MANIFEST))['coverage']['entries']
    }
    assert entry_line(out, 'claim-lease') == [
        'claim-lease',
        'app/lease.py:4',
        'Claim',
        'unchanged',
        hashes['claim-lease'],
    ]
    assert entry_line(out, 'renew') == [
        'renew',
        'app/lease.py:18',
        'Renew',
        'unchanged',
        hashes['renew'],
    ]
    assert entry_line(out, 'replay-decision')[:4] == [
        'replay-decision',
        'app/lease.py:26',
        'BeginStep',
        'unchanged',
    ]


@pytest.mark.parametrize(
    ('rel', 'text', 'code', 'entry', 'status'),
    (
        pytest.param('app/lease.py', BODY_EDIT, 1, 'claim-lease', ['changed'], id='changed'),
        pytest.param(
            'app/lease.py',
            LEASE_PY.replace('def renew', 'def extend'),
            2,
            'renew',
            ['missing'],
            id='missing',
        ),
        pytest.param(
            'app/lease.py',
            LEASE_PY + '\ndef claim_lease():\n    pass\n',
            2,
            'claim-lease',
            ['ambiguous'],
            id='ambiguous',
        ),
        pytest.param(
            MANIFEST,
            json.dumps(
                {
                    'version': 1,
                    'spec': 'Lease.tla',
                    'checks': [{'name': 'main', 'config': 'Lease.cfg'}],
                    'coverage': {
                        'entries': [
                            {
                                'id': 'claim-lease',
                                'path': 'app/lease.py',
                                'function': 'claim_lease',
                                'action': 'Claim',
                            }
                        ]
                    },
                }
            ),
            1,
            'claim-lease',
            ['never', 'synced'],
            id='never-synced',
        ),
    ),
)
def test_statuses_and_exit_codes(covered_repo, capsys, rel, text, code, entry, status):
    covered_repo.write(rel, text)
    got, out = run_coverage(capsys)
    assert got == code
    fields = entry_line(out, entry)
    assert fields[3 : 3 + len(status)] == status


def test_missing_shows_the_problem(covered_repo, capsys):
    covered_repo.write('app/lease.py', LEASE_PY.replace('def renew', 'def extend'))
    out = run_coverage(capsys)[1]
    assert "'LeaseStore.renew' not found" in out


def test_model_change_exits_1(covered_repo, capsys):
    covered_repo.write(f'{MODEL_DIR}/Lease.cfg', 'INIT Init\nNEXT Next\nINVARIANT I\n')
    code, out = run_coverage(capsys)
    assert code == 1
    assert 'model changed since the sync' in out
    report = covered_repo.path.parent / 'report.json'
    assert run_coverage(capsys, '--format', 'json', '--output', str(report))[0] == 1
    data = json.loads(report.read_text())
    assert [m['exit_code'] for m in data['models']] == [1]
    assert [i['outcome'] for i in data['items'] if i['kind'] == 'model'] == ['did not hold']


def test_working_tree_not_index(covered_repo, capsys):
    covered_repo.write('app/lease.py', BODY_EDIT)
    covered_repo.add('app/lease.py')
    covered_repo.write('app/lease.py', LEASE_PY)
    assert run_coverage(capsys)[0] == 0


def test_write_map_generates_the_table(covered_repo, capsys):
    covered_repo.write(NOTES, NOTES_MD)
    code, out = run_coverage(capsys, '--write-map')
    assert code == 0
    assert f'{NOTES}: code-to-action table rewritten' in out
    text = covered_repo.read(NOTES)
    assert '| `Claim` | `claim-lease` | [app/lease.py:4](../../app/lease.py#L4) |' in text
    assert '| `Renew` | `renew` | [app/lease.py:18](../../app/lease.py#L18) |' in text
    assert '| `BeginStep` | `replay-decision` | [app/lease.py:26](../../app/lease.py#L26) |' in text
    assert text.startswith('# Lease model notes\n') and text.endswith('## Outside the model\n')
    assert run_coverage(capsys, '--write-map')[1].endswith('code-to-action table already current\n')


def test_write_map_follows_moved_lines(covered_repo, capsys):
    covered_repo.write('app/lease.py', '"""Leases."""\n' + LEASE_PY)
    assert run_coverage(capsys, '--write-map')[0] == 0
    assert '[app/lease.py:5](../../app/lease.py#L5)' in covered_repo.read(NOTES)


@pytest.mark.parametrize(
    ('notes', 'message'),
    (
        pytest.param(
            '# notes without markers\n',
            'no code-to-action markers; add the two lines',
            id='no-markers',
        ),
        pytest.param(None, 'no NOTES.md in the model folder', id='no-notes'),
        pytest.param(
            NOTES_MD.encode() + b'caf\xe9\n',
            'NOTES.md: not UTF-8 (first bad byte on line 9)',
            id='not-utf8',
        ),
    ),
)
def test_write_map_cannot_run(covered_repo, capsys, notes, message):
    if notes is None:
        (covered_repo.path / NOTES).unlink()
    else:
        covered_repo.write(NOTES, notes)
    code, out = run_coverage(capsys, '--write-map')
    assert code == 2
    assert message in out


def test_write_map_refuses_with_unlocated_entries(covered_repo, capsys):
    before = covered_repo.read(NOTES)
    covered_repo.write('app/lease.py', LEASE_PY.replace('def renew', 'def extend'))
    code, out = run_coverage(capsys, '--write-map')
    assert code == 2
    assert 'not written: renew cannot be located' in out
    assert covered_repo.read(NOTES) == before


def test_no_model_found(git_repo, capsys):
    code, out = run_coverage(capsys)
    assert code == 2
    assert 'no model found' in out


@pytest.mark.parametrize(
    ('entries', 'first_line', 'code'),
    (
        # No entry yet: no action needs code; from the first entry on, each action without one is a gap.
        pytest.param([], f'{MANIFEST}  (0 entries; model unchanged)', 0, id='empty'),
        pytest.param(
            [
                {
                    'id': 'claim-lease',
                    'path': 'app/lease.py',
                    'function': 'claim_lease',
                    'action': 'Claim',
                }
            ],
            f'{MANIFEST}  (1 entry; model unchanged)',
            1,
            id='one-never-synced',
        ),
        pytest.param(
            [{'id': 'x', 'path': 'no/such/file.py', 'function': 'f', 'action': 'A'}],
            f'{MANIFEST}  (1 entry; model unchanged)',
            2,
            id='path-does-not-exist',
        ),
    ),
)
def test_entry_count_and_small_manifests(covered_repo, capsys, entries, first_line, code):
    data = json.loads(covered_repo.read(MANIFEST))
    data['coverage']['entries'] = entries
    covered_repo.write(MANIFEST, json.dumps(data))
    got, out = run_coverage(capsys)
    assert (got, out.splitlines()[0]) == (code, first_line)
    if code == 2:
        assert 'no/such/file.py: no such file in the working tree' in out
        assert "coverage.entries[0] (x): action 'A' is not defined in Lease.tla" in out
    if not entries:
        assert 'has no covered code' not in out
        assert (
            '  action map: no action needs covered code until coverage.entries has its first entry'
            in out
        )
    else:
        assert '  action map: every action must be covered or declared abstract' in out
    if len(entries) == 1 and code == 1:
        assert 'action Renew (Lease.tla:6) has no covered code and is not declared abstract' in out


def test_listing_fits_80_columns_without_columns_set(covered_repo):
    """In a pipe (80 columns) the hash column goes and a deep path keeps its file and line."""
    import subprocess
    import sys

    from tests.conftest import git_env

    deep = 'app/a/very/deeply/nested/package/for/the/lease/store/lease.py'
    (covered_repo.path / deep).parent.mkdir(parents=True)
    covered_repo.git('mv', 'app/lease.py', deep)
    data = json.loads(covered_repo.read(MANIFEST))
    for e in data['coverage']['entries']:
        e['path'] = deep
    covered_repo.write(MANIFEST, json.dumps(data, indent=2) + '\n')
    env = {k: v for k, v in git_env().items() if k != 'COLUMNS'}

    def run(extra: dict[str, str]) -> list[str]:
        proc = subprocess.run(
            (sys.executable, '-m', 'execlease_hook', 'coverage'),
            cwd=covered_repo.path,
            env={**env, **extra},
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stdout + proc.stderr
        return proc.stdout.splitlines()

    narrow = run({})
    assert max(map(len, narrow)) <= 80
    claim = next(line for line in narrow if line.startswith('  claim-lease '))
    assert claim.split()[2:] == ['Claim', 'unchanged']
    assert claim.split()[1].startswith('...') and claim.split()[1].endswith('/lease.py:4')
    assert 'ts2:sha256:' not in '\n'.join(narrow)
    wide = run({'COLUMNS': '200'})
    assert f'{deep}:4' in '\n'.join(wide) and 'ts2:sha256:' in '\n'.join(wide)


@pytest.mark.parametrize(
    ('change', 'rule'),
    (
        pytest.param(lambda data: None, 'every-action', id='entries'),
        pytest.param(
            lambda data: data['coverage'].update(entries=[]), 'no-entry-yet', id='no-entry'
        ),
        pytest.param(lambda data: data.pop('coverage'), 'no-coverage', id='no-coverage'),
    ),
)
def test_the_report_names_the_action_map_rule(covered_repo, capsys, change, rule):
    data = json.loads(covered_repo.read(MANIFEST))
    change(data)
    covered_repo.write(MANIFEST, json.dumps(data))
    run_coverage(
        capsys, '--format', 'json', '--output', str(covered_repo.path.parent / 'report.json')
    )
    (model,) = json.loads((covered_repo.path.parent / 'report.json').read_text())['models']
    assert model['actionMap'] == rule
