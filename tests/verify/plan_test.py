"""verify/plan.py: a model's jobs as planned, before anything runs; a mutation edits the module
it names, and each way it cannot run is its job's problem, not the run's. verify --shard K/N and
--only, and `execlease report merge`: a sharded run merges to the same verdict as an unsharded
one (real TLC)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from execlease_hook.cli import main as cli
from execlease_hook.commands.report import merge
from execlease_hook.core.errors import CannotRun
from execlease_hook.core.settings import from_environ
from execlease_hook.manifest import model as manifest_model
from execlease_hook.manifest import read as manifest_read
from execlease_hook.tlc import jar
from execlease_hook.tlc.java import find_java
from execlease_hook.verify import plan
from tests.conftest import GitRepo
from tests.formats.report_test import run, validate_report
from tests.verify.suite_test import (
    CAUGHT,
    F1,
    F2,
    MAIN,
    NOT_CAUGHT,
    WRONG,
    shared_results,
    write_model,
)

FIXTURES = Path(__file__).parents[1] / 'fixtures' / 'tlc'
UNBOUNDED = {'from': 'x < N /\\', 'to': 'TRUE /\\'}
BAD = {'name': 'bad', 'config': 'invariant.cfg'}


@pytest.mark.tlc  # the tools: the jar's TLC version prepares each cfg, a probe names the Java
def test_each_mutation_is_planned_edited_or_with_its_problem(tmp_path, monkeypatch):
    monkeypatch.setenv('EXECLEASE_TLA_OFFLINE', '1')
    for name in ('Counter.tla', 'CounterLib.tla', 'pass.cfg'):
        shutil.copyfile(FIXTURES / name, tmp_path / name)
    mutations = [
        {'name': 'spec', 'config': 'pass.cfg', 'violates': 'TypeOK', 'replace': UNBOUNDED},
        {
            'name': 'lib',
            'module': 'CounterLib.tla',
            'config': 'pass.cfg',
            'violates': 'TypeOK',
            'replace': {'from': 'n \\div 2', 'to': 'n'},
        },
        {
            'name': 'elsewhere',
            'module': 'Elsewhere.tla',
            'config': 'pass.cfg',
            'violates': 'TypeOK',
            'replace': UNBOUNDED,
        },
        {
            'name': 'absent',
            'config': 'pass.cfg',
            'violates': 'TypeOK',
            'replace': {'from': 'no such text', 'to': 'x'},
        },
        {
            'name': 'exits',
            'config': 'pass.cfg',
            'violates': 'TypeOK',
            'replace': {'from': 'x < N /\\', 'to': 'TLCSet("exit", TRUE) /\\'},
        },
    ]
    (tmp_path / 'manifest.json').write_text(
        json.dumps(
            {
                'version': 1,
                'spec': 'Counter.tla',
                'checks': [{'name': 'main', 'config': 'pass.cfg'}],
                'mutations': mutations,
                'coverage': {'syncCommit': None, 'modelHash': None, 'entries': []},
            }
        )
    )
    m = manifest_read.load(tmp_path / 'manifest.json', tmp_path)
    settings = from_environ()
    t = jar.Tools(jar.resolve_jar(tmp_path, settings), find_java(settings), settings)
    check, spec, lib, elsewhere, absent, exits = plan.plan(m, False, t)
    counter, counter_lib = (FIXTURES / n for n in ('Counter.tla', 'CounterLib.tla'))
    assert check.problem is None and check.job.spec_text == counter.read_bytes()
    assert spec.problem is None and b'Inc == TRUE /\\ x' in spec.job.spec_text
    assert spec.job.modules == check.job.modules
    assert lib.problem is None and lib.job.spec_text == counter.read_bytes()
    assert dict(lib.job.modules)['CounterLib.tla'] == counter_lib.read_bytes().replace(
        b'n \\div 2', b'n'
    )
    assert elsewhere.problem == (
        'mutation elsewhere: module Elsewhere.tla is not beside Counter.tla in .; '
        'name in "module" a module of the model folder that the root module reads'
    )
    assert absent.problem is not None and absent.problem.startswith('mutation absent: replace.from')
    assert exits.problem is not None and exits.problem.startswith('mutation exits: ')
    assert 'TLCSet' in exits.problem
    assert all(p.job.kind == 'mutation' for p in (spec, lib, elsewhere, absent, exits))


def job(kind, name, config):
    return SimpleNamespace(kind=kind, name=name, config=config)


@pytest.mark.parametrize(
    ('states', 'count', 'expected'),
    (
        ({'main': 100, 'big': 1000}, 2, [0, 0, 1, 1]),
        ({'main': 100, 'big': 1000}, 1, [0, 0, 0, 0]),
        ({}, 3, [1, 0, 2, 0]),
    ),
    ids=('balanced', 'one-shard', 'no-states-round-robin'),
)
def test_assign_is_deterministic_and_balanced(tmp_path, states, count, expected):
    m = manifest_model.Manifest(
        path=tmp_path / 'manifest.json',
        root=tmp_path,
        spec='S.tla',
        checks=(
            manifest_model.Check('main', 'main.cfg', states.get('main')),
            manifest_model.Check('big', 'big.cfg', states.get('big')),
        ),
    )
    jobs = [
        job('check', 'main', 'main.cfg'),
        job('check', 'big', 'big.cfg'),
        job('mutation', 'm', 'main.cfg'),
        job('mutation', 'n', 'big.cfg'),
    ]
    assert plan.assign(m, jobs, count) == expected
    assert plan.assign(m, list(reversed(jobs)), count) == list(reversed(expected))


@pytest.mark.parametrize('text', ('0/2', '3/2', '1', 'a/b', '1/0'))
def test_bad_shard_exits_2(text):
    with pytest.raises(CannotRun, match='give K/N'):
        plan.parse_shard(text)


@pytest.fixture(scope='module')
def model(tmp_path_factory) -> GitRepo:
    from tests import needs

    needs.java()
    needs.tla_jar()
    repo = GitRepo(tmp_path_factory.mktemp('shards') / 'repo')
    repo.path.mkdir()
    repo.git('init', '-q', '-b', 'main')
    write_model(repo, checks=(MAIN, BAD), mutations=(CAUGHT, NOT_CAUGHT, WRONG), findings=(F1, F2))
    repo.add('.')
    repo.commit('model')
    shared_results(tmp_path_factory, repo)  # what these tests read is how verdicts merge
    return repo


def verdict(data):
    (m,) = data['models']
    return (
        data['exit_code'],
        data['result'],
        [(j['kind'], j['name'], j['outcome'], j['message']) for j in m['jobs']],
        sorted(m['did_not_hold']),
        sorted(m['could_not_run']),
        [(e['id'], e['status']) for e in m['coverage']],
        [(i['kind'], i['name'], i['outcome'], i['rule']) for i in data['items']],
    )


# The runs take the session's tools jar and JVM cache from `offline_tlc` (in their environment):
# in a repository of their own they would compile the warm-JVM helper and dump an archive again.
@pytest.mark.usefixtures('offline_tlc')
@pytest.mark.parametrize('count', (2, 3))
def test_sharded_merges_to_the_unsharded_verdict(model, tmp_path, count):
    whole = tmp_path / 'whole.json'
    assert run(model.path, 'verify', '--json', str(whole)).returncode == 1
    parts = []
    seen: list[str] = []
    for k in range(1, count + 1):
        part = tmp_path / f'shard-{k}.json'
        proc = run(model.path, 'verify', '--shard', f'{k}/{count}', '--json', str(part))
        assert proc.returncode in (0, 1), proc.stdout + proc.stderr
        data = json.loads(part.read_text())
        validate_report(data)
        names = [j['name'] for j in data['models'][0]['jobs']]
        assert names and not set(names) & set(seen)  # every job in exactly one shard
        seen += names
        assert bool(data['models'][0]['coverage']) is (k == 1)
        parts.append(str(part))
    merged = tmp_path / 'merged.json'
    proc = run(model.path, 'report', 'merge', *parts, '--format', 'json', '--output', str(merged))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert 'FAILED (did not hold)' in proc.stdout
    data = json.loads(merged.read_text())
    validate_report(data)
    assert verdict(data) == verdict(json.loads(whole.read_text()))
    # -q: only what did not hold or could not run, and the verdict.
    quiet = run(model.path, 'report', 'merge', *parts, '-q')
    assert quiet.returncode == 1
    lines = quiet.stdout.splitlines()
    assert lines[-1] == 'FAILED (did not hold)' and len(lines) < len(proc.stdout.splitlines())
    assert all(line.startswith(('DID NOT HOLD', ' ')) for line in lines[:-1]), lines


@pytest.mark.usefixtures('offline_tlc')
def test_only_runs_the_named_jobs(model, tmp_path):
    out = tmp_path / 'only.json'
    proc = run(model.path, 'verify', '--only', 'caught', 'F1', '--json', str(out))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert '(--only: the named jobs only, no coverage check)' in proc.stdout
    (m,) = json.loads(out.read_text())['models']
    assert [(j['kind'], j['name']) for j in m['jobs']] == [
        ('mutation', 'caught'),
        ('finding', 'F1'),
    ]
    proc = run(model.path, 'verify', '--only', 'nope')
    assert proc.returncode == 2 and '--only nope: no such job' in proc.stderr


@pytest.mark.usefixtures('offline_tlc')
def test_merge_refuses_what_is_not_one_run(model, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(model.path)
    parts = []
    for k in (1, 2):
        part = tmp_path / f's{k}.json'
        assert run(model.path, 'verify', '--shard', f'{k}/2', '--json', str(part)).returncode in (
            0,
            1,
        )
        parts.append(part)
    data = [json.loads(p.read_text()) for p in parts]
    assert cli.main(['report', 'merge', str(parts[0])]) == 2
    assert 'shard 2/2 missing' in capsys.readouterr().err
    assert cli.main(['report', 'merge', str(parts[0]), str(parts[0])]) == 2
    assert 'are both shard 1/2' in capsys.readouterr().err
    other = dict(data[1], commit='f' * 40)
    with pytest.raises(CannotRun, match='differ in the commit verified'):
        merge([('a', data[0]), ('b', other)])
    unfinished = {
        'schemaVersion': 1,
        'command': 'verify',
        'commit': None,
        'exit_code': 2,
        'error': 'the run did not finish',
        'models': [],
        'items': [],
    }
    assert merge([('a', data[0]), ('b', unfinished)]).exit_code == 2
    assert cli.main(['verify', '--shard', '1/2', '--update-coverage']) == 2
    assert 'drop --shard and --only' in capsys.readouterr().err
