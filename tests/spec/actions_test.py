from __future__ import annotations

import json
from pathlib import Path

import pytest

from execlease_hook.manifest import model as manifest_model
from execlease_hook.manifest import read as manifest_read
from execlease_hook.spec import action_map as map_check
from execlease_hook.spec import actions as action_map
from execlease_hook.spec import index as spec_index

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / 'verification' / 'execution-lease'

SPEC = """\
---- MODULE M ----
VARIABLES x, y
Init == x = 0 /\\ y = 0
A(i) == x' = i /\\ UNCHANGED y
B == y' = 1 /\\ UNCHANGED x
C == /\\ x' = 0
     /\\ y' = 0
Helper == x + 1
Changes == x' = Helper
Env == \\/ B
       \\/ \\E i \\in 1..2 : A(i)
Inline == /\\ Changes
          /\\ UNCHANGED y
Next == \\/ \\E i \\in 1..2 : A(i)
        \\/ (B)
        \\/ C \\/ Env
Next2 == Next \\/ Inline
Next3 == /\\ Changes /\\ Helper = 1
Spec == Init /\\ [][Next]_<<x, y>>
FairSpec == Spec /\\ WF_x(A(1))
====
"""


def actions(cfg: str) -> dict[str, action_map.Action]:
    ix = spec_index.read_spec(SPEC.encode(), 'M.tla')
    return action_map.next_actions(ix, action_map.next_relations(ix, [cfg.encode()]))


@pytest.mark.parametrize(
    ('cfg', 'expected'),
    (
        pytest.param(
            'INIT Init\nNEXT Next\n', {'A': ('Next',), 'B': ('Next',), 'C': ('Next',)}, id='next'
        ),
        # Env is a disjunction: TLC splits it, so its disjuncts are the actions.
        pytest.param(
            'INIT Init NEXT Next2',
            {
                'A': ('Next2', 'Next'),
                'B': ('Next2', 'Next'),
                'C': ('Next2', 'Next'),
                'Inline': ('Next2',),
            },
            id='next-and-an-operator',
        ),
        # An inline conjunction contributes the operators it applies that change a variable.
        pytest.param('INIT Init\nNEXT Next3\n', {'Changes': ('Next3',)}, id='inline-conjunction'),
        pytest.param(
            'SPECIFICATION Spec\n',
            {'A': ('Next',), 'B': ('Next',), 'C': ('Next',)},
            id='specification',
        ),
        pytest.param(
            'SPECIFICATION FairSpec\n',
            {'A': ('Next',), 'B': ('Next',), 'C': ('Next',)},
            id='specification-through-an-operator',
        ),
        pytest.param(
            'INIT Init\n',
            {'A': ('Next',), 'B': ('Next',), 'C': ('Next',)},
            id='no-next-named: Next',
        ),
    ),
)
def test_next_actions(cfg, expected):
    assert {name: a.via for name, a in actions(cfg).items()} == expected


def test_shipped_model_actions():
    ix = spec_index.read_spec((SHIPPED / 'ExecutionLease.tla').read_bytes(), 'ExecutionLease.tla')
    relations = action_map.next_relations(ix, [(SHIPPED / 'ExecutionLease.cfg').read_bytes()])
    assert relations == ['Next']
    assert list(action_map.next_actions(ix, relations)) == [
        'Claim',
        'Renew',
        'Release',
        'BeginStep',
        'Effect',
        'CompleteStep',
        'FinishTurn',
        'Crash',
        'Expire',
        'Flip',
    ]


def load(
    tmp_path: Path, entries: list[dict], abstract: list[dict] | None = None
) -> manifest_model.Manifest:
    folder = tmp_path / 'verification' / 'm'
    folder.mkdir(parents=True, exist_ok=True)
    coverage: dict = {'syncCommit': None, 'modelHash': None, 'entries': entries}
    if abstract is not None:
        coverage['abstract'] = abstract
    path = folder / 'manifest.json'
    path.write_text(
        json.dumps(
            {
                'version': 1,
                'spec': 'M.tla',
                'checks': [{'name': 'main', 'config': 'M.cfg'}],
                'coverage': coverage,
            }
        )
    )
    return manifest_read.load(path, tmp_path)


def entry(i: int, action: str) -> dict:
    return {'id': f'e{i}', 'path': 'src/a.py', 'function': f'f{i}', 'action': action}


COVERED = [entry(1, 'A'), entry(2, 'B'), entry(3, 'C')]


@pytest.mark.parametrize(
    ('entries', 'abstract', 'problems', 'gaps'),
    (
        pytest.param(COVERED, None, [], [], id='all-covered'),
        pytest.param(COVERED[:2], [{'action': 'C', 'reason': 'a crash'}], [], [], id='abstract'),
        # An entry may name any operator of the spec, also one above the actions (Env covers B).
        pytest.param(
            [entry(1, 'A'), entry(3, 'C'), entry(4, 'Helper')],
            None,
            [],
            ['action B (M.tla:5) has no covered code and is not declared abstract'],
            id='uncovered',
        ),
        pytest.param(
            [*COVERED, entry(4, 'Claim')],
            None,
            [
                "manifest.json: coverage.entries[3] (e4): action 'Claim' is not defined in M.tla; "
                'name an operator the spec or a module it EXTENDS or INSTANCEs defines'
            ],
            [],
            id='unknown-action',
        ),
        pytest.param(
            [*COVERED[:2], entry(3, 'c')],
            None,
            [
                "coverage.entries[2] (e3): action 'c' is not defined in M.tla (did you mean: C (M.tla:6-7))"
            ],
            ['action C (M.tla:6-7) has no covered code'],
            id='renamed-action',
        ),
        pytest.param(
            COVERED,
            [{'action': 'Nxt', 'reason': 'r'}],
            [
                "coverage.abstract[0]: action 'Nxt' is not defined in M.tla (did you mean: Next (M.tla:14-16)"
            ],
            [],
            id='abstract-unknown',
        ),
        pytest.param(
            COVERED,
            [{'action': 'Helper', 'reason': 'r'}],
            [
                "coverage.abstract[0]: 'Helper' is not an action the next-state relation uses (it uses: A, B, C)"
            ],
            [],
            id='abstract-not-an-action',
        ),
        pytest.param(
            COVERED,
            [{'action': 'B', 'reason': 'r'}],
            [
                'coverage.abstract[0]: action B is declared abstract, but covered by e2; remove one of the two'
            ],
            [],
            id='abstract-and-covered',
        ),
        # No entry yet: no action needs code (the model is not tied to code), the names still count.
        pytest.param([], None, [], [], id='no-entry-yet'),
        pytest.param(
            [], [{'action': 'C', 'reason': 'a crash'}], [], [], id='no-entry-yet-abstract'
        ),
        pytest.param(
            [],
            [{'action': 'Nxt', 'reason': 'r'}],
            [
                "coverage.abstract[0]: action 'Nxt' is not defined in M.tla (did you mean: Next (M.tla:14-16)"
            ],
            [],
            id='no-entry-yet-abstract-unknown',
        ),
        pytest.param(
            [entry(1, 'A')],
            None,
            [],
            ['action B (M.tla:5) has no covered code', 'action C (M.tla:6-7) has no covered code'],
            id='the-first-entry',
        ),
    ),
)
def test_check_both_directions(tmp_path, entries, abstract, problems, gaps):
    (tmp_path / 'verification' / 'm').mkdir(parents=True)
    m = load(tmp_path, entries, abstract)
    ix = spec_index.read_spec(SPEC.encode(), 'M.tla')
    found = map_check.check(m, ix, actions('NEXT Next'))
    assert len(found.problems) == len(problems) and len(found.gaps) == len(gaps), (
        found.problems,
        found.gaps,
    )
    for text, expected in zip(found.problems, problems):
        assert expected in text
    for text, expected in zip(found.gaps, gaps):
        assert expected in text
