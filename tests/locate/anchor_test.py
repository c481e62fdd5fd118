"""The anchor matcher on its own (locate/anchor.py): tokens written as words, `?` after one marks
it optional (what fingerprint/tokens.py marks: a trailing comma, a grouping parenthesis); the
places found are shown as the code's words."""

from __future__ import annotations

import pytest

from execlease_hook.locate import anchor


def tokens(spec: str) -> tuple[list[anchor.Token], bytes]:
    """`a b? c` -> the tokens a, b (optional), c of the text `a b c`."""
    out, text, at = [], b'', 0
    for word in spec.split():
        optional = word.endswith('?') and len(word) > 1
        word = word.rstrip('?') if optional else word
        raw = word.encode()
        out.append((raw, at, at + len(raw), optional))
        text += raw + b' '
        at += len(raw) + 1
    return out, text


def places(mine: str, code: str) -> list[str]:
    a, text = tokens(mine)
    s, source = tokens(code)
    return [source[x:y].decode() for x, y in anchor.find(anchor.open_ended(a), text, s, source)]


@pytest.mark.parametrize(
    ('mine', 'code', 'expected'),
    (
        pytest.param('f ( a )', 'x = f ( a ) + f ( b )', ['f ( a )'], id='once'),
        pytest.param('f ( a )', 'f ( a ) ; f ( a )', ['f ( a )', 'f ( a )'], id='twice'),
        pytest.param(
            'f ( a , b )', 'f ( a , b ,? )', ['f ( a , b , )'], id='a trailing comma in the code'
        ),
        pytest.param(
            'f ( a , b ,? )', 'f ( a , b )', ['f ( a , b )'], id='a trailing comma in the anchor'
        ),
        pytest.param('if (? x )?', 'if x :', ['if x'], id='grouping parentheses gone'),
        pytest.param('if x', 'if (? x )? :', ['if ( x'], id='grouping parentheses added'),
        pytest.param('return row', 'return rows', ['return rows'], id='the last token a prefix'),
        pytest.param('ow = 1', 'row = 1', ['row = 1'], id='the first token a suffix'),
        pytest.param('a = ow', 'a = row', [], id='only the first may be a suffix'),
        pytest.param('a != b', 'a == b', [], id='an operator is exact'),
        pytest.param('x ,', 'f ( x )', ['x'], id='a comma ending the anchor may be trailing'),
        pytest.param(',? )?', 'f ( x , )', [], id='nothing but optional tokens'),
    ),
)
def test_find(mine, code, expected):
    assert places(mine, code) == expected


def test_an_optional_token_of_the_code_still_matches_the_same_token_of_the_anchor():
    assert places('x )', '(? x )?') == ['x )']
    assert places('( x', '(? x )?') == ['( x']


def test_closest_names_where_the_anchor_stops_matching():
    a, text = tokens('if err != nil')
    s, source = tokens('x := 1 if err == nil { }')
    matched, at, start = anchor.closest(a, text, s, source)
    assert at is not None
    assert (
        matched == 2
        and source[s[at][1] : s[at][2]] == b'=='
        and source[s[start][1] : s[start][2]] == b'if'
    )
