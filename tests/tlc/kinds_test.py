from __future__ import annotations

import ast
from pathlib import Path

import pytest

from execlease_hook.tlc import kinds

PACKAGE = Path(__file__).resolve().parents[2] / 'execlease_hook'


def test_a_kind_that_expects_a_violation_says_what_it_is_when_it_held_and_when_tlc_passed():
    for kind in kinds.KINDS.values():
        if kind.expects == kinds.VIOLATION:
            assert kind.short and kind.still and '{name}' in kind.no_longer
        assert kind.expects in (kinds.PASS, kinds.VIOLATION, kinds.TRACES)


def test_an_unknown_kind_is_named():
    with pytest.raises(
        ValueError, match=r"unknown job kind 'chek' \(known: check, finding, mutation"
    ):
        kinds.kind_of('chek')


def test_the_slow_stage_matches_no_kind_string():
    """A job kind is described once, in tlc/kinds.py: verify/ compares no `.kind` with a literal."""
    found = []
    for path in (PACKAGE / 'verify').glob('*.py'):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Compare)
                and isinstance(node.left, ast.Attribute)
                and node.left.attr == 'kind'
            ):
                if any(
                    isinstance(c, ast.Constant) and c.value in kinds.KINDS for c in node.comparators
                ):
                    found.append(f'{path.name}:{node.lineno}')
    assert not found
