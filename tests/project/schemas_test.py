"""The shipped JSON Schemas: on one corpus of good and bad manifests, the loader (which checks
with manifest.schema.json through manifest/schema.py) agrees with the `jsonschema` package
reading the same file, and the wheel carries both schemas."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from execlease_hook.core.errors import CannotRun
from execlease_hook.manifest import read as manifest_read
from tests.manifest.read_test import DELETE, GOOD, mutate, write_manifest

SCHEMA = json.loads(
    resources.files('execlease_hook').joinpath('schemas/manifest.schema.json').read_text()
)
HEX = 'c' * 64

# (field, value) -> GOOD with that change; True: both accept, False: both refuse.
CORPUS: tuple[tuple[str | None, object, bool], ...] = (
    (None, None, True),
    ('mutations', DELETE, True),
    ('findings', DELETE, True),
    ('checks.0.states', 38084, True),
    ('checks.0.deadlock', True, True),
    ('checks.0.timeout', 1.5, True),
    ('checks.0.deep', {'constants': {'N': '4'}}, True),
    ('checks.0.deep', {'constants': {'N': 4, 'F': True}, 'timeout': 60, 'states': 9}, True),
    ('checks.0.deep', {}, False),
    ('checks.0.deep', {'constants': {}}, False),
    ('checks.0.deep', {'constants': {'N-1': '4'}}, False),
    ('checks.0.deep', {'constants': {'N': ''}}, False),
    ('checks.0.deep', {'constants': {'N': 1.5}}, False),
    ('checks.0.deep', {'constants': {'N': None}}, False),
    ('checks.0.deep', {'constants': {'N': '4'}, 'timeout': 0}, False),
    ('checks.0.deep', {'constants': {'N': '4'}, 'workers': 2}, False),
    ('coverage.syncCommit', None, True),
    ('coverage.modelHash', None, True),
    ('coverage.entries.0.hash', None, True),
    ('coverage.entries.0.hash', 'ts2:sha256:' + HEX, True),
    ('coverage.entries', [], True),
    ('findings.0.summary', DELETE, True),
    ('mutations.0.replace.to', '', True),
    ('coverage.abstract', [{'action': 'Tick', 'reason': 'time passing'}], True),
    ('coverage.watch', [{'paths': ['src/**'], 'strings': 'UPDATE'}], True),
    ('coverage.watch', [{'paths': ['src/**'], 'calls': ['execute']}], True),
    (
        'traces',
        [{'name': 't', 'spec': 'T.tla', 'config': 'T.cfg', 'files': ['traces/*.ndjson']}],
        True,
    ),
    (
        'traces',
        [{'name': 't', 'spec': 'T.tla', 'config': 'T.cfg', 'command': ['python', 'run.py']}],
        True,
    ),
    ('mutations.0.within', 'Inc', True),
    ('$schema', 'manifest.schema.json', True),
    ('$schema', '../../execlease_hook/schemas/manifest.schema.json', True),
    ('$schema', 1, False),
    ('$schema', '', False),
    ('$schema', None, False),
    ('coverage.abstract', [{'action': 'Tick'}], False),
    ('coverage.watch', [{'paths': ['src/**']}], False),
    ('coverage.watch', [{'paths': [], 'strings': 'x'}], False),
    ('coverage.watch', [{'paths': ['src/**'], 'strings': 'x', 'calls': ['f']}], False),
    ('traces', [{'name': 't', 'spec': 'T.tla', 'config': 'T.cfg'}], False),
    ('traces', [{'name': 't', 'spec': 'T.tla', 'config': 'T.cfg', 'files': []}], False),
    ('coverage.modelHash', {'scheme': 'tla9', 'files': {}}, False),
    ('version', 2, False),
    ('version', '1', False),
    ('version', True, False),
    ('spec', DELETE, False),
    ('spec', '', False),
    ('spec', '/abs/Spec.tla', False),
    ('spec', '../Spec.tla', False),
    ('extra', 1, False),
    ('checks', [], True),  # a model may only fail: GOOD has a mutation and a finding
    ('checks', DELETE, True),
    ('checks.0.deadlock', False, True),
    ('mutations.0.deadlock', False, True),
    ('findings.0.deadlock', True, True),
    ('mutations.0.deadlock', 'no', False),
    ('coverage.entries', DELETE, True),
    ('coverage.entries.0.syncedBlob', 'a' * 40, True),
    ('coverage.entries.0.syncedBlob', 'a' * 12, False),
    ('coverage.entries.0.syncReason', 'the model has no clock', True),
    ('checks', {}, False),
    ('checks.0.name', 3, False),
    ('checks.0.name', '', False),
    ('checks.0.colour', 'red', False),
    ('checks.0.states', -1, False),
    ('checks.0.states', 1.5, False),
    ('checks.0.deadlock', 'yes', False),
    ('checks.0.timeout', 0, False),
    ('checks.0.config', 'a\\b.cfg', False),
    ('mutations.0.replace.from', '', False),
    ('mutations.0.replace.to', 3, False),
    ('mutations.0.replace.other', 'x', False),
    ('mutations.0.violates', DELETE, False),
    ('findings.0.config', '/etc/F2.cfg', False),
    ('findings.0.summary', '', False),
    ('coverage.syncCommit', 'HEAD', False),
    ('coverage.syncCommit', 'A' * 40, False),
    ('coverage.modelHash', 'md5:1', False),
    ('coverage.entries.0.hash', 'sha1:abc', False),
    ('coverage.entries.0.hash', 'ts3:sha256:' + HEX, False),
    ('coverage.entries.0.path', '../outside.py', False),
    ('coverage.entries.0.path', 'src/../../outside.py', False),
    ('coverage.entries.0.path', '/abs/x.py', False),
    ('coverage.entries.0.path', 'src\\x.py', False),
    ('coverage.entries.0.region', {'from': 'a', 'to': 'b'}, False),
    ('coverage.entries.1.region', DELETE, False),
    ('coverage.entries.0.within', 'f', False),
    ('coverage.entries.1.region.to', DELETE, False),
    ('coverage.entries.1.region.from', 7, False),
    ('coverage.entries.1.region.to', '', False),
    ('coverage.entries.0.action', '', False),
    ('coverage.entries', {}, False),
    ('coverage.other', [], False),
    ('coverage', DELETE, True),  # a model that covers no code
)


def _id(case):
    field, value, good = case
    return f'{field}={"DELETE" if value is DELETE else value!r}'[:60] if field else 'good'


@pytest.mark.parametrize('case', CORPUS, ids=[_id(c) for c in CORPUS])
def test_schema_and_loader_agree(tmp_path, case):
    field, value, good = case
    data = GOOD if field is None else mutate(field, value)
    path = write_manifest(tmp_path, data)
    try:
        manifest_read.load(path, tmp_path)
        loaded = True
    except CannotRun:
        loaded = False
    valid = jsonschema.Draft7Validator(SCHEMA).is_valid(data)
    assert (loaded, valid) == (good, good)


@pytest.mark.parametrize('kept', ('checks', 'mutations', 'findings', None))
def test_a_model_needs_one_job_of_any_kind(tmp_path, kept):
    """Checks, mutations or findings: any one makes a model; none at all is refused by both."""
    data = {
        k: v for k, v in GOOD.items() if k not in ('checks', 'mutations', 'findings') or k == kept
    }
    path = write_manifest(tmp_path, data)
    valid = jsonschema.Draft7Validator(SCHEMA).is_valid(data)
    if kept is None:
        assert not valid
        with pytest.raises(CannotRun, match='name at least one job'):
            manifest_read.load(path, tmp_path)
    else:
        assert valid
        assert manifest_read.load(path, tmp_path).spec == 'Spec.tla'


@pytest.mark.parametrize(
    ('field', 'value'),
    (('coverage.entries.1.id', 'claim'), ('mutations.0.replace.to', 'x < 3'), ('version', 1.0)),
    ids=('duplicate-id', 'from-equals-to', 'version-1.0'),
)
def test_what_only_the_loader_refuses(tmp_path, field, value):
    """A schema cannot say "unique by id" or "from differs from to", and for it 1.0 is the
    integer 1: the loader refuses these."""
    data = mutate(field, value)
    assert jsonschema.Draft7Validator(SCHEMA).is_valid(data)
    with pytest.raises(CannotRun):
        manifest_read.load(write_manifest(tmp_path, data), tmp_path)


def test_the_shipped_manifests_are_valid():
    root = Path(__file__).resolve().parents[2]
    found = sorted(root.glob('verification/*/manifest.json'))
    assert found
    for path in found:
        jsonschema.Draft7Validator(SCHEMA).validate(json.loads(path.read_text()))


def test_the_wheel_ships_both_schemas(wheel_names):
    names = wheel_names  # built from a copy of the tree: nothing is written into the checkout
    assert 'execlease_hook/schemas/manifest.schema.json' in names
    assert 'execlease_hook/schemas/report.schema.json' in names
