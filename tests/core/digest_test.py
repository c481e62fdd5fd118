from __future__ import annotations

import pytest

from execlease_hook.core.digest import length_prefixed, tagged_field, tagged_gap


@pytest.mark.parametrize(
    ('encoded', 'expected'),
    (
        pytest.param(length_prefixed(b''), b'0\0', id='empty'),
        pytest.param(length_prefixed(b'abc'), b'3\0abc', id='nul'),
        pytest.param(tagged_field(b'n', b'if'), b'n2:if', id='tagged'),
        pytest.param(tagged_gap(b'  a \n b ', False), b'g3:a b', id='gap-collapsed'),
        pytest.param(tagged_gap(b'  a \n', True), b'g5:  a \n', id='gap-verbatim'),
        pytest.param(tagged_gap(b' \n ', False), b'', id='gap-only-whitespace'),
    ),
)
def test_the_encoding(encoded, expected):
    assert encoded == expected


def test_no_two_sequences_of_fields_encode_alike():
    assert length_prefixed(b'ab') + length_prefixed(b'c') != length_prefixed(
        b'a'
    ) + length_prefixed(b'bc')
