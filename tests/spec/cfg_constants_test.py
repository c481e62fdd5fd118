"""cfg_constants.py: a cfg's constants given other values, everything else kept."""

from __future__ import annotations

import pytest

from execlease_hook.spec import cfg_constants

SHIPPED = """\\* a comment that says MaxGen = 9
CONSTANTS
    Runs = {r1, r2, r3}
    None = None
    MaxGen = 3   \\* generations
    Pair = <<1, {2, 3}>>
    Name = "x = 1"
    RunId <- SharedRunId
INIT Init
NEXT Next
INVARIANTS
    TypeOK
"""


def test_values_are_replaced_in_place():
    text = cfg_constants.override(SHIPPED, [('MaxGen', '4'), ('Runs', '{r1, r2, r3, r4}')])
    assert text == SHIPPED.replace('MaxGen = 3', 'MaxGen = 4').replace(
        '{r1, r2, r3}', '{r1, r2, r3, r4}'
    )


def test_every_assignment_is_found_with_its_whole_value():
    spans = cfg_constants.assignments(SHIPPED)
    assert {name: SHIPPED[a:b] for name, [(a, b)] in spans.items()} == {
        'Runs': '= {r1, r2, r3}',
        'None': '= None',
        'MaxGen': '= 3',
        'Pair': '= <<1, {2, 3}>>',
        'Name': '= "x = 1"',
        'RunId': '<- SharedRunId',
    }


def test_a_substitution_and_a_one_line_cfg():
    assert (
        cfg_constants.override(SHIPPED, [('RunId', '<- OwnRunId')]).count('RunId <- OwnRunId') == 1
    )
    assert (
        cfg_constants.override('CONSTANT N = 3 M=2\nINIT Init\n', [('M', '5'), ('N', '7')])
        == 'CONSTANT N = 7 M = 5\nINIT Init\n'
    )


@pytest.mark.parametrize('name', ('MaxGen2', 'TypeOK', 'Init'))
def test_a_constant_the_cfg_does_not_assign_is_an_error(name):
    with pytest.raises(
        ValueError,
        match=f'the cfg assigns no constant {name} '
        r'\(it assigns: MaxGen, Name, None, Pair, RunId, Runs\)',
    ):
        cfg_constants.override(SHIPPED, [(name, '1')])


def test_every_cfg_keyword_ends_a_constant_section_and_offsets_are_characters():
    # One lexer and one keyword list for every reader of a cfg: TYPE_CONSTRAINT (which the
    # cfg readers once disagreed on) ends the CONSTANT section; a non-ASCII comment before the
    # assignment does not shift where the value is replaced.
    text = '\\* Größe\nCONSTANT N = 3\nTYPE_CONSTRAINT Bound\n'
    assert (
        cfg_constants.override(text, [('N', '4')])
        == '\\* Größe\nCONSTANT N = 4\nTYPE_CONSTRAINT Bound\n'
    )


def test_a_constant_assigned_twice_has_both_spans_and_the_first_is_replaced():
    text = 'CONSTANT X = 1\nCONSTANT X = 2\n'
    assert cfg_constants.assignments(text)['X'] == [(11, 14), (26, 29)]
    assert cfg_constants.override(text, [('X', '3')]) == 'CONSTANT X = 3\nCONSTANT X = 2\n'
