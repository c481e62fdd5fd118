from __future__ import annotations

import json

import pytest

from execlease_hook.cli import main as cli
from execlease_hook.coverage import compare as coverage
from execlease_hook.git import blobs
from execlease_hook.locate.entry import MAX_BYTES
from execlease_hook.manifest import read as manifest_read
from tests.conftest import LEASE_PY, MANIFEST, MODEL_DIR, NOTES

SPEC = """\
---- MODULE Lease ----
EXTENDS Naturals
CONSTANTS Runs, MaxGen
VARIABLES owner, gen
Init == owner = "none" /\\ gen = 0
Claim(r) == owner = "none" /\\ gen < MaxGen /\\ owner' = r /\\ gen' = gen + 1
Renew(r) == owner = r /\\ UNCHANGED <<owner, gen>>
BeginStep ==
    UNCHANGED <<owner, gen>>
Next == \\E r \\in Runs : Claim(r) \\/ Renew(r)
OneOwner == owner \\in Runs \\cup {"none"}
GenBound == gen <= MaxGen
====
"""
CFG = """\
CONSTANTS
    Runs = {r1, r2}
    MaxGen = 2
INIT Init
NEXT Next
INVARIANT OneOwner GenBound
"""


@pytest.fixture
def model_repo(git_repo):
    """Code and a spec, scaffolded by `execlease init`, nothing covered yet."""
    git_repo.write('app/lease.py', LEASE_PY)
    git_repo.write(f'{MODEL_DIR}/Lease.tla', SPEC)
    git_repo.write(f'{MODEL_DIR}/Lease.cfg', CFG)
    assert cli.main(['init', '--spec', f'{MODEL_DIR}/Lease.tla']) == 0
    return git_repo


def entries(repo):
    return json.loads(repo.read(MANIFEST))['coverage']['entries']


def files(repo):
    return {rel: repo.read(rel) for rel in (MANIFEST, NOTES)}


@pytest.mark.parametrize(
    ('argv', 'entry', 'row'),
    (
        (
            ['app/lease.py::claim_lease', '--action', 'Claim'],
            {
                'id': 'claim-lease',
                'path': 'app/lease.py',
                'function': 'claim_lease',
                'action': 'Claim',
            },
            '| `Claim` | `claim-lease` | [app/lease.py:4](../../app/lease.py#L4) |',
        ),
        (
            ['app/lease.py::LeaseStore.renew', '--action', 'Renew', '--id', 'renew-it'],
            {
                'id': 'renew-it',
                'path': 'app/lease.py',
                'function': 'LeaseStore.renew',
                'action': 'Renew',
            },
            '| `Renew` | `renew-it` | [app/lease.py:18](../../app/lease.py#L18) |',
        ),
        (
            [
                'app/lease.py',
                '--from',
                '# replay-decision: begin',
                '--to',
                '# replay-decision: end',
                '--within',
                'begin_step',
                '--action',
                'BeginStep',
            ],
            {
                'id': 'replay-decision-begin',
                'path': 'app/lease.py',
                'within': 'begin_step',
                'region': {'from': '# replay-decision: begin', 'to': '# replay-decision: end'},
                'action': 'BeginStep',
            },
            '| `BeginStep` | `replay-decision-begin` | [app/lease.py:26](../../app/lease.py#L26) |',
        ),
    ),
    ids=('function', 'method-with-id', 'region-within'),
)
def test_add_covered_code(model_repo, capsys, argv, entry, row):
    assert cli.main(['add', *argv]) == 0
    assert entries(model_repo) == [entry]  # no hash until the first sync
    assert row in model_repo.read(NOTES)
    out = capsys.readouterr().out
    assert f'entry {entry["id"]}' in out and 'code-to-action table rewritten' in out
    m = manifest_read.load(model_repo.path / MANIFEST, model_repo.path)
    (status,) = coverage.compare(m, blobs.WorktreeSource(model_repo.path), None, MAX_BYTES)
    assert status.status == 'never synced'


def test_the_map_keeps_every_entry_in_order(model_repo):
    assert cli.main(['add', 'app/lease.py::claim_lease', '--action', 'Claim']) == 0
    assert cli.main(['add', 'app/lease.py::LeaseStore.renew', '--action', 'Renew']) == 0
    table = model_repo.read(NOTES)
    assert table.index('`claim-lease`') < table.index('`renew`')
    assert cli.main(['coverage', '--write-map']) == 1  # never synced, but the map is current
    assert [e['id'] for e in entries(model_repo)] == ['claim-lease', 'renew']


def test_the_map_keeps_the_abstract_actions(model_repo):
    """The table `add` writes is the one `coverage --write-map` writes: abstract rows included."""
    data = json.loads(model_repo.read(MANIFEST))
    data['coverage']['abstract'] = [{'action': 'Renew', 'reason': 'time passing'}]
    model_repo.write(MANIFEST, json.dumps(data, indent=2) + '\n')
    assert cli.main(['add', 'app/lease.py::claim_lease', '--action', 'Claim']) == 0
    table = model_repo.read(NOTES)
    assert '| `Renew` | abstract | time passing |' in table
    assert cli.main(['coverage', '--write-map']) == 1  # never synced
    assert model_repo.read(NOTES) == table


@pytest.mark.parametrize(
    ('argv', 'message'),
    (
        (
            ['app/lease.py::claim', '--action', 'Claim'],
            "`function` 'claim' not found (did you mean: claim_lease (line 4))",
        ),
        (
            ['app/lease.py', '--from', 'UPDATE lease', '--to', 'rowcount', '--action', 'Claim'],
            "`region.from` 'UPDATE lease' occurs 2 times in app/lease.py, on lines 7, 21",
        ),
        (
            ['app/lease.py', '--from', 'nowhere', '--to', 'rowcount', '--action', 'Claim'],
            "`region.from` 'nowhere' not found in app/lease.py",
        ),
        (
            ['app/lease.py::claim_lease', '--action', 'Clam'],
            '--action Clam: no definition `Clam ==` or `Clam(...) ==`',
        ),
        (['app/lease.py::claim_lease'], '--action ACTION: name the model action'),
        (['app/nope.py::f', '--action', 'Claim'], 'app/nope.py: no such file'),
        (['app/lease.py', '--action', 'Claim'], 'give PATH::QUALNAME for a function'),
        (
            ['app/lease.py::claim_lease', '--from', 'x', '--action', 'Claim'],
            'a function needs no --from/--to/--within',
        ),
        (['../lease.py::f', '--action', 'Claim'], 'outside the repository'),
        ([], 'give one of: PATH::QUALNAME'),
        (['app/lease.py::claim_lease', '--mutation', 'm', '--action', 'Claim'], 'give one of'),
    ),
    ids=(
        'not-found',
        'anchor-twice',
        'anchor-missing',
        'unknown-action',
        'no-action',
        'no-file',
        'region-without-anchors',
        'function-with-anchors',
        'outside',
        'nothing',
        'two-kinds',
    ),
)
def test_refusals_exit_2_and_change_nothing(model_repo, capsys, argv, message):
    before = files(model_repo)
    assert cli.main(['add', *argv]) == 2
    assert message in capsys.readouterr().err
    assert files(model_repo) == before


def test_duplicates_are_refused(model_repo, capsys):
    assert cli.main(['add', 'app/lease.py::claim_lease', '--action', 'Claim']) == 0
    before = files(model_repo)
    assert cli.main(['add', 'app/lease.py::claim_lease', '--action', 'Claim', '--id', 'again']) == 2
    assert (
        "app/lease.py::claim_lease is covered already, by entry 'claim-lease'"
        in capsys.readouterr().err
    )
    assert (
        cli.main(
            ['add', 'app/lease.py::LeaseStore.renew', '--action', 'Renew', '--id', 'claim-lease']
        )
        == 2
    )
    assert "entry id 'claim-lease' exists already" in capsys.readouterr().err
    assert files(model_repo) == before


def test_an_unlocatable_entry_blocks_the_map_and_so_the_add(model_repo, capsys):
    assert cli.main(['add', 'app/lease.py::claim_lease', '--action', 'Claim']) == 0
    model_repo.write('app/lease.py', LEASE_PY.replace('def claim_lease(', 'def claim_it('))
    before = files(model_repo)
    assert cli.main(['add', 'app/lease.py::LeaseStore.renew', '--action', 'Renew']) == 2
    assert 'claim-lease cannot be located' in capsys.readouterr().err
    assert files(model_repo) == before


def test_two_models_need_model(model_repo, capsys):
    model_repo.write('verification/other/Other.tla', SPEC.replace('Lease', 'Other'))
    model_repo.write('verification/other/Other.cfg', CFG)
    assert cli.main(['init', '--spec', 'verification/other/Other.tla']) == 0
    assert cli.main(['add', 'app/lease.py::claim_lease', '--action', 'Claim']) == 2
    assert (
        '2 models (verification/lease, verification/other); name one with --model DIR'
        in capsys.readouterr().err
    )
    assert (
        cli.main(
            [
                'add',
                'app/lease.py::claim_lease',
                '--action',
                'Claim',
                '--model',
                'verification/other',
            ]
        )
        == 0
    )
    assert json.loads(model_repo.read('verification/other/manifest.json'))['coverage']['entries']


def test_the_first_entry_of_a_model_of_no_code_keeps_a_coverage_section(model_repo):
    """A manifest without "coverage" (a model of no code) that gets an entry now covers code:
    the entry is written, in a coverage section."""
    data = json.loads(model_repo.read(MANIFEST))
    del data['coverage']
    model_repo.write(MANIFEST, json.dumps(data))
    assert cli.main(['add', 'app/lease.py::claim_lease', '--action', 'Claim']) == 0
    assert [e['id'] for e in entries(model_repo)] == ['claim-lease']
