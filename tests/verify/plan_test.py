"""verify/plan.py: a model's jobs as planned, before anything runs; a mutation edits the module
it names, and each way it cannot run is its job's problem, not the run's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from execlease_hook.core.settings import from_environ
from execlease_hook.manifest import read as manifest_read
from execlease_hook.tlc import jar
from execlease_hook.tlc.java import find_java
from execlease_hook.verify import plan

FIXTURES = Path(__file__).parents[1] / 'fixtures' / 'tlc'
UNBOUNDED = {'from': 'x < N /\\', 'to': 'TRUE /\\'}


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
