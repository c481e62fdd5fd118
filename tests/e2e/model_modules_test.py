"""A model made of several modules, through the real pre-commit and the real CLI: every module
the spec EXTENDS or INSTANCEs (with and without WITH, through a chain, from a library folder two
models share) is in the model record, so a semantic edit of any of them blocks the commit naming
the module, the definition and its line; a comment or layout edit passes, and so does an edit of
a module no model reads. A record an older execlease wrote (spec and cfgs only) is told once and
asks for one verified sync, with --reason when covered code moved and no model file did."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import LEASE_PY, GitRepo, sync_coverage
from tests.e2e.guard_test import hook_config, installed_copy, run

LOCK = 'verification/lock'
OTHER = 'verification/other'
LIB = 'verification/lib'
LOCK_TLA = """\
---- MODULE Lock ----
EXTENDS Naturals, LockLib, Shared
VARIABLE x
Core == INSTANCE LockCore
W == INSTANCE LockWith WITH y <- x
Init == x = 0
Claim == x < Limit /\\ x' = x + 1
Renew == Core!Keep(x) /\\ W!Same
BeginStep == x' = Bump(x) - 1
Next == Claim \\/ Renew \\/ BeginStep
Inv == x <= 2
====
"""
MODULES = {
    f'{LOCK}/LockLib.tla': '---- MODULE LockLib ----\nEXTENDS Naturals, LockBase\n\\* the bound\nLimit == Base + 2\n====\n',
    f'{LOCK}/LockBase.tla': '---- MODULE LockBase ----\nBase == 0\n====\n',
    f'{LOCK}/LockCore.tla': '---- MODULE LockCore ----\nEXTENDS Naturals\nKeep(v) == v >= 0\n====\n',
    f'{LOCK}/LockWith.tla': "---- MODULE LockWith ----\nVARIABLE y\nSame == y' = y\n====\n",
    f'{LOCK}/Draft.tla': '---- MODULE Draft ----\nIdea == 1\n====\n',
    f'{LIB}/Shared.tla': '---- MODULE Shared ----\nEXTENDS Naturals\nBump(v) == v + 1\n====\n',
    f'{LIB}/Unused.tla': '---- MODULE Unused ----\nNothing == 0\n====\n',
    f'{OTHER}/Other.tla': (
        '---- MODULE Other ----\nEXTENDS Shared\nVARIABLE z\nInit == z = 0\n'
        "Step == z < 2 /\\ z' = Bump(z)\nNext == Step\n====\n"
    ),
}
CFG = 'INIT Init\nNEXT Next\nINVARIANT Inv\n'
ENTRIES = [
    {'id': 'claim', 'path': 'app/lease.py', 'function': 'claim_lease', 'action': 'Claim'},
    {'id': 'renew', 'path': 'app/lease.py', 'function': 'LeaseStore.renew', 'action': 'Renew'},
    {'id': 'begin', 'path': 'app/lease.py', 'function': 'begin_step', 'action': 'BeginStep'},
]


def manifest(spec: str, cfg: str, entries: list[dict[str, str]]) -> str:
    return (
        json.dumps(
            {
                'version': 1,
                'spec': spec,
                'checks': [{'name': 'main', 'config': cfg}],
                'libraries': [{'folder': LIB}],
                'coverage': {'syncCommit': None, 'modelHash': None, 'entries': entries},
            },
            indent=2,
        )
        + '\n'
    )


def build(repo: GitRepo) -> None:
    repo.write('app/lease.py', LEASE_PY)
    repo.write('app/other.py', 'def unrelated():\n    return 1\n')
    repo.write(f'{LOCK}/Lock.tla', LOCK_TLA)
    repo.write(f'{LOCK}/Lock.cfg', CFG)
    repo.write(f'{OTHER}/Other.cfg', 'INIT Init\nNEXT Next\n')
    for rel, text in MODULES.items():
        repo.write(rel, text)
    repo.write(f'{LOCK}/manifest.json', manifest('Lock.tla', 'Lock.cfg', ENTRIES))
    repo.write(
        f'{OTHER}/manifest.json',
        manifest(
            'Other.tla',
            'Other.cfg',
            [{'id': 'other', 'path': 'app/other.py', 'function': 'unrelated', 'action': 'Step'}],
        ),
    )
    repo.add('.')
    repo.commit('two models over modules')
    sync_coverage(repo.path, f'{LOCK}/manifest.json')
    sync_coverage(repo.path, f'{OTHER}/manifest.json')
    repo.add('.')
    repo.commit('sync')


@pytest.fixture
def consumer(
    git_repo: GitRepo,
    hook_repo: tuple[Path, str],
    pre_commit_home: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> GitRepo:
    """The two models, synced and committed, with the guard's hook installed: a copy of the
    repository built for the test run (guard_test.installed_copy)."""

    def make(repo: GitRepo) -> None:
        build(repo)
        repo.write('.pre-commit-config.yaml', hook_config(hook_repo))
        repo.add('.pre-commit-config.yaml')
        repo.commit('use the execlease hook')
        code, out = run(repo, pre_commit_home, sys.executable, '-m', 'pre_commit', 'install')
        assert code == 0, out

    installed_copy(tmp_path_factory, 'model-modules-consumer', make, git_repo)
    return git_repo


def commit(repo: GitRepo, home: Path, rel: str, text: str) -> tuple[int, str]:
    repo.write(rel, text)
    repo.add(rel)
    return run(repo, home, 'git', 'commit', '-m', f'edit {rel}')


@pytest.mark.timeout(900)
@pytest.mark.parametrize(
    ('rel', 'old', 'new', 'named'),
    (
        (f'{LOCK}/LockLib.tla', 'Base + 2', 'Base + 5', 'definition Limit changed (LockLib.tla:4)'),
        (
            f'{LOCK}/LockBase.tla',
            'Base == 0',
            'Base == 3',
            'definition Base changed (LockBase.tla:2)',
        ),
        (f'{LOCK}/LockCore.tla', 'v >= 0', 'v > 0', 'definition Keep changed (LockCore.tla:3)'),
        (
            f'{LOCK}/LockWith.tla',
            "y' = y",
            "y' = y + 1",
            'definition Same changed (LockWith.tla:3)',
        ),
        (f'{LIB}/Shared.tla', 'v + 1', 'v + 2', f'definition Bump changed ({LIB}/Shared.tla:3)'),
    ),
    ids=('extends', 'chain-of-two', 'instance', 'instance-with', 'library-shared'),
)
def test_a_semantic_edit_of_a_read_module_blocks_naming_it(
    consumer, pre_commit_home, rel, old, new, named
):
    code, out = commit(consumer, pre_commit_home, rel, MODULES[rel].replace(old, new))
    assert code == 1, out
    assert f'{named} since the sync' in out
    assert f'execlease guard: {LOCK}/manifest.json: the commit is blocked' in out
    shared = rel.startswith(LIB)  # both models read the library module: both are blocked
    assert (f'execlease guard: {OTHER}/manifest.json: the commit is blocked' in out) == shared
    assert consumer.git('diff', '--cached', '--name-only').strip() == rel  # nothing committed


@pytest.mark.timeout(900)
@pytest.mark.parametrize(
    ('rel', 'text'),
    (
        (
            f'{LOCK}/LockLib.tla',
            MODULES[f'{LOCK}/LockLib.tla'].replace('the bound', 'the bound, reviewed'),
        ),
        (
            f'{LOCK}/LockCore.tla',
            MODULES[f'{LOCK}/LockCore.tla'].replace('Keep(v) == ', 'Keep(v) ==\n    '),
        ),
        (f'{LOCK}/Draft.tla', '---- MODULE Draft ----\nIdea == 2\n====\n'),
        (f'{LOCK}/Sketch.tla', '---- MODULE Sketch ----\nNew == 2\n====\n'),
        (f'{LIB}/Unused.tla', '---- MODULE Unused ----\nNothing == 1\n====\n'),
    ),
    ids=('comment', 'layout', 'unread-draft', 'new-unread-module', 'unread-library-module'),
)
def test_what_changes_no_read_module_passes(consumer, pre_commit_home, rel, text):
    code, out = commit(consumer, pre_commit_home, rel, text)
    assert code == 0, out
    assert consumer.git('log', '-1', '--format=%s').strip() == f'edit {rel}'


@pytest.mark.timeout(900)
def test_a_module_newly_read_blocks_as_a_model_change(consumer, pre_commit_home):
    consumer.write(f'{LOCK}/Sketch.tla', '---- MODULE Sketch ----\nNew == 2\n====\n')
    consumer.add(f'{LOCK}/Sketch.tla')
    code, out = commit(
        consumer,
        pre_commit_home,
        f'{LOCK}/Lock.tla',
        LOCK_TLA.replace('LockLib, Shared', 'LockLib, Shared, Sketch'),
    )
    assert code == 1, out
    assert 'EXTENDS changed (Lock.tla:2) since the sync' in out
    assert 'module Sketch.tla is new to the model since the sync (EXTENDS in Lock.tla:2)' in out
    assert 'older execlease' not in out


def older_record(repo: GitRepo) -> None:
    """The manifest as execlease wrote it before it recorded the modules the spec reads: the spec,
    the cfg and every module of the library folder."""
    rel = f'{LOCK}/manifest.json'
    data = json.loads(repo.read(rel))
    files = data['coverage']['modelHash']['files']
    for key in [k for k in files if k not in ('Lock.tla', 'Lock.cfg') and not k.startswith(LIB)]:
        del files[key]
    files[f'{LIB}/Unused.tla'] = {'Nothing': '0' * 64}
    repo.write(rel, json.dumps(data, indent=2) + '\n')
    repo.add(rel)
    repo.commit('a manifest synced by an older execlease')


@pytest.mark.timeout(900)
def test_an_older_record_is_told_once_and_asks_for_one_sync(consumer, pre_commit_home, offline_tlc):
    older_record(consumer)
    rel = f'{LOCK}/LockLib.tla'
    code, out = commit(
        consumer, pre_commit_home, rel, MODULES[rel].replace('the bound', 'the limit')
    )
    assert code == 1, out
    assert f'model {LOCK}: the model record does not hold every module the model reads' in out
    for key, via in (
        ('LockLib.tla', 'EXTENDS in Lock.tla:2'),
        ('LockBase.tla', 'EXTENDS in LockLib.tla:2'),
        ('LockCore.tla', 'INSTANCE in Lock.tla:4'),
        ('LockWith.tla', 'INSTANCE in Lock.tla:5'),
    ):
        assert f'module {key} ({via}) is read by the model but not in the record' in out
    assert (
        f'library module {LIB}/Unused.tla is in the record, which an older execlease wrote, '
        'but no module of the model reads it: the sync drops it' in out
    )
    assert 'changed since the last verified sync' not in out  # no change of the model is claimed
    assert out.count('the model record does not hold every module') == 1
    # No model file changed and neither did covered code: the sync needs no --reason.
    verify = (sys.executable, '-m', 'execlease_hook', 'verify', '--model', LOCK)
    code, out = run(consumer, pre_commit_home, *verify, '--update-coverage')
    assert code == 0, out
    files = json.loads(consumer.read(f'{LOCK}/manifest.json'))['coverage']['modelHash']['files']
    assert sorted(files) == [
        'Lock.cfg',
        'Lock.tla',
        'LockBase.tla',
        'LockCore.tla',
        'LockLib.tla',
        'LockWith.tla',
        f'{LIB}/Shared.tla',
    ]
    consumer.add(f'{LOCK}/manifest.json')
    code, out = run(consumer, pre_commit_home, 'git', 'commit', '-m', 'synced')
    assert code == 0, out
    code, out = commit(consumer, pre_commit_home, rel, MODULES[rel].replace('Base + 2', 'Base + 5'))
    assert code == 1 and 'definition Limit changed (LockLib.tla:4) since the sync' in out, out


@pytest.mark.timeout(900)
def test_an_older_record_with_moved_code_asks_for_a_reason(consumer, pre_commit_home, offline_tlc):
    older_record(consumer)
    consumer.write('app/lease.py', LEASE_PY.replace('if now < 0:', 'if now <= 0:'))
    verify = (
        sys.executable,
        '-m',
        'execlease_hook',
        'verify',
        '--model',
        LOCK,
        '--update-coverage',
    )
    code, out = run(consumer, pre_commit_home, *verify)
    assert code == 1, out
    assert 'but no definition of the model (spec, cfgs) did' in out
    code, out = run(consumer, pre_commit_home, *verify, '--reason', 'a stricter input check only')
    assert code == 0, out
    assert 'LockLib.tla (EXTENDS in Lock.tla:2) is read by the model but not in the record' in out


def test_coverage_lists_the_models_modules(consumer, capsys):
    from execlease_hook.cli import main as cli

    code = cli.main(['coverage', '-v', '--model', LOCK])
    out = capsys.readouterr().out
    assert code == 0, out
    assert (
        '  model modules:\n    Lock.tla (root module)\n    LockLib.tla (EXTENDS in Lock.tla:2)\n'
        f'    {LIB}/Shared.tla (EXTENDS in Lock.tla:2, library folder {LIB})\n'
        '    LockCore.tla (INSTANCE in Lock.tla:4)\n    LockWith.tla (INSTANCE in Lock.tla:5)\n'
        '    LockBase.tla (EXTENDS in LockLib.tla:2)\n' in out
    )
    assert 'Draft.tla' not in out and 'Unused.tla' not in out
    code = cli.main(['coverage', '--model', LOCK, '--format', 'json'])
    report = json.loads(capsys.readouterr().out)
    (model,) = report['models'] if 'models' in report else report['details']['models']
    assert [m['key'] for m in model['modules']] == [
        'Lock.tla',
        'LockLib.tla',
        f'{LIB}/Shared.tla',
        'LockCore.tla',
        'LockWith.tla',
        'LockBase.tla',
    ]
    assert model['modules'][5]['readBy'] == {
        'module': 'LockLib.tla',
        'line': 2,
        'keyword': 'EXTENDS',
    }
