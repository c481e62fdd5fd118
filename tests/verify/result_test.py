"""One model's problem stays its own (verify/result.py), through `execlease verify` on the real
TLC: models laid out as a repository of several specs (each folder its spec, cfg and manifest)
where one model's spec runs a program and another's manifest is not JSON. Each refused model is
exit 2 named by its manifest; every other model runs, before and after it, and the JSON report
carries the tools, the Java and every model."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from execlease_hook.cli import main as cli
from execlease_hook.core.errors import CannotRun
from execlease_hook.verify import result
from execlease_hook.verify.result import Refused
from tests.conftest import GitRepo

SCHEMA = json.loads(
    (Path(__file__).parents[2] / 'execlease_hook' / 'schemas' / 'report.schema.json').read_text()
)
SPEC = """---- MODULE {name} ----
EXTENDS Naturals
CONSTANT N
VARIABLE x
Init == x = 0
Next == x < N /\\ {guard}x' = x + 1
Inv == x <= N
====
"""
RUNS_A_PROGRAM = 'IOExec(<<"touch", "pwned">>).exitValue = 0 /\\ '


def write_model(repo: GitRepo, name: str, guard: str = '', deep: bool = False) -> None:
    folder = f'verification/{name.lower()}'
    repo.write(f'{folder}/{name}.tla', SPEC.format(name=name, guard=guard))
    repo.write(
        f'{folder}/{name}.cfg',
        'CONSTANT N = 3\nINIT Init\nNEXT Next\nINVARIANT Inv\nCHECK_DEADLOCK FALSE\n',
    )
    check: dict[str, object] = {'name': 'main', 'config': f'{name}.cfg'}
    if deep:
        check['deep'] = {'constants': {'N': '5'}}
    repo.write(
        f'{folder}/manifest.json',
        json.dumps({'version': 1, 'spec': f'{name}.tla', 'checks': [check]}),
    )


@pytest.fixture
def specs(git_repo: GitRepo) -> GitRepo:
    git_repo.write('.gitignore', '.tmp/\n')
    write_model(git_repo, 'Alpha', deep=True)
    write_model(git_repo, 'Beta', RUNS_A_PROGRAM, deep=True)
    write_model(git_repo, 'Gamma', deep=True)
    git_repo.write('verification/delta/manifest.json', '{"version": 1, "spec": \n')
    git_repo.add('.')
    git_repo.commit('four models')
    return git_repo


BETA = (
    'verification/beta/manifest.json: not run: the model uses operators a spec under verification '
    'may not use: verification/beta/Beta.tla:6: IOExec (runs a program)'
)
DELTA = 'verification/delta/manifest.json: not run: verification/delta/manifest.json:2:1: not valid JSON'


@pytest.mark.usefixtures('offline_tlc')
@pytest.mark.parametrize('mode', ((), ('--deep',)), ids=('verify', 'deep'))
def test_a_refused_model_is_its_own_exit_2(specs, capsys, mode):
    report = specs.path.parent / 'report.json'
    code = cli.main(['verify', *mode, '--json', str(report)])
    out = capsys.readouterr().out
    assert code == 2, out
    data = json.loads(report.read_text())
    jsonschema.Draft7Validator(SCHEMA).validate(data)
    assert 'error' not in data and data['tools']['tlc_version'] and data['java']['major'] >= 11
    assert [(m['manifest'], m['exit_code'], m.get('refused', False)) for m in data['models']] == [
        ('verification/alpha/manifest.json', 0, False),
        ('verification/beta/manifest.json', 2, True),
        ('verification/delta/manifest.json', 2, True),
        ('verification/gamma/manifest.json', 0, False),
    ]
    alpha, beta, delta, gamma = data['models']
    assert [j['outcome'] for j in (*alpha['jobs'], *gamma['jobs'])] == ['held', 'held']
    assert beta['jobs'] == [] and beta['could_not_run'][0].startswith(BETA)
    assert delta['could_not_run'][0].startswith(DELTA)
    assert [i['model'] for i in data['items'] if i['rule'] == 'model-refused'] == [
        'verification/beta',
        'verification/delta',
    ]
    assert f'model verification/beta:\nCOULD NOT RUN: {BETA[:60]}' in out
    assert 'model verification/gamma:' in out and 'COULD NOT RUN (exit 2 is not a pass)' in out
    assert not (specs.path / 'pwned').exists()


def test_load_keeps_the_order_and_names_the_manifest(specs):
    loaded = result.load(specs.path, None)
    assert [m.path.parent.name for m in loaded] == ['alpha', 'beta', 'delta', 'gamma']
    assert isinstance(loaded[2], Refused) and loaded[2].message.startswith(DELTA)
    assert [isinstance(m, Refused) for m in loaded] == [False, False, True, False]


def test_each_refuses_one_model_and_keeps_the_others(specs):
    loaded = result.load(specs.path, None)

    def step(m):
        if m.spec == 'Beta.tla':
            raise CannotRun(f'{m.path}: refused for the test')
        return m.spec

    done = result.each(loaded, step)
    assert done[0] == 'Alpha.tla' and done[3] == 'Gamma.tla'
    assert isinstance(done[1], Refused)
    assert done[1].message == 'verification/beta/manifest.json: not run: refused for the test'
    assert done[2] is loaded[2]
