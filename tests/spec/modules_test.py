"""The EXTENDS and INSTANCE closure of a model's root modules, read from the working tree, the
index and a commit alike: TLC's search order (the model folder, then each library folder in
the manifest's order), modules found nowhere left to TLC, nested modules read from no file."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from execlease_hook.git import blobs
from execlease_hook.manifest import read as manifest_read
from execlease_hook.spec import index as spec_index
from execlease_hook.spec import modules
from execlease_hook.spec.modules import merged_index
from tests.conftest import GitRepo

MODEL = 'tla'
SPEC = """\
---- MODULE Raft ----
EXTENDS Naturals, Net, Helpers
---- MODULE Inner ----
Z == 0
====
I == INSTANCE Inner
Log == INSTANCE Logs WITH entries <- 1
====
"""
FILES = {
    f'{MODEL}/Raft.tla': SPEC,
    f'{MODEL}/Net.tla': '---- MODULE Net ----\nEXTENDS Sequences, Helpers, Shared\nSend == 1\n====\n',
    f'{MODEL}/Helpers.tla': '---- MODULE Helpers ----\nH == 1\n====\n',
    f'{MODEL}/Draft.tla': '---- MODULE Draft ----\nD == 1\n====\n',
    f'{MODEL}/Inner.tla': '---- MODULE Inner ----\nZ == 1\n====\n',  # the nested one is read
    'lib/a/Logs.tla': '---- MODULE Logs ----\nCONSTANT entries\nL == entries\n====\n',
    'lib/a/Shared.tla': '---- MODULE Shared ----\nS == 1\n====\n',
    'lib/b/Shared.tla': '---- MODULE Shared ----\nS == 2\n====\n',  # after lib/a: never read
    'lib/b/Helpers.tla': '---- MODULE Helpers ----\nH == 2\n====\n',  # the model folder's first
}
EXPECTED = [
    ('Raft.tla', None, '', 0, ''),
    ('Net.tla', None, 'Raft.tla', 2, 'EXTENDS'),
    ('Helpers.tla', None, 'Raft.tla', 2, 'EXTENDS'),
    ('lib/a/Logs.tla', 'lib/a', 'Raft.tla', 7, 'INSTANCE'),
    ('lib/a/Shared.tla', 'lib/a', 'Net.tla', 2, 'EXTENDS'),
]


@pytest.fixture
def repo(git_repo: GitRepo) -> GitRepo:
    for rel, text in FILES.items():
        git_repo.write(rel, text)
    git_repo.write(
        f'{MODEL}/manifest.json',
        json.dumps(
            {
                'version': 1,
                'spec': 'Raft.tla',
                'checks': [{'name': 'main', 'config': 'Raft.cfg'}],
                'libraries': [{'folder': 'lib/a'}, {'folder': 'lib/b'}],
            }
        ),
    )
    git_repo.write(f'{MODEL}/Raft.cfg', 'INIT Init\nNEXT Next\n')
    git_repo.add('.')
    git_repo.commit('a model')
    return git_repo


@pytest.mark.parametrize('where', ('worktree', 'index', 'commit'))
def test_the_closure_follows_tlc_search_order(repo, where):
    m = manifest_read.load(repo.path / MODEL / 'manifest.json', repo.path)
    sources: dict[str, Callable[[], blobs.Source]] = {
        'worktree': lambda: blobs.WorktreeSource(repo.path),
        'index': lambda: blobs.IndexSource(repo.path),
        'commit': lambda: blobs.CommitSource(repo.path, repo.head()),
    }
    source = sources[where]()
    found = modules.closure(m, source, {'Raft.tla': SPEC.encode()})
    assert [(x.key, x.library, x.reader, x.line, x.keyword) for x in found] == EXPECTED
    assert found[3].path == 'lib/a/Logs.tla' and found[1].path == f'{MODEL}/Net.tla'
    assert found[4].via() == 'EXTENDS in Net.tla:2, library folder lib/a'
    assert found[0].root and found[0].via() == 'root module'


def test_a_staged_module_is_what_the_index_reads(repo):
    repo.write(f'{MODEL}/Helpers.tla', '---- MODULE Helpers ----\nEXTENDS Draft\nH == 1\n====\n')
    m = manifest_read.load(repo.path / MODEL / 'manifest.json', repo.path)
    staged = modules.closure(m, blobs.IndexSource(repo.path), {'Raft.tla': SPEC.encode()})
    assert 'Draft.tla' not in [x.key for x in staged]  # not staged yet
    repo.add(f'{MODEL}/Helpers.tla')
    staged = modules.closure(m, blobs.IndexSource(repo.path), {'Raft.tla': SPEC.encode()})
    assert staged[-1].key == 'Draft.tla' and staged[-1].reader == 'Helpers.tla'


def test_the_listing_is_plain_json(repo):
    m = manifest_read.load(repo.path / MODEL / 'manifest.json', repo.path)
    found = modules.closure(m, blobs.WorktreeSource(repo.path), {'Raft.tla': SPEC.encode()})
    listed = modules.listing(found)
    assert json.loads(json.dumps(listed)) == listed
    assert listed[0] == {
        'module': 'Raft',
        'key': 'Raft.tla',
        'path': f'{MODEL}/Raft.tla',
        'library': None,
        'readBy': None,
    }
    assert listed[3]['readBy'] == {'module': 'Raft.tla', 'line': 7, 'keyword': 'INSTANCE'}


def test_merged_holds_the_definitions_of_every_module_each_where_it_is():
    read_spec = spec_index.read_spec
    wrapper = read_spec(
        b'---- MODULE MC ----\nEXTENDS Lease\nMCMax == 2\nInit == 0\n====\n', 'MC.tla'
    )
    spec = read_spec(
        b'---- MODULE Lease ----\nCONSTANT Max\nInit == 1\n\nClaim == Max\n====\n', 'Lease.tla'
    )
    index = merged_index([wrapper, spec])
    definitions = index.definitions()
    assert sorted(definitions) == ['Claim', 'Init', 'MCMax']
    assert index.where(definitions['Claim']) == 'Lease.tla:5'
    assert index.where(definitions['Init']) == 'MC.tla:4'  # the root's own comes first
    assert index.digests() == {**wrapper.digests(), 'Claim': spec.definitions()['Claim'].digest}


def test_merged_index_names_a_named_instances_definitions_through_it():
    read_spec = spec_index.read_spec
    wrapper = read_spec(
        b'---- MODULE MC ----\nraft == INSTANCE raft WITH S <- 1\nP(x) == INSTANCE raft\n====\n',
        'MC.tla',
    )
    raft = read_spec(b'---- MODULE raft ----\nCONSTANT S\nTick == S\n====\n', 'raft.tla')
    index = merged_index([wrapper, raft])
    definitions = index.definitions()
    assert sorted(definitions) == ['P', 'Tick', 'raft', 'raft!Tick']  # none through P(x)
    assert index.where(definitions['raft!Tick']) == 'raft.tla:3'
