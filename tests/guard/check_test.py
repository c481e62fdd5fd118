"""The guard's checks of a model (guard/check.py), with real git: when every action needs code."""

from __future__ import annotations

import json

import pytest

from execlease_hook.cli import main as cli
from tests.conftest import LEASE_TLA, MANIFEST, MODEL_DIR, sync_coverage

SPEC = f'{MODEL_DIR}/Lease.tla'


@pytest.mark.parametrize(
    ('entries', 'code'),
    (
        pytest.param([], 0, id='no-entry-yet'),  # a spec not tied to code: no action needs any
        pytest.param(1, 1, id='the-first-entry'),  # from the first entry on, every action does
    ),
)
def test_every_action_needs_code_from_the_first_entry_on(covered_repo, capsys, entries, code):
    data = json.loads(covered_repo.read(MANIFEST))
    data['coverage']['entries'] = data['coverage']['entries'][:entries] if entries else []
    covered_repo.write(MANIFEST, json.dumps(data, indent=2) + '\n')
    covered_repo.write(SPEC, LEASE_TLA.replace('Next ==', "Expire == x' = x\nNext == Expire \\/"))
    sync_coverage(covered_repo.path)  # the new action's model is verified: only the map is judged
    covered_repo.add(MANIFEST, SPEC, f'{MODEL_DIR}/NOTES.md')
    got = cli.main(['guard'])
    out = capsys.readouterr().out
    assert got == code, out
    assert (
        'action Expire (Lease.tla:8) has no covered code and is not declared abstract' in out
    ) is bool(code)
