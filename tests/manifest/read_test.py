from __future__ import annotations

import copy
import dataclasses
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from execlease_hook.core.errors import CannotRun
from execlease_hook.manifest import model as manifest_model
from execlease_hook.manifest import read as manifest_read
from execlease_hook.manifest import write as manifest_write

HASH = 'ts1:sha256:' + 'a' * 64
GOOD: dict = {
    'version': 1,
    'spec': 'Spec.tla',
    'checks': [{'name': 'main', 'config': 'Spec.cfg'}],
    'mutations': [
        {
            'name': 'm1',
            'config': 'Spec.cfg',
            'replace': {'from': 'x < 3', 'to': 'x < 4'},
            'violates': 'Inv',
        }
    ],
    'findings': [{'id': 'F2', 'config': 'findings/F2.cfg', 'violates': 'P', 'summary': 's'}],
    'coverage': {
        'syncCommit': '0' * 40,
        'modelHash': 'sha256:' + 'b' * 64,
        'entries': [
            {
                'id': 'claim',
                'path': 'src/lease.py',
                'function': 'claim',
                'action': 'Claim',
                'hash': HASH,
            },
            {
                'id': 'replay',
                'path': 'src/steps.py',
                'within': 'begin_step',
                'region': {'from': '# a', 'to': '# b'},
                'action': 'BeginStep',
            },
        ],
    },
}


def write_manifest(tmp_path: Path, data: object) -> Path:
    folder = tmp_path / 'verification' / 'm'
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / 'manifest.json'
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def mutate(path: str, value: object) -> dict:
    """GOOD with the field at a dotted path set to value (or removed when value is DELETE)."""
    data = copy.deepcopy(GOOD)
    *parents, last = [int(p) if p.isdigit() else p for p in path.split('.')]
    node = data
    for p in parents:
        node = node[p]
    if value is DELETE:
        del node[last]
    else:
        node[last] = value
    return data


DELETE = object()


def test_load_good(tmp_path):
    m = manifest_read.load(write_manifest(tmp_path, GOOD), tmp_path)
    assert m.spec == 'Spec.tla'
    assert m.checks[0] == manifest_model.Check(name='main', config='Spec.cfg')
    assert m.mutations[0].replace == manifest_model.Replace(start='x < 3', to='x < 4')
    assert m.findings[0].id == 'F2'
    assert m.coverage.entries[0].hash == HASH
    assert m.coverage.entries[1].hash is None
    assert m.coverage.entries[1].region == manifest_model.Region('# a', '# b')
    assert m.coverage.entries[1].within == 'begin_step'
    assert m.model_files == ['Spec.cfg', 'Spec.tla', 'findings/F2.cfg']
    assert m.folder == tmp_path / 'verification' / 'm'


@pytest.mark.parametrize(
    ('field', 'value', 'expected'),
    (
        ('version', 2, 'version: unsupported version 2'),
        ('version', 1.0, 'version: unsupported version 1.0'),
        ('version', '1', "version: unsupported version '1'"),
        ('spec', DELETE, "$: missing key 'spec'"),
        ('extra', 1, "extra: unknown key 'extra'"),
        ('coverage.entries', 3, 'coverage.entries: expected an array'),
        ('checks.0.name', 3, 'checks[0].name: expected a string, got a number'),
        ('checks.0.colour', 'red', "checks[0].colour: unknown key 'colour'"),
        ('checks.0.states', -1, 'checks[0].states: expected a whole number'),
        ('checks.0.timeout', 0, 'checks[0].timeout: expected a number of seconds > 0'),
        (
            'checks.0.spec',
            'MC.cfg',
            "checks[0].spec: 'MC.cfg' is not a .tla module of the model folder",
        ),
        (
            'checks.0.spec',
            'sub/MC.tla',
            "checks[0].spec: 'sub/MC.tla' is not a .tla module of the model",
        ),
        ('checks.0.spec', '../MC.tla', 'checks[0].spec: '),
        ('checks.0.spec', 3, 'checks[0].spec: expected a string, got a number'),
        (
            'mutations.0.module',
            'lib/Lease.tla',
            "mutations[0].module: 'lib/Lease.tla' is not a .tla module",
        ),
        ('mutations.0.module', '', 'mutations[0].module: '),
        ('mutations.0.replace.from', '', 'mutations[0].replace.from: must not be empty'),
        ('mutations.0.replace.to', 'x < 3', 'mutations[0].replace: "from" and "to" are the same'),
        ('mutations.0.violates', DELETE, "mutations[0]: missing key 'violates'"),
        ('findings.0.config', '/etc/F2.cfg', "findings[0].config: '/etc/F2.cfg' is absolute"),
        ('coverage.syncCommit', 'HEAD', 'coverage.syncCommit: expected a 40-hex commit id'),
        (
            'coverage.modelHash',
            'md5:1',
            'coverage.modelHash: expected a record, "sha256:<64 hex>" or null',
        ),
        (
            'coverage.modelHash',
            {'scheme': 'tla9', 'files': {}},
            "coverage.modelHash.scheme: unknown scheme 'tla9'",
        ),
        ('coverage.modelHash', {'scheme': 'tla1'}, "coverage.modelHash: missing key 'files'"),
        (
            'coverage.modelHash',
            {'scheme': 'tla1', 'files': {'Spec.cfg': 'x'}},
            'coverage.modelHash.files.Spec.cfg: expected 64 hex digits',
        ),
        (
            'coverage.modelHash',
            {'scheme': 'tla1', 'files': {'Spec.tla': {'Next': 7}}},
            'coverage.modelHash.files.Spec.tla.Next: expected 64 hex digits',
        ),
        ('coverage.abstract', [{'action': 'Expire'}], "coverage.abstract[0]: missing key 'reason'"),
        (
            'coverage.abstract',
            [{'action': 'Expire', 'reason': ''}],
            'coverage.abstract[0].reason: must not be empty',
        ),
        (
            'coverage.abstract',
            [{'action': 'E', 'reason': 'r'}, {'action': 'E', 'reason': 's'}],
            "coverage.abstract[1].action: duplicate action 'E'",
        ),
        (
            'coverage.watch',
            [{'paths': ['src/**']}],
            'coverage.watch[0]: give exactly one of "strings"',
        ),
        (
            'coverage.watch',
            [{'paths': [], 'strings': 'x'}],
            'coverage.watch[0].paths: name at least one glob',
        ),
        (
            'coverage.watch',
            [{'paths': ['../x/**'], 'strings': 'x'}],
            "coverage.watch[0].paths[0]: '../x/**' leaves",
        ),
        (
            'coverage.watch',
            [{'paths': ['src/**'], 'strings': '(UPDATE'}],
            'coverage.watch[0].strings: not a regular expression',
        ),
        (
            'coverage.watch',
            [{'paths': ['src/**'], 'calls': []}],
            'coverage.watch[0].calls: name at least one callee',
        ),
        (
            'coverage.watch',
            [{'paths': ['src/**'], 'calls': ['f'], 'regex': 'x'}],
            'coverage.watch[0].regex: unknown key',
        ),
        (
            'coverage.ignored',
            [{'path': 'src/a.py', 'function': 'f'}],
            "coverage.ignored[0]: missing key 'reason'",
        ),
        (
            'coverage.ignored',
            [{'path': 'src/a.py', 'function': 'f', 'reason': 'r'}],
            "coverage.ignored[0].path: 'src/a.py' is under no watch rule's paths",
        ),
        (
            'coverage.entries.0.hash',
            'sha1:abc',
            "coverage.entries[0].hash: 'sha1:abc' has no known scheme",
        ),
        (
            'coverage.entries.0.path',
            '../outside.py',
            "coverage.entries[0].path: '../outside.py' leaves its folder",
        ),
        (
            'coverage.entries.0.path',
            '/abs/x.py',
            "coverage.entries[0].path: '/abs/x.py' is absolute",
        ),
        (
            'coverage.entries.0.path',
            'src\\x.py',
            "coverage.entries[0].path: 'src\\\\x.py': use forward slashes",
        ),
        (
            'coverage.entries.0.region',
            {'from': 'a', 'to': 'b'},
            'coverage.entries[0]: give exactly one of',
        ),
        ('coverage.entries.1.region', DELETE, 'coverage.entries[1]: give exactly one of'),
        ('coverage.entries.0.within', 'f', 'coverage.entries[0].within: "within" narrows a region'),
        ('coverage.entries.1.region.to', DELETE, "coverage.entries[1].region: missing key 'to'"),
        ('coverage.entries.1.region.from', 7, 'coverage.entries[1].region.from: expected a string'),
        (
            'coverage.entries.1.id',
            'claim',
            "coverage.entries[1].id: duplicate id 'claim' (also coverage.entries[0])",
        ),
        (
            'coverage.entries.0.syncedBlob',
            'HEAD',
            'coverage.entries[0].syncedBlob: expected a git object id',
        ),
        ('coverage.entries.0.syncReason', '', 'coverage.entries[0].syncReason: must not be empty'),
        ('coverage.entries', {}, 'coverage.entries: expected an array, got an object'),
        (
            'coverage.entries.0.path',
            'C:/x.py',
            "coverage.entries[0].path: 'C:/x.py' is not a relative path inside the repository",
        ),
        ('checks.0.timeout', float('nan'), 'checks[0].timeout: expected a number of seconds > 0'),
        ('spec', DELETE, "$: missing key 'spec'"),
    ),
    ids=lambda v: v if isinstance(v, str) and ':' not in v else '',
)
def test_bad_manifest_names_field(tmp_path, field, value, expected):
    path = write_manifest(tmp_path, mutate(field, value))
    with pytest.raises(CannotRun) as e:
        manifest_read.load(path, tmp_path)
    assert str(e.value).startswith(f'{path}: ')
    assert expected in str(e.value)


def test_null_hash_is_never_synced(tmp_path):
    m = manifest_read.load(
        write_manifest(tmp_path, mutate('coverage.entries.0.hash', None)), tmp_path
    )
    assert m.coverage.entries[0].hash is None
    assert '"hash"' not in manifest_write.dump(m).split('"id": "claim"')[1].split('}')[0]


def test_duplicate_check_names(tmp_path):
    data = copy.deepcopy(GOOD)
    data['checks'].append({'name': 'main', 'config': 'Other.cfg'})
    with pytest.raises(CannotRun, match=r"checks\[1\]\.name: duplicate name 'main'"):
        manifest_read.load(write_manifest(tmp_path, data), tmp_path)


def test_symlink_leaving_repository(tmp_path):
    repo = tmp_path / 'repo'
    outside = tmp_path / 'outside'
    outside.mkdir()
    (repo / 'src').mkdir(parents=True)
    os.symlink(outside, repo / 'src' / 'link')
    data = mutate('coverage.entries.0.path', 'src/link/x.py')
    with pytest.raises(CannotRun, match='outside the repository'):
        manifest_read.load(write_manifest(repo, data), repo)


@pytest.mark.parametrize(
    ('content', 'expected'),
    (
        ('{"version": 1,', 'not valid JSON'),
        ('[]', '$: expected an object, got an array'),
        (b'\xff\xfe{}', 'not UTF-8'),
    ),
    ids=('truncated', 'array', 'not-utf8'),
)
def test_unreadable_manifest(tmp_path, content, expected):
    folder = tmp_path / 'verification' / 'm'
    folder.mkdir(parents=True)
    path = folder / 'manifest.json'
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    with pytest.raises(CannotRun, match=re.escape(expected)):
        manifest_read.load(path, tmp_path)


def test_missing_manifest(tmp_path):
    with pytest.raises(CannotRun, match='no such manifest'):
        manifest_read.load(tmp_path / 'manifest.json', tmp_path)


RECORD: dict[str, Any] = {
    'scheme': 'tla1',
    'files': {'Spec.cfg': 'c' * 64, 'Spec.tla': {'Init': 'd' * 64, 'Next': 'e' * 64}},
}
DECLARATIONS = {
    'abstract': [{'action': 'Expire', 'reason': 'time passing'}],
    'watch': [
        {'paths': ['src/**'], 'strings': r'\bUPDATE\s+lease\b', 'what': 'writes lease'},
        {'paths': ['src/*.go', 'lib/**'], 'calls': ['release', 'db.Exec']},
    ],
    'ignored': [{'path': 'src/admin.py', 'function': 'reset', 'reason': 'tests only'}],
}


@pytest.mark.parametrize(
    'coverage',
    (
        pytest.param({}, id='string-model-hash'),
        pytest.param({'modelHash': RECORD}, id='record-model-hash'),
        pytest.param(DECLARATIONS, id='abstract-watch-ignored'),
    ),
)
def test_dump_round_trip_of_coverage_forms(tmp_path, coverage):
    data = copy.deepcopy(GOOD)
    data['coverage'].update(coverage)
    path = write_manifest(tmp_path, data)
    m = manifest_read.load(path, tmp_path)
    assert json.loads(manifest_write.dump(m)) == data
    if 'watch' in coverage:
        assert m.coverage.abstract == (manifest_model.AbstractAction('Expire', 'time passing'),)
        assert m.coverage.watch[1] == manifest_model.WatchRule(
            paths=('src/*.go', 'lib/**'), calls=('release', 'db.Exec')
        )
        assert m.coverage.ignored[0].function == 'reset'
    if 'modelHash' in coverage:
        assert m.coverage.model_hash == manifest_model.ModelRecord('tla1', RECORD['files'])


def test_dump_round_trip_is_stable(tmp_path):
    path = write_manifest(tmp_path, GOOD)
    m = manifest_read.load(path, tmp_path)
    text = manifest_write.dump(m)
    assert text.endswith('}\n')
    assert '\n  "spec": "Spec.tla",\n' in text
    assert json.loads(text) == GOOD | {'coverage': GOOD['coverage']}
    path.write_text(text)
    assert manifest_write.dump(manifest_read.load(path, tmp_path)) == text


def test_schema_key_is_kept_first_through_a_rewrite(tmp_path):
    """Every command that rewrites the manifest (add, --update-coverage) keeps "$schema"."""
    data = {'$schema': 'manifest.schema.json', **GOOD}
    m = manifest_read.load(write_manifest(tmp_path, data), tmp_path)
    assert m.schema == 'manifest.schema.json'
    text = manifest_write.dump(m)
    assert text.startswith('{\n  "$schema": "manifest.schema.json",\n') and json.loads(text) == data


@pytest.mark.parametrize('value', (1, '', None, ['x']), ids=('number', 'empty', 'null', 'array'))
def test_schema_key_must_be_a_string(tmp_path, value):
    with pytest.raises(
        CannotRun, match=r'manifest.json: \$schema: (expected a string|must not be empty)'
    ):
        manifest_read.load(write_manifest(tmp_path, {'$schema': value, **GOOD}), tmp_path)


def test_synced_blob_and_reason_round_trip(tmp_path):
    data = copy.deepcopy(GOOD)
    data['coverage']['entries'][0].update(
        syncedBlob='c' * 40, syncReason='the model already says so'
    )
    path = write_manifest(tmp_path, data)
    m = manifest_read.load(path, tmp_path)
    assert (m.coverage.entries[0].synced_blob, m.coverage.entries[0].sync_reason) == (
        'c' * 40,
        'the model already says so',
    )
    assert json.loads(manifest_write.dump(m)) == data


def test_write_is_atomic_and_keeps_mode(tmp_path):
    path = write_manifest(tmp_path, GOOD)
    path.chmod(0o640)
    m = manifest_read.load(path, tmp_path)
    synced = dataclasses.replace(
        m,
        coverage=dataclasses.replace(m.coverage, sync_commit='1' * 40),
    )
    manifest_write.write(path, synced)
    assert manifest_read.load(path, tmp_path).coverage.sync_commit == '1' * 40
    assert path.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in path.parent.iterdir()] == ['manifest.json']


def test_write_failure_leaves_old_file(tmp_path, monkeypatch):
    path = write_manifest(tmp_path, GOOD)
    before = path.read_text()
    m = manifest_read.load(path, tmp_path)

    def boom(*args, **kwargs):
        raise OSError('disk full')

    monkeypatch.setattr(os, 'replace', boom)
    with pytest.raises(OSError):
        manifest_write.write(path, m)
    assert path.read_text() == before
    assert [p.name for p in path.parent.iterdir()] == ['manifest.json']


# ---- trace jobs and code mutations -----------------------------------------------------

TRACED: dict = {
    **{k: v for k, v in GOOD.items() if k != 'coverage'},
    'traces': [
        {
            'name': 'run',
            'spec': 'TraceSpec.tla',
            'config': 'TraceSpec.cfg',
            'command': ['python', '-m', 'app.run'],
            'timeout': 60,
            'env': {'SEED': '7', 'RUNS': '3'},
        },
        {
            'name': 'kept',
            'spec': 'TraceSpec.tla',
            'config': 'TraceSpec.cfg',
            'files': ['traces/*.ndjson'],
            'fields': {'drop': ['ts', 'msg']},
            'line': 'cursor',
        },
    ],
    'codeMutations': [
        {
            'name': 'unfenced',
            'path': 'src/lease.py',
            'replace': {'from': 'a = b', 'to': 'a <= b'},
            'traces': ['run'],
        },
    ],
    'coverage': GOOD['coverage'],
}


def test_load_trace_jobs_and_code_mutations(tmp_path):
    path = write_manifest(tmp_path, TRACED)
    m = manifest_read.load(path, tmp_path)
    assert m.traces[0] == manifest_model.TraceJob(
        'run',
        'TraceSpec.tla',
        'TraceSpec.cfg',
        command=('python', '-m', 'app.run'),
        timeout=60.0,
        env=(('SEED', '7'), ('RUNS', '3')),
    )
    assert m.traces[1].files == ('traces/*.ndjson',)
    assert m.traces[1].fields == manifest_model.FieldRule(drop=('ts', 'msg'))
    assert (m.traces[0].line, m.traces[1].line) == ('l', 'cursor')
    assert not m.traces[1].fields.passes('ts') and m.traces[1].fields.passes('x')
    assert m.code_mutations == (
        manifest_model.CodeMutation(
            'unfenced', 'src/lease.py', manifest_model.Replace('a = b', 'a <= b'), ('run',)
        ),
    )
    # The trace spec is not the model: a change to it is judged by its trace jobs, not the guard.
    assert 'TraceSpec.tla' not in m.model_files
    assert json.loads(manifest_write.dump(m)) == TRACED


@pytest.mark.parametrize(
    ('field', 'value', 'expected'),
    (
        ('traces.0.files', ['x.ndjson'], 'traces[0]: give exactly one of "files"'),
        ('traces.0.command', DELETE, 'traces[0]: give exactly one of "files"'),
        ('traces.0.command', [], 'traces[0].command: must not be empty'),
        ('traces.0.command', 'python run.py', 'traces[0].command: expected an array'),
        (
            'traces.1.files',
            ['../x/*.ndjson'],
            "traces[1].files[0]: '../x/*.ndjson' leaves its folder",
        ),
        ('traces.1.name', 'run', "traces[1].name: duplicate name 'run'"),
        ('traces.0.spec', DELETE, "traces[0]: missing key 'spec'"),
        (
            'codeMutations.0.traces',
            ['nope'],
            "codeMutations[0].traces[0]: no trace job named 'nope'",
        ),
        (
            'codeMutations.0.replace.to',
            'a = b',
            'codeMutations[0].replace: "from" and "to" are the same',
        ),
        ('codeMutations.0.path', '/etc/passwd', "codeMutations[0].path: '/etc/passwd' is absolute"),
        ('traces', [], "codeMutations[0].traces[0]: no trace job named 'run' (known: none)"),
        ('traces.0.timeout', 0, 'traces[0].timeout: expected a number of seconds > 0'),
        (
            'traces.0.env',
            ['SEED=7'],
            'traces[0].env: expected an object of variable names to strings',
        ),
        ('traces.0.env', {'SEED': 7}, 'traces[0].env.SEED: expected a string, got a number'),
        ('traces.0.env', {'1X': 'a'}, "traces[0].env.1X: '1X' is not a variable name"),
        ('traces.1.env', {'SEED': '7'}, 'traces[1].env: only a trace job with a "command"'),
        ('traces.1.fields', {}, 'traces[1].fields: give exactly one of "keep"'),
        ('traces.1.line', 'l 2', "traces[1].line: 'l 2' is not a TLA+ variable name"),
        (
            'coverage.untraced',
            [{'action': 'Nope', 'reason': 'r'}],
            "coverage.untraced[0].action: 'Nope' is the action of no covered entry",
        ),
        ('coverage.untraced', [{'action': 'Claim'}], "coverage.untraced[0]: missing key 'reason'"),
        (
            'traces.1.fields',
            {'keep': ['a'], 'drop': ['b']},
            'traces[1].fields: give exactly one of "keep"',
        ),
        ('traces.1.fields', {'drop': []}, 'traces[1].fields.drop: name at least one field'),
        ('traces.1.fields', {'keep': [3]}, 'traces[1].fields.keep[0]: expected a string'),
        ('traces.1.fields', {'only': ['a']}, "traces[1].fields.only: unknown key 'only'"),
    ),
    ids=lambda v: v if isinstance(v, str) and ':' not in v else '',
)
def test_bad_trace_entries_name_the_field(tmp_path, field, value, expected):
    data = copy.deepcopy(TRACED)
    *parents, last = [int(p) if p.isdigit() else p for p in field.split('.')]
    node = data
    for p in parents:
        node = node[p]
    if value is DELETE:
        del node[last]
    else:
        node[last] = value
    path = write_manifest(tmp_path, data)
    with pytest.raises(CannotRun) as e:
        manifest_read.load(path, tmp_path)
    assert expected in str(e.value)


def test_deadlock_keys_are_three_valued(tmp_path):
    """Left out: the cfg's CHECK_DEADLOCK, else TLC's default; true/false: the entry says."""
    m = manifest_read.load(write_manifest(tmp_path, GOOD), tmp_path)
    assert (m.checks[0].deadlock, m.mutations[0].deadlock, m.findings[0].deadlock) == (
        None,
        None,
        None,
    )
    data = mutate('mutations.0.deadlock', False)
    data['checks'][0]['deadlock'] = True
    m = manifest_read.load(write_manifest(tmp_path, data), tmp_path)
    assert (m.checks[0].deadlock, m.mutations[0].deadlock) == (True, False)
    text = manifest_write.dump(m)
    assert '"deadlock": false' in text and '"deadlock": true' in text
    assert manifest_read.parse(text, m.path, tmp_path) == m


def test_a_model_of_no_code_and_only_findings(tmp_path):
    """No "coverage" and no "checks": a model that only reproduces findings; written back the
    same way (no coverage section appears)."""
    data = {k: v for k, v in GOOD.items() if k not in ('coverage', 'checks', 'mutations')}
    m = manifest_read.load(write_manifest(tmp_path, data), tmp_path)
    assert (m.checks, m.covers_code, m.coverage.entries) == ((), False, ())
    written = json.loads(manifest_write.dump(m))
    assert 'coverage' not in written and written['findings'][0]['id'] == 'F2'
    assert manifest_read.parse(manifest_write.dump(m), m.path, tmp_path) == m


def test_untraced_actions_are_kept_and_need_a_trace_job(tmp_path):
    data = copy.deepcopy(TRACED)
    data['coverage']['untraced'] = [
        {'action': 'BeginStep', 'reason': 'no trace reaches a step yet'}
    ]
    m = manifest_read.load(write_manifest(tmp_path, data), tmp_path)
    assert m.coverage.untraced == (
        manifest_model.UntracedAction('BeginStep', 'no trace reaches a step yet'),
    )
    assert json.loads(manifest_write.dump(m)) == data
    del data['traces'], data['codeMutations']
    with pytest.raises(
        CannotRun,
        match=r'manifest.json: coverage.untraced: exempts actions from trace '
        r'action coverage, but the model has no trace job',
    ):
        manifest_read.load(write_manifest(tmp_path, data), tmp_path)


def test_a_check_names_its_own_root_module(tmp_path):
    data = mutate('checks.0.spec', 'MCSpec.tla')
    path = write_manifest(tmp_path, data)
    m = manifest_read.load(path, tmp_path)
    assert m.checks[0].spec == 'MCSpec.tla'
    assert m.roots == ['Spec.tla', 'MCSpec.tla']
    assert 'MCSpec.tla' in m.model_files
    text = manifest_write.dump(m)
    assert json.loads(text)['checks'][0] == data['checks'][0]
    assert manifest_read.load(path, tmp_path).checks == m.checks


def test_a_mutation_names_the_module_it_edits(tmp_path):
    data = mutate('mutations.0.module', 'Lease.tla')
    path = write_manifest(tmp_path, data)
    m = manifest_read.load(path, tmp_path)
    assert m.mutations[0].module == 'Lease.tla'
    assert 'Lease.tla' not in m.model_files  # a module the root reads: recorded through it
    assert json.loads(manifest_write.dump(m))['mutations'][0] == data['mutations'][0]
