"""Where a region's anchor stands, by its tokens: formatting (whitespace, line breaks, comments,
quotes, a trailing comma: what the fingerprint scheme reads as the same) never moves it.

The tokens come from a `Tokenizer` (fingerprint/tokens.py, a layer above: it reads the
fingerprint rules), for the source and for the anchor's own text alike. A match takes every
token of the anchor in order, each equal to the source's (its key: its text, or a literal's
value), skipping on either side only tokens marked optional (a trailing comma, a parenthesis
that only groups). As with exact text, the anchor's first token may be the end of a source token
and its last token the start of one (`return row` matches `return rows`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

# (key, start byte, end byte, optional): see fingerprint/tokens.py
Token = tuple[bytes, int, int, bool]
# tokens(language, source, low, high): the tokens of `source` overlapping bytes [low, high)
Tokenizer = Callable[[str, bytes, int, 'int | None'], list[Token]]


def open_ended(anchor: list[Token]) -> list[Token]:
    """An anchor's tokens, a comma at its end optional: the anchor cannot say whether it is a
    trailing comma (the bracket that would tell is beyond it), and formatters add and remove those."""
    if anchor and anchor[-1][0] == b',':
        anchor = [*anchor[:-1], (b',', anchor[-1][1], anchor[-1][2], True)]
    return anchor


def find(
    anchor: Sequence[Token], text: bytes, found: Sequence[Token], source: bytes
) -> list[tuple[int, int]]:
    """(start byte, end byte) in `source` of each place the anchor's tokens (of its `text`) occur
    among `found`; a match lying inside another one is the same place."""
    if not any(not optional for *_, optional in anchor):
        return []
    spans: list[tuple[int, int]] = []
    head = anchor[0]
    for at in range(len(found)):
        if not head[3] and not _same(head, text, found[at], source, True, len(anchor) == 1):
            continue
        end = match(anchor, text, found, source, at)[0]
        if end is not None:
            spans.append((found[at][1], found[end][2]))
    return outermost(spans)


def outermost(spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans not inside another one, in order: a match lying inside another is its place."""
    return sorted(
        s for s in spans if not any(o != s and o[0] <= s[0] and s[1] <= o[1] for o in spans)
    )


def closest(
    anchor: Sequence[Token], text: bytes, found: Sequence[Token], source: bytes
) -> tuple[int, int | None, int]:
    """How far the anchor matches at its best place: (how many of its tokens matched, the index
    in `found` of the token that differs, None when the source ended; the index where it starts)."""
    best: tuple[int, int | None, int] = (0, None, 0)
    for at in range(len(found)):
        _, reached, fails = match(anchor, text, found, source, at)
        if reached > best[0]:
            best = (reached, fails, at)
    return best


def match(
    anchor: Sequence[Token], text: bytes, found: Sequence[Token], source: bytes, at: int
) -> tuple[int | None, int, int | None]:
    """Match the anchor from found[at] on: (index of the last source token matched, or None;
    the most anchor tokens matched; the source token where that attempt stopped)."""
    last = len(anchor) - 1
    # depth-first over (source index, anchor index, index of the last token matched)
    stack: list[tuple[int, int, int]] = [(at, 0, -1)]
    seen: set[tuple[int, int, bool]] = set()
    reached, fails = 0, None
    while stack:
        i, j, matched = stack.pop()
        if j > last:
            if matched >= 0:
                return matched, len(anchor), None
            continue
        state = (i, j, matched >= 0)
        if state in seen:
            continue
        seen.add(state)
        if j > reached or (j == reached and fails is None):
            reached, fails = j, i if i < len(found) else None
        moves: list[tuple[int, int, int]] = []
        if matched >= 0 and i < len(found) and found[i][3]:
            moves.append((i + 1, j, matched))  # an optional source token skipped
        if anchor[j][3]:
            moves.append((i, j + 1, matched))  # an optional anchor token skipped
        if i < len(found) and _same(anchor[j], text, found[i], source, j == 0, j == last):
            moves.append((i + 1, j + 1, i))  # tried first
        stack.extend(moves)
    return None, reached, fails


def _same(mine: Token, text: bytes, theirs: Token, source: bytes, first: bool, last: bool) -> bool:
    if mine[0] == theirs[0]:
        return True
    if not (first or last):
        return False
    if (
        mine[0].startswith(_STRING)
        and mine[0] == _STRING + b'%d:' % len(theirs[0]) + theirs[0] + b')'
    ):
        return True  # `"a"` at an anchor's edge, outside the syntax that makes it a name: `a`
    spelled, written = text[mine[1] : mine[2]], source[theirs[1] : theirs[2]]
    if first and last:
        return spelled in written
    return written.endswith(spelled) if first else written.startswith(spelled)


_STRING = b'\0(vs:"'  # a text literal's key: its value (fingerprint/tokens.py, ts2.value)
