from __future__ import annotations

import json

import pytest

from execlease_hook.git import blobs
from execlease_hook.manifest import read as manifest_read
from execlease_hook.spec import record
from execlease_hook.spec import record as model_record
from tests.conftest import LEASE_TLA, MANIFEST, MODEL_DIR, GitRepo

SPEC = f'{MODEL_DIR}/Lease.tla'


def changes(repo: GitRepo) -> list[str]:
    m = manifest_read.load(repo.path / MANIFEST, repo.path)
    source = blobs.WorktreeSource(repo.path)
    return model_record.compare(model_record.read(m, source), source).changes


def test_the_sync_records_every_unit_and_cfg(covered_repo):
    data = json.loads(covered_repo.read(MANIFEST))
    record = data['coverage']['modelHash']
    assert record['scheme'] == 'tla1'
    assert list(record['files']) == ['Lease.cfg', 'Lease.tla']
    assert list(record['files']['Lease.tla']) == [
        'VARIABLES',
        'Init',
        'Claim',
        'Renew',
        'BeginStep',
        'Next',
    ]
    assert changes(covered_repo) == []


@pytest.mark.parametrize(
    ('edit', 'expected'),
    (
        pytest.param(
            lambda t: t.replace("Renew == x' = x\n", ''),
            ['definition Renew removed from Lease.tla since the sync'],
            id='removed',
        ),
        pytest.param(
            lambda t: t.replace("Claim == x' = x + 1", "Claim == x' = x + 3").replace(
                'x = 0', 'x = 2'
            ),
            [
                'definition Init changed (Lease.tla:3) since the sync',
                'action Claim changed (Lease.tla:5) since the sync',
            ],
            id='two-changes-in-file-order',
        ),
        pytest.param(
            lambda t: t.replace('VARIABLE x\n', 'VARIABLE x\nASSUME TRUE\n'),
            ['ASSUME added (Lease.tla:3) since the sync'],
            id='assume-added',
        ),
    ),
)
def test_named_changes(covered_repo, edit, expected):
    covered_repo.write(SPEC, edit(LEASE_TLA))
    assert changes(covered_repo) == expected


def test_cfgs_added_and_removed(covered_repo):
    data = json.loads(covered_repo.read(MANIFEST))
    data['checks'] = [{'name': 'other', 'config': 'Other.cfg'}]
    covered_repo.write(MANIFEST, json.dumps(data))
    covered_repo.write(f'{MODEL_DIR}/Other.cfg', 'INIT Init\nNEXT Next\n')
    assert changes(covered_repo) == [
        'Lease.cfg is no longer part of the model since the sync',
        'config Other.cfg is new since the sync',
    ]


def test_older_string_form_still_works_and_is_migrated_by_the_sync(covered_repo):
    from tests.conftest import sync_coverage

    data = json.loads(covered_repo.read(MANIFEST))
    m = manifest_read.load(covered_repo.path / MANIFEST, covered_repo.path)
    data['coverage']['modelHash'] = record.model_hash(m, blobs.WorktreeSource(covered_repo.path))
    covered_repo.write(MANIFEST, json.dumps(data, indent=2) + '\n')
    assert changes(covered_repo) == []  # the bytes are those of the sync
    covered_repo.write(SPEC, LEASE_TLA.replace('the claim', 'the claim, reworded'))
    (line,) = changes(covered_repo)  # any byte counts: the old form cannot tell
    assert 'coverage.modelHash is one sha256 of the bytes' in line
    assert 'the next `execlease verify --update-coverage` records it per definition' in line
    sync_coverage(covered_repo.path)
    assert json.loads(covered_repo.read(MANIFEST))['coverage']['modelHash']['scheme'] == 'tla1'
    assert changes(covered_repo) == []


def test_the_shipped_models_record_keeps_its_bytes():
    """The shipped model reads no module of its folder but its spec (TraceExecutionLease.tla, the
    trace spec beside it, is no check's): its record is the one its manifest holds, byte for byte."""
    from pathlib import Path

    root = Path(__file__).parents[2]
    m = manifest_read.load(root / 'verification' / 'execution-lease' / 'manifest.json', root)
    source = blobs.WorktreeSource(root)
    view = model_record.read(m, source)
    assert [mod.key for mod in view.module_list()] == ['ExecutionLease.tla']
    assert model_record.record(view) == m.coverage.model_hash
    assert model_record.compare(view, source) == model_record.Comparison([])
