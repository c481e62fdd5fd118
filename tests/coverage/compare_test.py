from __future__ import annotations

import hashlib
import json
from dataclasses import replace

import pytest

from execlease_hook.core.errors import CannotRun
from execlease_hook.coverage import compare as coverage
from execlease_hook.git import blobs
from execlease_hook.locate.entry import MAX_BYTES
from execlease_hook.manifest import read as manifest_read
from execlease_hook.spec import record
from tests.conftest import LEASE_PY, MANIFEST, MODEL_DIR

BODY_EDIT = LEASE_PY.replace('return cur.rowcount == 1', 'return cur.rowcount >= 1')


def load(repo):
    return manifest_read.load(repo.path / MANIFEST, repo.path)


def statuses(repo, source):
    return {s.entry.id: s.status for s in coverage.compare(load(repo), source, None, MAX_BYTES)}


@pytest.mark.parametrize(
    ('text', 'expected'),
    (
        pytest.param(
            LEASE_PY,
            {'claim-lease': 'unchanged', 'renew': 'unchanged', 'replay-decision': 'unchanged'},
            id='synced',
        ),
        pytest.param(
            BODY_EDIT,
            {'claim-lease': 'changed', 'renew': 'unchanged', 'replay-decision': 'unchanged'},
            id='body-edit',
        ),
        pytest.param(
            LEASE_PY.replace("row[0] == 'done'", "row[0] == 'finished'"),
            {'claim-lease': 'unchanged', 'renew': 'unchanged', 'replay-decision': 'changed'},
            id='region-string-edit',
        ),
        pytest.param(
            LEASE_PY.replace('def renew', 'def extend'),
            {'claim-lease': 'unchanged', 'renew': 'missing', 'replay-decision': 'unchanged'},
            id='renamed-function',
        ),
        pytest.param(
            LEASE_PY + '\n\ndef claim_lease():\n    pass\n',
            {'claim-lease': 'ambiguous', 'renew': 'unchanged', 'replay-decision': 'unchanged'},
            id='defined-twice',
        ),
        pytest.param(
            LEASE_PY.replace("    return 'run'", "    # replay-decision: end\n    return 'run'"),
            {'claim-lease': 'unchanged', 'renew': 'unchanged', 'replay-decision': 'ambiguous'},
            id='anchor-twice',
        ),
        pytest.param(
            '',
            {'claim-lease': 'missing', 'renew': 'missing', 'replay-decision': 'missing'},
            id='emptied',
        ),
    ),
)
def test_compare_working_tree(covered_repo, text, expected):
    covered_repo.write('app/lease.py', text)
    assert statuses(covered_repo, blobs.WorktreeSource(covered_repo.path)) == expected


def test_sources_disagree_on_a_partially_staged_file(covered_repo):
    covered_repo.write('app/lease.py', BODY_EDIT)
    covered_repo.add('app/lease.py')
    covered_repo.write('app/lease.py', LEASE_PY)
    root = covered_repo.path
    assert statuses(covered_repo, blobs.IndexSource(root))['claim-lease'] == 'changed'
    assert statuses(covered_repo, blobs.WorktreeSource(root))['claim-lease'] == 'unchanged'
    sync = load(covered_repo).coverage.sync_commit
    assert statuses(covered_repo, blobs.CommitSource(root, sync))['claim-lease'] == 'unchanged'


def test_missing_file_names_the_source(covered_repo):
    covered_repo.git('rm', '-q', '--cached', 'app/lease.py')
    result = coverage.compare(
        load(covered_repo), blobs.IndexSource(covered_repo.path), None, MAX_BYTES
    )
    assert {s.status for s in result} == {'missing'}
    assert result[0].problem == 'app/lease.py: no such file in the index (staged)'
    assert result[0].current is None and result[0].located is None


def test_never_synced_and_where(covered_repo):
    m = load(covered_repo)
    entries = tuple(replace(e, hash=None) for e in m.coverage.entries)
    m = replace(m, coverage=replace(m.coverage, entries=entries))
    result = coverage.compare(m, blobs.WorktreeSource(covered_repo.path), None, MAX_BYTES)
    assert [(s.status, s.where) for s in result] == [
        ('never synced', 'app/lease.py:4'),
        ('never synced', 'app/lease.py:18'),
        ('never synced', 'app/lease.py:26'),
    ]
    assert all(s.current and s.current.startswith('ts2:sha256:') for s in result)


def test_compare_subset_of_entries(covered_repo):
    m = load(covered_repo)
    result = coverage.compare(
        m, blobs.WorktreeSource(covered_repo.path), m.coverage.entries[1:2], MAX_BYTES
    )
    assert [s.entry.id for s in result] == ['renew']


@pytest.mark.parametrize(
    ('kinds', 'code'),
    (
        pytest.param([], 0, id='none'),
        pytest.param(['unchanged'], 0, id='unchanged'),
        pytest.param(['unchanged', 'changed'], 1, id='changed'),
        pytest.param(['never synced'], 1, id='never-synced'),
        pytest.param(['changed', 'missing'], 2, id='missing'),
        pytest.param(['ambiguous', 'unchanged'], 2, id='ambiguous'),
    ),
)
def test_exit_code(covered_repo, kinds, code):
    entry = load(covered_repo).coverage.entries[0]
    assert (
        coverage.exit_code([coverage.EntryStatus(entry, k, None, None, None) for k in kinds])
        == code
    )


def test_model_hash_definition(covered_repo):
    m = load(covered_repo)
    digest = hashlib.sha256()
    for name in ('Lease.cfg', 'Lease.tla'):  # model_files order: sorted
        data = (covered_repo.path / MODEL_DIR / name).read_bytes()
        digest.update(name.encode() + b'\0' + str(len(data)).encode() + b'\0' + data)
    expected = f'sha256:{digest.hexdigest()}'
    assert record.model_hash(m, blobs.WorktreeSource(covered_repo.path)) == expected
    assert record.model_hash(m, blobs.IndexSource(covered_repo.path)) == expected
    # The older form of coverage.modelHash: still read (model_record_test), no longer written.


def test_model_hash_sees_every_config_and_missing_files(covered_repo):
    data = json.loads(covered_repo.read(MANIFEST))
    data['findings'] = [{'id': 'F1', 'config': 'findings/F1.cfg', 'violates': 'Inv'}]
    covered_repo.write(MANIFEST, json.dumps(data))
    covered_repo.write(f'{MODEL_DIR}/findings/F1.cfg', 'INIT Init\n')
    m = load(covered_repo)
    assert m.model_files == ['Lease.cfg', 'Lease.tla', 'findings/F1.cfg']
    before = record.model_hash(m, blobs.WorktreeSource(covered_repo.path))
    assert before != m.coverage.model_hash
    with pytest.raises(CannotRun, match='findings/F1.cfg is missing from the index'):
        record.model_hash(m, blobs.IndexSource(covered_repo.path))


def _regions() -> list[tuple[str, bytes, str, str]]:
    """(path, source, from, to) of every region the tests cover in each language: the rows of
    the end-to-end language table and of the formatter corpus."""
    from pathlib import Path

    from tests.e2e.languages_test import ROWS
    from tests.fingerprint import (
        formatter_c_zig_test,
        formatter_csharp_kotlin_test,
        formatter_test,
    )

    found = [(path, source.encode(), start, end) for _, path, source, _, (start, end), *_ in ROWS]
    corpus = Path(formatter_test.CORPUS)
    tables = [
        {name: regions for name, (_, regions) in formatter_test.COVERED.items()},
        formatter_c_zig_test.REGIONS,
        formatter_csharp_kotlin_test.REGIONS,
    ]
    for table in tables:
        for name, regions in table.items():
            found.extend((name, (corpus / name).read_bytes(), start, end) for start, end in regions)
    return found


@pytest.mark.parametrize(
    ('path', 'source', 'start', 'end'), _regions(), ids=[f'{r[0]}:{r[2][:30]}' for r in _regions()]
)
def test_a_region_found_by_its_text_keeps_its_place_and_recorded_hash(path, source, start, end):
    """Anchors found by their tokens change nothing for a region whose anchors are found by their
    exact text: the place and the hash recorded before tokens are the guard's."""
    from execlease_hook.fingerprint.scheme import fingerprint
    from execlease_hook.locate.entry import locate
    from execlease_hook.manifest.model import CoveredEntry, Region

    entry = CoveredEntry(id='r', path=path, action='A', region=Region(start, end))
    by_text = locate(entry, source)  # exact text only: how every recorded region hash was made
    status = coverage.entry_status(
        replace(entry, hash=fingerprint(by_text)), _Bytes(source), MAX_BYTES
    )
    assert status.status == 'unchanged' and status.current == fingerprint(by_text)
    assert status.located is not None
    assert (status.located.start_byte, status.located.end_byte) == (
        by_text.start_byte,
        by_text.end_byte,
    )


def test_the_recorded_hash_of_this_repository_region_still_compares():
    """The region of this repository's own manifest, against the file it was synced with."""
    import subprocess
    from pathlib import Path

    from tests.needs import missing

    root = Path(__file__).parents[2]
    m = manifest_read.load(root / 'verification' / 'execution-lease' / 'manifest.json', root)
    regions = [e for e in m.coverage.entries if e.region is not None]
    assert regions
    for entry in regions:
        assert entry.synced_blob is not None and entry.hash is not None
        blob = subprocess.run(
            ('git', 'cat-file', 'blob', entry.synced_blob), cwd=root, capture_output=True
        )
        if blob.returncode != 0:
            missing(f'the synced blob {entry.synced_blob} of {entry.id!r} is not in this clone')
        status = coverage.entry_status(entry, _Bytes(blob.stdout), MAX_BYTES)
        assert (status.status, status.current) == ('unchanged', entry.hash)


class _Bytes:
    """One file's content as a source of file contents (git/blobs.py's Source)."""

    description = 'a test'

    def __init__(self, content: bytes) -> None:
        self.content = content

    def prefetch(self, paths: object) -> None:
        pass

    def read(self, path: str) -> bytes | None:
        return self.content
