"""The one rendering of the NOTES.md table: rows in manifest.json's order whatever order the
entries were located in, abstract actions after them; nothing rendered past an unlocated entry."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest

from execlease_hook.core.errors import CannotRun
from execlease_hook.coverage import compare as coverage
from execlease_hook.coverage import notes
from execlease_hook.git.blobs import WorktreeSource
from execlease_hook.locate.entry import MAX_BYTES
from execlease_hook.manifest import read as manifest_read
from tests.conftest import LEASE_PY, MANIFEST


@pytest.fixture
def lease(covered_repo):
    data = json.loads(covered_repo.read(MANIFEST))
    data['coverage']['abstract'] = [{'action': 'Expire', 'reason': 'time | passes'}]
    covered_repo.write(MANIFEST, json.dumps(data, indent=2) + '\n')
    m = manifest_read.load(covered_repo.path / MANIFEST, covered_repo.path)
    return m, coverage.compare(m, WorktreeSource(covered_repo.path), None, MAX_BYTES)


@pytest.mark.parametrize(
    'order',
    (lambda s: s, lambda s: s[::-1], lambda s: s[1:] + s[:1]),
    ids=('as-located', 'reversed', 'staged-file-first'),
)
def test_the_order_is_the_manifests(lease, order):
    m, statuses = lease
    assert notes.map_table(m, order(statuses)) == notes.map_table(m, statuses)
    rows = notes.map_table(m, order(statuses)).splitlines()[3:]
    assert [r.split('|')[2].strip() for r in rows] == [
        '`claim-lease`',
        '`renew`',
        '`replay-decision`',
        'abstract',
    ]
    assert rows[-1] == '| `Expire` | abstract | time \\| passes |'


def test_a_reordered_manifest_reorders_the_rows(lease):
    m, statuses = lease
    flipped = replace(m, coverage=replace(m.coverage, entries=m.coverage.entries[::-1]))
    rows = notes.map_table(flipped, statuses).splitlines()[3:]
    assert [r.split('|')[2].strip() for r in rows] == [
        '`replay-decision`',
        '`renew`',
        '`claim-lease`',
        'abstract',
    ]


def test_an_unlocated_entry_renders_nothing(lease, covered_repo):
    m, _ = lease
    covered_repo.write('app/lease.py', LEASE_PY.replace('def renew', 'def extend'))
    statuses = coverage.compare(m, WorktreeSource(covered_repo.path), None, MAX_BYTES)
    with pytest.raises(
        CannotRun, match=r'verification/lease/NOTES.md: not written: renew cannot be located'
    ):
        notes.map_table(m, statuses)


def test_an_entry_left_out_is_not_rendered_without(lease):
    m, statuses = lease
    with pytest.raises(CannotRun, match='not written: claim-lease cannot be located'):
        notes.map_table(m, statuses[1:])
