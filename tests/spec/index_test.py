from __future__ import annotations

from pathlib import Path

import pytest

from execlease_hook.core.errors import CannotRun
from execlease_hook.spec import index as spec_index

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / 'verification' / 'execution-lease'

SPEC = b"""\
notes before the module are not read by TLC
---- MODULE M ----
EXTENDS Naturals
CONSTANT N
VARIABLE x
ASSUME N > 0
ASSUME N < 10

\\* the claim
Claim(r) ==
    /\\ x < N            \\* guard
    /\\ x' = x + r       \\* trailing comment

(* between *)
LOCAL Helper == 1
f[i \\in 1..N] == i
a \\oplus b == a + b
I == INSTANCE Naturals
Name == "a \\* not a comment"
Next == \\E r \\in 1..2 : Claim(r)
====
text after the module
"""


def index(source: bytes = SPEC) -> spec_index.SpecIndex:
    return spec_index.read_spec(source, 'M.tla')


def test_units_with_keys_and_lines():
    ix = index()
    assert ix.module == 'M'
    assert [(u.key, u.start_line, u.end_line, u.definition) for u in ix.units] == [
        ('EXTENDS', 3, 3, False),
        ('CONSTANTS', 4, 4, False),
        ('VARIABLES', 5, 5, False),
        ('ASSUME', 6, 6, False),
        ('ASSUME#2', 7, 7, False),
        ('Claim', 10, 12, True),  # the trailing comments and blank lines are not part of it
        ('Helper', 15, 15, True),
        ('f', 16, 16, True),
        ('\\oplus', 17, 17, True),
        ('I', 18, 18, True),
        ('Name', 19, 19, True),
        ('Next', 20, 20, True),
    ]
    assert ix.where(ix.definitions()['Claim']) == 'M.tla:10-12'
    assert ix.where(ix.definitions()['Next']) == 'M.tla:20'


def digests(source: bytes) -> dict[str, str]:
    return index(source).digests()


@pytest.mark.parametrize(
    ('old', 'new'),
    (
        pytest.param(b'\\* guard', b'\\* the guard, reworded', id='line-comment'),
        pytest.param(b'(* between *)', b'(* between,\n   on two lines *)', id='block-comment'),
        pytest.param(b'\\* the claim\n', b'', id='comment-removed'),
        pytest.param(b'x < N   ', b'x<N', id='spaces'),
        pytest.param(b'Next == \\E', b'Next ==\n    \\E', id='line-break'),
        pytest.param(b'notes before', b'other notes before', id='before-the-module'),
        pytest.param(b'text after', b'other text after', id='after-the-module'),
        pytest.param(b'\n\n(* between', b'\n\n\n\n(* between', id='blank-lines'),
        pytest.param(b'\n', b'\r\n', id='crlf'),
    ),
)
def test_comments_and_layout_change_no_fingerprint(old, new):
    assert old in SPEC
    assert digests(SPEC.replace(old, new)) == digests(SPEC)


@pytest.mark.parametrize(
    ('old', 'new', 'changed'),
    (
        pytest.param(b"x' = x + r", b"x' = x + r + 1", {'Claim'}, id='expression'),
        pytest.param(
            b'"a \\* not a comment"', b'"a \\*  not a comment"', {'Name'}, id='string-contents'
        ),
        pytest.param(b'CONSTANT N', b'CONSTANTS N, K', {'CONSTANTS'}, id='declaration'),
        pytest.param(b'ASSUME N < 10', b'ASSUME N < 11', {'ASSUME#2'}, id='second-assume'),
        pytest.param(b'LOCAL Helper', b'Helper', {'Helper'}, id='local'),
        pytest.param(b'a + b', b'b + a', {'\\oplus'}, id='infix-definition'),
        pytest.param(b'INSTANCE Naturals', b'INSTANCE Sequences', {'I'}, id='instance'),
        # The same tokens, re-indented so that the second conjunct is no longer a bullet of the
        # first list: the tree changes, so the fingerprint does.
        pytest.param(
            b"    /\\ x' = x + r", b"            /\\ x' = x + r", {'Claim'}, id='bullet-nesting'
        ),
    ),
)
def test_meaningful_edits_change_exactly_their_unit(old, new, changed):
    assert old in SPEC
    before, after = digests(SPEC), digests(SPEC.replace(old, new))
    assert {k for k in before if before[k] != after.get(k)} == changed


def test_a_syntax_error_is_a_change():
    broken = SPEC.replace(b'x < N ', b'x < < N ')
    assert digests(broken) != digests(SPEC)


@pytest.mark.parametrize(
    ('source', 'message'),
    (
        pytest.param(
            b'no module here\n', 'no `---- MODULE Name ----` header found', id='no-module'
        ),
        pytest.param(
            b'---- MODULE M ----\nX == "\xff"\n====\n',
            'not UTF-8 (first bad byte on line 2)',
            id='not-utf8',
        ),
    ),
)
def test_unreadable_specs(source, message):
    with pytest.raises(
        CannotRun, match='M.tla: ' + message.replace('(', r'\(').replace(')', r'\)')
    ):
        index(source)


def test_pluscal_algorithm_is_a_unit():
    spec = b'---- MODULE P ----\n(* --algorithm a\nvariables y = 0;\nbegin\n  y := 1;\nend algorithm; *)\n====\n'
    keys = [u.key for u in index(spec).units]
    assert keys == ['PlusCal a']
    edited = spec.replace(b'y := 1', b'y := 2')
    assert digests(edited) != digests(spec)


def test_shipped_spec():
    ix = spec_index.read_spec((SHIPPED / 'ExecutionLease.tla').read_bytes(), 'ExecutionLease.tla')
    definitions = ix.definitions()
    for name in (
        'Claim',
        'Renew',
        'Release',
        'Expire',
        'BeginStep',
        'Effect',
        'CompleteStep',
        'FinishTurn',
        'Crash',
        'Flip',
        'Next',
        'P8',
        'P1',
        'P6',
    ):
        assert name in definitions
    claim = definitions['Claim']
    lines = (SHIPPED / 'ExecutionLease.tla').read_text().splitlines()
    assert lines[claim.start_line - 1].startswith('Claim(r) ==')
    assert lines[claim.end_line - 1].strip().startswith('/\\ UNCHANGED')


@pytest.mark.parametrize(
    ('old', 'new', 'same'),
    (
        pytest.param('INIT Init', '\\* the start\nINIT   Init', True, id='comment-and-spaces'),
        pytest.param(
            'INIT Init', '(* nested (* comment *) *) INIT Init', True, id='nested-block-comment'
        ),
        pytest.param('INVARIANTS', 'INVARIANT', True, id='singular-keyword'),
        pytest.param('CONSTANTS', 'CONSTANT', True, id='singular-constants'),
        pytest.param('MaxGen = 3', 'MaxGen = 4', False, id='constant-value'),
        pytest.param('    P8\n', '', False, id='invariant-dropped'),
        pytest.param('INIT Init', 'INIT Init2', False, id='init-renamed'),
        pytest.param('"never", "always"', '"always", "never"', False, id='order'),
    ),
)
def test_cfg_meaning(old, new, same):
    cfg = (SHIPPED / 'ExecutionLease.cfg').read_text()
    assert old in cfg
    edited = cfg.replace(old, new, 1)
    assert (spec_index.cfg_digest(edited.encode()) == spec_index.cfg_digest(cfg.encode())) is same
