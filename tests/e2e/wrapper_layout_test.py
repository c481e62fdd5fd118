"""The layout most TLA+ repositories use, through the real CLI, the real TLC and the real
pre-commit: the actions live in `tla/Lease.tla`, and the module TLC checks is a wrapper
`tla/MCLease.tla` that EXTENDS it, whose cfg overrides the constants with `<-`; the code is Go.
`init --spec` on the wrapper, `add` of actions the extended spec defines, `verify
--update-coverage`, a commit; then a semantic edit of an action in Lease.tla blocks the commit
naming the action, the module and its lines, and a misspelled action is told with the module
that defines the likely one."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest

from execlease_hook.cli import main as cli
from tests.conftest import GitRepo
from tests.e2e.guard_test import hook_config, install_hooks, run
from tests.verify.suite_test import shared_results

LEASE_TLA = r"""---- MODULE Lease ----
EXTENDS Naturals
CONSTANTS Max, Holders
VARIABLES owner, term
vars == <<owner, term>>
Init == owner = "none" /\ term = 0
Claim(h) == /\ owner = "none"
            /\ term < Max
            /\ owner' = h
            /\ term' = term + 1
Release == /\ owner # "none"
           /\ owner' = "none"
           /\ UNCHANGED term
Next == (\E h \in Holders : Claim(h)) \/ Release
Spec == Init /\ [][Next]_vars
TypeOK == term \in 0..Max
====
"""
MC_TLA = """---- MODULE MCLease ----
EXTENDS Lease
MCMax == 2
MCHolders == {"a", "b"}
====
"""
MC_CFG = """CONSTANTS
    Max <- MCMax
    Holders <- MCHolders
SPECIFICATION Spec
INVARIANT TypeOK
CHECK_DEADLOCK FALSE
"""
LEASE_GO = """package lease

type Lease struct {
\tOwner string
\tTerm  int
\tMax   int
}

func (l *Lease) Claim(h string) bool {
\tif l.Owner != "" || l.Term >= l.Max {
\t\treturn false
\t}
\tl.Owner = h
\tl.Term++
\treturn true
}

func (l *Lease) Release() {
\tl.Owner = ""
}
"""


def said(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = cli.main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.fixture
def wrapped(
    git_repo: GitRepo,
    offline_tlc: None,
    capsys: pytest.CaptureFixture[str],
    tmp_path_factory: pytest.TempPathFactory,
) -> GitRepo:
    """The scratch repository, initialised on the wrapper, its two actions covered and synced;
    its TLC results shared with the run's other tests (suite_test.shared_results): every test
    using it syncs the same model before it does its own part, which is not running TLC."""
    shared_results(tmp_path_factory, git_repo)
    git_repo.write('tla/Lease.tla', LEASE_TLA)
    git_repo.write('tla/MCLease.tla', MC_TLA)
    git_repo.write('tla/MCLease.cfg', MC_CFG)
    git_repo.write('lease/lease.go', LEASE_GO)
    git_repo.write('.gitignore', '.tmp/\n')
    git_repo.add('.')
    git_repo.commit('a Go lease and its spec, checked through a wrapper')
    assert said(capsys, 'init', '--spec', 'tla/MCLease.tla')[0] == 0
    code, out = said(
        capsys, 'add', 'lease/lease.go::Lease.Claim', '--action', 'Clam', '--model', 'tla'
    )
    assert code == 2, out
    assert (
        'no definition `Clam ==` or `Clam(...) ==` in MCLease.tla nor a module it EXTENDS or '
        'INSTANCEs (did you mean: Claim (Lease.tla:7-10))'
    ) in ' '.join(out.split())
    for target, action in (('Lease.Claim', 'Claim'), ('Lease.Release', 'Release')):
        code, out = said(
            capsys, 'add', f'lease/lease.go::{target}', '--action', action, '--model', 'tla'
        )
        assert code == 0, out
    code, out = said(capsys, 'verify', '--update-coverage', '--model', 'tla')
    assert code == 0, out
    files = json.loads(git_repo.read('tla/manifest.json'))['coverage']['modelHash']['files']
    assert sorted(files) == ['Lease.tla', 'MCLease.cfg', 'MCLease.tla']
    git_repo.add('.')
    git_repo.commit('covered and synced')
    return git_repo


@pytest.mark.timeout(900)
def test_a_wrapper_over_the_spec_is_covered_synced_and_guarded(
    wrapped: GitRepo,
    hook_repo: tuple[Path, str],
    pre_commit_home: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out = said(capsys, 'coverage', '--model', 'tla')
    assert code == 0, out
    wrapped.write('.pre-commit-config.yaml', hook_config(hook_repo))
    wrapped.add('.pre-commit-config.yaml')
    install_hooks(wrapped, pre_commit_home)
    code, out = run(wrapped, pre_commit_home, 'git', 'commit', '-m', 'the guard')
    assert code == 0, out
    # A comment in the extended spec is no change of the model.
    wrapped.write('tla/Lease.tla', LEASE_TLA.replace('vars ==', '\\* every variable\nvars =='))
    wrapped.add('tla/Lease.tla')
    code, out = run(wrapped, pre_commit_home, 'git', 'commit', '-m', 'a comment')
    assert code == 0, out
    wrapped.write('tla/Lease.tla', LEASE_TLA.replace('term < Max', 'term <= Max'))
    wrapped.add('tla/Lease.tla')
    code, out = run(wrapped, pre_commit_home, 'git', 'commit', '-m', 'a semantic edit')
    assert code == 1, out
    assert 'action Claim changed (Lease.tla:7-10) since the sync' in out
    assert wrapped.git('diff', '--cached', '--name-only').strip() == 'tla/Lease.tla'


@pytest.mark.timeout(900)
def test_an_entry_names_an_action_of_the_extended_spec(
    wrapped: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(wrapped.read('tla/manifest.json'))
    data['coverage']['entries'][1]['action'] = 'Relase'
    wrapped.write('tla/manifest.json', json.dumps(data, indent=2) + '\n')
    code, out = said(capsys, 'coverage', '--model', 'tla')
    assert code == 2, out
    assert (
        "coverage.entries[1] (release): action 'Relase' is not defined in MCLease.tla (did you "
        'mean: Release (Lease.tla:11-13))'
    ) in ' '.join(out.split())


@pytest.mark.timeout(900)
def test_a_violated_invariant_is_located_in_the_module_defining_it(
    wrapped: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    wrapped.write(
        'tla/Lease.tla',
        LEASE_TLA.replace(
            'TypeOK == term \\in 0..Max', 'TypeOK == term \\in 0..Max\nSmall == term < 2'
        ),
    )
    wrapped.write('tla/MCLease.cfg', MC_CFG.replace('INVARIANT TypeOK', 'INVARIANT Small'))
    report = wrapped.path.parent / 'report.sarif'
    code, out = said(
        capsys, 'verify', '--model', 'tla', '--format', 'sarif', '--output', str(report)
    )
    assert code == 1, out
    (result,) = json.loads(report.read_text())['runs'][0]['results']
    places = [
        (
            place['physicalLocation']['artifactLocation']['uri'],
            place['physicalLocation']['region']['startLine'],
        )
        for place in result['locations']
    ]
    assert ('tla/Lease.tla', 17) in places, places


TOOLBOX_TLA = """---- MODULE MC ----
EXTENDS Lease
const_1 == 4
const_2 == {"a"}
====
"""
TOOLBOX_CFG = """CONSTANT
Max <- const_1
Holders <- const_2
SPECIFICATION Spec
INVARIANT TypeOK
CHECK_DEADLOCK FALSE
"""


@pytest.mark.timeout(900)
def test_each_cfg_is_checked_on_its_own_root_module(
    git_repo: GitRepo, offline_tlc: None, capsys: pytest.CaptureFixture[str]
) -> None:
    """The Toolbox's MC.tla/MC.cfg and an MCLease.tla/MCLease.cfg beside the spec: `init` on the
    spec makes each cfg a check of its own module, and TLC runs each on it (their constants
    differ, and so do their state counts)."""
    for rel, text in (
        ('tla/Lease.tla', LEASE_TLA),
        ('tla/MCLease.tla', MC_TLA),
        ('tla/MCLease.cfg', MC_CFG),
        ('tla/MC.tla', TOOLBOX_TLA),
        ('tla/MC.cfg', TOOLBOX_CFG),
        ('lease/lease.go', LEASE_GO),
        ('.gitignore', '.tmp/\n'),
    ):
        git_repo.write(rel, text)
    git_repo.add('.')
    git_repo.commit('a spec with the Toolbox model and a wrapper')
    assert said(capsys, 'init', '--spec', 'tla/Lease.tla')[0] == 0
    checks = json.loads(git_repo.read('tla/manifest.json'))['checks']
    assert checks == [
        {'name': 'MC', 'config': 'MC.cfg', 'spec': 'MC.tla'},
        {'name': 'MCLease', 'config': 'MCLease.cfg', 'spec': 'MCLease.tla'},
    ]
    for target, action in (('Lease.Claim', 'Claim'), ('Lease.Release', 'Release')):
        assert (
            said(capsys, 'add', f'lease/lease.go::{target}', '--action', action, '--model', 'tla')[
                0
            ]
            == 0
        )
    code, out = said(capsys, 'verify', '--update-coverage', '--model', 'tla')
    assert code == 0, out
    data = json.loads(git_repo.read('tla/manifest.json'))
    assert [(c['name'], c['states']) for c in data['checks']] == [('MC', 9), ('MCLease', 7)]
    assert sorted(data['coverage']['modelHash']['files']) == [
        'Lease.tla',
        'MC.cfg',
        'MC.tla',
        'MCLease.cfg',
        'MCLease.tla',
    ]
    git_repo.add('.')
    git_repo.commit('synced')
    # A mutation with MC.cfg runs on MC.tla, as its check does (Max is 4 there: term reaches 9).
    mutations(git_repo, {**UNBOUNDED, 'config': 'MC.cfg'})
    code, out = said(capsys, 'verify', '--model', 'tla')
    assert code == 0, out
    assert ' '.join('mutation unbounded violated TypeOK held'.split()) in ' '.join(out.split())
    git_repo.git('checkout', '--', 'tla/manifest.json')
    git_repo.write('tla/MC.tla', TOOLBOX_TLA.replace('const_1 == 4', 'const_1 == 5'))
    git_repo.add('tla/MC.tla')
    code, out = said(capsys, 'guard')
    assert code == 1, out
    assert 'definition const_1 changed (MC.tla:3) since the sync' in out


def mutations(repo: GitRepo, *items: Mapping[str, object]) -> None:
    data = json.loads(repo.read('tla/manifest.json'))
    data['mutations'] = list(items)
    repo.write('tla/manifest.json', json.dumps(data, indent=2) + '\n')


UNBOUNDED: dict[str, object] = {
    'name': 'unbounded',
    'config': 'MCLease.cfg',
    'module': 'Lease.tla',
    'within': 'Claim',
    'replace': {'from': 'term < Max', 'to': 'term < Max + 5'},
    'violates': 'TypeOK',
}


@pytest.mark.timeout(900)
def test_a_mutation_edits_the_module_it_names(
    wrapped: GitRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    """The wrapper is the spec; the mutation breaks an action of the module it EXTENDS, and TLC,
    run on the wrapper, must catch it. A `from` that is not in that module is named with it."""
    mutations(wrapped, UNBOUNDED)
    code, out = said(capsys, 'verify', '--model', 'tla')
    assert code == 0, out
    assert ' '.join('mutation unbounded violated TypeOK held'.split()) in ' '.join(out.split())
    mutations(wrapped, UNBOUNDED, {**UNBOUNDED, 'name': 'wrong-module', 'module': 'MCLease.tla'})
    code, out = said(capsys, 'verify', '--model', 'tla')
    assert code == 2, out
    assert (
        "mutation wrong-module: `within` names 'Claim', which MCLease.tla does not define"
        in ' '.join(out.split())
    )


RAFT_TLA = r"""---- MODULE raft ----
EXTENDS Naturals
CONSTANT Server
VARIABLES leader, clock
BecomeLeader(i) == /\ leader = 0
                   /\ leader' = i
                   /\ UNCHANGED clock
Tick == /\ clock < 2
        /\ clock' = clock + 1
        /\ UNCHANGED leader
Next == (\E i \in Server : BecomeLeader(i)) \/ Tick
====
"""
MC_RAFT = r"""---- MODULE MCraft ----
EXTENDS Naturals
VARIABLES leader, clock
vars == <<leader, clock>>
raft == INSTANCE raft WITH Server <- {1, 2}
Init == leader = 0 /\ clock = 0
Next == {next}
Spec == Init /\ [][Next]_vars
====
"""
RAFT_GO = """package raft

type Node struct{ Leader, Clock int }

func (n *Node) BecomeLeader(i int) {
\tn.Leader = i
}

func (n *Node) Tick() {
\tn.Clock++
}
"""


@pytest.mark.timeout(900)
@pytest.mark.parametrize(
    'next_',
    ('raft!Next', r'(\E i \in {1, 2} : raft!BecomeLeader(i)) \/ raft!Tick'),
    ids=('instance-next', 'instance-actions'),
)
def test_actions_reached_through_a_named_instance(
    git_repo: GitRepo, offline_tlc: None, capsys: pytest.CaptureFixture[str], next_: str
) -> None:
    """`raft == INSTANCE raft WITH ...` and a Next that says `raft!BecomeLeader(i)` (or
    `raft!Next`): the actions are BecomeLeader and Tick, as TLC names them, defined in raft.tla."""
    for rel, text in (
        ('tla/raft.tla', RAFT_TLA),
        ('tla/MCraft.tla', MC_RAFT.replace('{next}', next_)),
        ('tla/MCraft.cfg', 'SPECIFICATION Spec\nCHECK_DEADLOCK FALSE\n'),
        ('raft/raft.go', RAFT_GO),
        ('.gitignore', '.tmp/\n'),
    ):
        git_repo.write(rel, text)
    git_repo.add('.')
    git_repo.commit('a wrapper over an instance')
    assert said(capsys, 'init', '--spec', 'tla/MCraft.tla')[0] == 0
    assert (
        said(capsys, 'add', 'raft/raft.go::Node.Tick', '--action', 'Tick', '--model', 'tla')[0] == 0
    )
    code, out = said(capsys, 'coverage', '--model', 'tla')
    assert code == 1, out
    assert 'action BecomeLeader (raft.tla:5-7) has no covered code' in ' '.join(out.split())
    assert (
        said(
            capsys,
            'add',
            'raft/raft.go::Node.BecomeLeader',
            '--action',
            'BecomeLeader',
            '--model',
            'tla',
        )[0]
        == 0
    )
    code, out = said(capsys, 'verify', '--update-coverage', '--model', 'tla')
    assert code == 0, out
    git_repo.add('.')
    git_repo.commit('synced')
    git_repo.write('tla/raft.tla', RAFT_TLA.replace("leader' = i", "leader' = i + 1"))
    git_repo.add('tla/raft.tla')
    code, out = said(capsys, 'guard')
    assert code == 1, out
    assert 'action BecomeLeader changed (raft.tla:5-7) since the sync' in out
