"""The guard and a model's library folder: the modules the model reads from it are part of the
model record, so a staged edit of a shared operator blocks the commit naming it, a comment does
not, a module no model reads is no part of it, and a commit that stages no library module is
judged as before."""

from __future__ import annotations

import json

import pytest

from execlease_hook.cli import main as cli
from tests.conftest import MANIFEST, MODEL_DIR, GitRepo, sync_coverage

LIB = 'verification/lib'
OPS_TLA = """\
---- MODULE Ops ----
\\* The team's shared operators.
Next1(v) == v + 1
Same(v) == v
====
"""
SPEC_TLA = """\
---- MODULE Lease ----
EXTENDS Naturals, Ops
VARIABLE x
Init == x = 0
Claim == x' = Next1(x)
Renew == x' = Same(x)
BeginStep == x' = x
Next == Claim \\/ Renew \\/ BeginStep
====
"""


@pytest.fixture
def lib_repo(covered_repo: GitRepo) -> GitRepo:
    covered_repo.write(f'{LIB}/Ops.tla', OPS_TLA)
    covered_repo.write(f'{MODEL_DIR}/Lease.tla', SPEC_TLA)
    data = json.loads(covered_repo.read(MANIFEST))
    data = {
        'version': 1,
        'spec': data['spec'],
        'libraries': [{'folder': LIB}],
        **{k: v for k, v in data.items() if k not in ('version', 'spec')},
    }
    covered_repo.write(MANIFEST, json.dumps(data, indent=2) + '\n')
    covered_repo.add('.')
    covered_repo.commit('a library folder')
    sync_coverage(covered_repo.path)
    covered_repo.add(MANIFEST)
    covered_repo.commit('sync')
    return covered_repo


def guard(capsys, *args: str) -> tuple[int, str]:
    code = cli.main(['guard', *args])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_the_model_record_holds_the_library_modules(lib_repo):
    record = json.loads(lib_repo.read(MANIFEST))['coverage']['modelHash']
    assert sorted(record['files']) == ['Lease.cfg', 'Lease.tla', f'{LIB}/Ops.tla']
    assert sorted(record['files'][f'{LIB}/Ops.tla']) == ['Next1', 'Same']


@pytest.mark.parametrize(
    ('rel', 'text', 'named'),
    (
        (
            f'{LIB}/Ops.tla',
            OPS_TLA.replace('Next1(v) == v + 1', 'Next1(v) == v + 2'),
            f'definition Next1 changed ({LIB}/Ops.tla:3) since the sync',
        ),
        (
            f'{LIB}/Ops.tla',
            OPS_TLA.replace('====', 'Twice(v) == v + v\n===='),
            f'definition Twice added ({LIB}/Ops.tla:5) since the sync',
        ),
        (
            f'{MODEL_DIR}/Lease.tla',
            SPEC_TLA.replace('Naturals, Ops', 'Naturals, Ops, More'),
            f'library module {LIB}/More.tla is new to the model since the sync (EXTENDS in Lease.tla:2, '
            f'library folder {LIB})',
        ),
    ),
    ids=('changed', 'added', 'newly-read-module'),
)
def test_a_staged_library_edit_blocks_naming_it(lib_repo, capsys, rel, text, named):
    lib_repo.write(f'{LIB}/More.tla', '---- MODULE More ----\nZero == 0\n====\n')
    lib_repo.write(rel, text)
    lib_repo.add(rel, f'{LIB}/More.tla')
    code, out = guard(capsys, rel)
    assert code == 1, out
    assert f'model {MODEL_DIR}: the spec or a config changed since the last verified sync\n' in out
    assert f'\n  {named}\n' in out


def test_a_deleted_library_module_blocks(lib_repo, capsys):
    lib_repo.git('rm', '-q', f'{LIB}/Ops.tla')
    code, out = guard(capsys)
    assert code == 1, out
    assert f'library module {LIB}/Ops.tla is no longer part of the model since the sync' in out


@pytest.mark.parametrize(
    ('rel', 'text'),
    (
        (f'{LIB}/Ops.tla', OPS_TLA.replace('shared operators.', 'shared operators, reviewed.')),
        (
            f'{LIB}/notes/Old.tla',
            '---- MODULE Old ----\n====\n',
        ),  # below the folder: TLC does not read it
        (f'{LIB}/README.md', 'our operators\n'),
        (f'{LIB}/More.tla', '---- MODULE More ----\nZero == 0\n====\n'),  # no module reads it
    ),
    ids=('comment', 'subfolder', 'not-a-module', 'unread-module'),
)
def test_what_is_not_a_model_change_passes(lib_repo, capsys, rel, text):
    lib_repo.write(rel, text)
    lib_repo.add(rel)
    code, out = guard(capsys, '--verbose', rel)
    assert code == 0, out


def test_a_pushed_commit_with_a_library_edit_is_blocked(lib_repo, capsys):
    base = lib_repo.head()
    lib_repo.write(f'{LIB}/Ops.tla', OPS_TLA.replace('Same(v) == v', 'Same(v) == v + 0'))
    lib_repo.add(f'{LIB}/Ops.tla')
    lib_repo.commit('edit the shared operator')
    code, out = guard(capsys, '--range', f'{base}..HEAD')
    assert code == 1, out
    assert f'definition Same changed ({LIB}/Ops.tla:4) since the sync' in out
