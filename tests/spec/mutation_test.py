from __future__ import annotations

import pytest

from execlease_hook.core.errors import CannotRun
from execlease_hook.manifest.model import Mutation, Replace
from execlease_hook.spec import mutation as spec_mutation

SPEC = b"""\
---- MODULE M ----
VARIABLE x
Init == x = 0
Claim ==
    /\\ x < 3                 \\* claim: bound
    /\\ x' = x + 1            \\* claim: step
Renew ==
    /\\ x < 3
    /\\ x' = x                \\* renew: step
Next == Claim \\/ Renew
====
"""


def mutation(start: str, within: str | None = None) -> Mutation:
    return Mutation('m', 'M.cfg', Replace(start, 'TRUE'), 'Inv', within=within)


@pytest.mark.parametrize(
    ('start', 'within', 'line'),
    (
        pytest.param("x' = x + 1", None, 6, id='once-in-the-spec'),
        pytest.param('x < 3', 'Renew', 8, id='once-within-the-operator'),
        pytest.param('\\* renew: step', 'Renew', 9, id='trailing-comment-of-the-last-line'),
    ),
)
def test_anchor(start, within, line):
    at = spec_mutation.anchor(SPEC, 'M.tla', mutation(start, within))
    assert SPEC.count(b'\n', 0, at) + 1 == line
    mutated = spec_mutation.apply(SPEC, 'M.tla', mutation(start, within))
    assert mutated == SPEC[:at] + b'TRUE' + SPEC[at + len(start) :]


@pytest.mark.parametrize(
    ('start', 'within', 'message'),
    (
        pytest.param(
            'x < 3',
            None,
            'mutation m: replace.from matches 2 times in M.tla (it must match exactly once)',
            id='twice-in-the-spec',
        ),
        pytest.param(
            'x < 4', None, 'mutation m: replace.from does not match in M.tla', id='nowhere'
        ),
        pytest.param(
            "x' = x + 1",
            'Renew',
            'mutation m: replace.from no longer matches within action Renew (M.tla:7-9) '
            '(it is now in Claim (M.tla:4-6))',
            id='moved-to-another-action',
        ),
        pytest.param(
            'x < 4',
            'Claim',
            'mutation m: replace.from no longer matches within action Claim (M.tla:4-6);',
            id='gone',
        ),
        pytest.param(
            'x',
            'Claim',
            'mutation m: replace.from matches 3 times within action Claim (M.tla:4-6)',
            id='ambiguous-within',
        ),
        pytest.param(
            'x < 3',
            'Clam',
            "mutation m: `within` names 'Clam', which M.tla does not define",
            id='unknown-operator',
        ),
    ),
)
def test_anchor_problems(start, within, message):
    with pytest.raises(CannotRun) as e:
        spec_mutation.anchor(SPEC, 'M.tla', mutation(start, within), actions=('Claim', 'Renew'))
    assert message in str(e.value)


def test_guard_stops_a_comment_edit_that_breaks_a_mutation_anchor(covered_repo, capsys):
    # A comment edit no longer needs a sync, so the guard checks what it can still break: the
    # mutations' anchors (TLC could not run them; `execlease verify` would exit 2 at push time).
    import json

    from execlease_hook.cli import main as cli
    from tests.conftest import LEASE_TLA, MANIFEST, MODEL_DIR

    data = json.loads(covered_repo.read(MANIFEST))
    data['mutations'] = [
        {
            'name': 'claim-stands-still',
            'config': 'Lease.cfg',
            'within': 'Claim',
            'replace': {'from': "x' = x + 1", 'to': "x' = x"},
            'violates': 'Inv',
        }
    ]
    covered_repo.write(MANIFEST, json.dumps(data, indent=2) + '\n')
    covered_repo.add(MANIFEST)
    assert cli.main(['guard']) == 0
    covered_repo.commit('a mutation')
    moved = LEASE_TLA.replace("Claim == x' = x + 1", "Claim == x' = 1 + x").replace(
        "Renew == x' = x", "Renew == x' = x + 1"
    )
    covered_repo.write(f'{MODEL_DIR}/Lease.tla', moved)
    covered_repo.add(f'{MODEL_DIR}/Lease.tla')
    assert cli.main(['guard']) == 2
    out = capsys.readouterr().out
    assert (
        'mutation claim-stands-still: replace.from no longer matches within action Claim (Lease.tla:5) '
        '(it is now in Renew (Lease.tla:6))'
    ) in out
