"""A region whose anchor the staged code no longer has, or has more than once: the anchors that
stand where the synced region stood, as the manifest lines to paste.

The synced file (the entry's synced blob, else the file at the sync commit) and the staged one
are read as tokens (fingerprint/tokens.py) and lined up; the synced region's first and last
tokens then have a place in the staged file, and the proposed `from` is the shortest run of
tokens from there that the locator finds exactly once (the `to`: the shortest run ending there).
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from execlease_hook.core.errors import CannotRun
from execlease_hook.fingerprint.tokens import tokens
from execlease_hook.locate import anchor
from execlease_hook.locate.entry import find_functions, locate
from execlease_hook.locate.region import Places
from execlease_hook.locate.source import language_for, line_of
from execlease_hook.manifest.model import CoveredEntry, Region

if TYPE_CHECKING:
    from execlease_hook.locate.anchor import Token

_LONGEST = 64  # tokens in a proposed anchor at most
_ALIGNED = 20000  # tokens of a changed stretch lined up one by one at most (difflib is quadratic)


@dataclass(frozen=True)
class Fix:
    region: Region  # the anchors to paste
    why: tuple[str, ...]  # per replaced anchor: where its tokens stop matching the code


def replacement(e: CoveredEntry, staged: bytes, synced: bytes | None, max_bytes: int) -> Fix | None:
    """The region with each anchor that is not found exactly once in `staged` replaced by the
    shortest token run at the synced region's place; None when there is no such place."""
    language = language_for(e.path)
    if language is None or e.region is None:
        return None
    if synced is None:
        return _guessed(e, staged, language, max_bytes)
    try:
        before = locate(e, synced, tokens, max_bytes)
    except CannotRun:
        return None
    now, then = _scope(e, staged, max_bytes), _scope(e, synced, max_bytes)
    if now is None or then is None:
        return None
    old, new = tokens(language, synced, *then), tokens(language, staged, *now)
    first = next((i for i, t in enumerate(old) if t[2] > before.start_byte), None)
    last = next((i for i in range(len(old) - 1, -1, -1) if old[i][1] < before.end_byte), None)
    if first is None or last is None or not new:
        return None
    start_at, end_at = _moved(old, new, first, False), _moved(old, new, last, True)
    if start_at is None or end_at is None or end_at < start_at:
        return None
    places, was = Places(staged, *now, language, tokens), Places(synced, *then, language, tokens)
    start, end, why = e.region.start, e.region.end, []
    if len(places.find(start)) != 1:
        start = _shortest(places, new, start_at, end_at, staged, forward=True) or start
        why.append(_differs('from', e.region.start, language, new, start_at, staged))
    if len(places.find(end)) != 1:
        end = _shortest(places, new, end_at, start_at, staged, forward=False) or end
        was_at = was.find(e.region.end)
        index = next((i for i, t in enumerate(old) if was_at and t[2] > was_at[0][0]), None)
        moved = _moved(old, new, index, False) if index is not None else None
        if moved is not None:
            why.append(_differs('to', e.region.end, language, new, moved, staged))
    if (start, end) == (e.region.start, e.region.end):
        return None
    region = Region(start, end)
    try:
        locate(replace(e, region=region), staged, tokens, max_bytes)
    except CannotRun:
        return None
    return Fix(region, tuple(w for w in why if w))


def _guessed(e: CoveredEntry, staged: bytes, language: str, max_bytes: int) -> Fix | None:
    """Without a synced copy (an entry never synced): each anchor that fails replaced at the place
    where most of its tokens still match, if any do."""
    assert e.region is not None
    now = _scope(e, staged, max_bytes)
    if now is None:
        return None
    places, new = Places(staged, *now, language, tokens), tokens(language, staged, *now)
    anchors = {'from': e.region.start, 'to': e.region.end}
    for key, wanted in anchors.items():
        if len(places.find(wanted)) == 1:
            continue
        text = wanted.encode('utf-8')
        mine = anchor.open_ended(tokens(language, text, 0, None))
        matched, _, at = anchor.closest(mine, text, new, staged)
        if matched == 0:
            return None
        forward = key == 'from'
        start = at if forward else min(len(new) - 1, at + len(mine) - 1)
        found = _shortest(places, new, start, len(new) - 1 if forward else 0, staged, forward)
        if found is None:
            return None
        anchors[key] = found
    region = Region(anchors['from'], anchors['to'])
    if region == e.region:
        return None
    try:
        locate(replace(e, region=region), staged, tokens, max_bytes)
    except CannotRun:
        return None
    return Fix(region, ())


def _differs(
    key: str, anchor_text: str, language: str, new: list[Token], at: int, staged: bytes
) -> str:
    """Which token of the anchor the staged code does not have at the anchor's synced place."""
    text = anchor_text.encode('utf-8')
    mine = anchor.open_ended(tokens(language, text, 0, None))
    end, matched, fails = anchor.match(mine, text, new, staged, at)
    if end is not None or not mine:
        return ''
    place = f'`{key}`: at its synced place (line {line_of(staged, new[at][1])})'
    if matched == 0:
        code, anchor_starts = _spelled(staged, new[at]), _spelled(text, mine[0])
        return f'{place} the code starts with {code}, not {anchor_starts}'
    there = (
        'nothing'
        if fails is None
        else f'{_spelled(staged, new[fails])} (line {line_of(staged, new[fails][1])})'
    )
    wanted = _spelled(text, mine[matched]) if matched < len(mine) else 'its end'
    return (
        f'{place} its tokens match up to {_spelled(text, mine[matched - 1])}; then the anchor '
        f'says {wanted}, the code {there}'
    )


def _spelled(text: bytes, token: Token) -> str:
    return repr(text[token[1] : token[2]].decode('utf-8', errors='replace'))


def manifest_edit(
    e: CoveredEntry, region: Region, at: str, manifest_text: str, line: int | None
) -> list[str]:
    """The lines that say which anchors to change to what, in the manifest's own spelling."""
    assert e.region is not None
    out = []
    text = manifest_text.splitlines() if line is not None else []
    for key, old, new in (('from', e.region.start, region.start), ('to', e.region.end, region.end)):
        if old == new:
            continue
        # The line of `"key":` in the manifest's text, the first one from the entry's line on.
        where = next(
            (n for n in range(line or 1, len(text) + 1) if f'"{key}"' in text[n - 1]), None
        )
        place = f'{at.split(":")[0]}:{where}' if where else at
        out.append(
            f'  {place}: change "{key}": {json.dumps(old, ensure_ascii=False)} '
            f'to "{key}": {json.dumps(new, ensure_ascii=False)}'
        )
    return out


def _scope(e: CoveredEntry, source: bytes, max_bytes: int) -> tuple[int, int] | None:
    if e.within is None:
        return 0, len(source)
    hits = find_functions(e.path, source, e.within, max_bytes)
    return (hits[0].start_byte, hits[0].end_byte) if len(hits) == 1 else None


def _moved(old: list[Token], new: list[Token], index: int, end: bool) -> int | None:
    """The index in `new` of the token at `index` in `old`: the same token where the two agree,
    else the edge of what replaced it (its first token for a region's start, its last for its end)."""
    keys_old, keys_new = [t[0] for t in old], [t[0] for t in new]
    head = tail = 0
    while head < min(len(old), len(new)) and keys_old[head] == keys_new[head]:
        head += 1
    while tail < min(len(old), len(new)) - head and keys_old[-1 - tail] == keys_new[-1 - tail]:
        tail += 1
    if index < head:
        return index
    if index >= len(old) - tail:
        return index - len(old) + len(new)
    middle_old, middle_new = keys_old[head : len(old) - tail], keys_new[head : len(new) - tail]
    if not middle_new:
        return None
    if len(middle_old) > _ALIGNED or len(middle_new) > _ALIGNED:
        return head if not end else len(new) - tail - 1
    at = index - head
    matcher = difflib.SequenceMatcher(None, middle_old, middle_new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if i1 <= at < i2:
            if tag == 'equal':
                return head + j1 + at - i1
            if j2 > j1:
                return head + (j2 - 1 if end else j1)
            near = head + j1 - (1 if end else 0)  # deleted: the token beside the gap
            return near if 0 <= near < len(new) else None
    return None


def _shortest(
    places: Places, new: list[Token], at: int, bound: int, staged: bytes, forward: bool
) -> str | None:
    """The shortest run of tokens from new[at] on (back from it when not `forward`, never past
    `bound`) that the locator finds exactly once, there."""
    while 0 <= at < len(new) and new[at][3] and at != bound:  # begin on a token that counts
        at += 1 if forward else -1
    for length in range(1, _LONGEST + 1):
        other = at + length - 1 if forward else at - length + 1
        if not 0 <= other < len(new) or (other > bound if forward else other < bound):
            return None
        first, last = (new[at], new[other]) if forward else (new[other], new[at])
        if new[other][3]:
            continue  # an anchor does not end on a token that may go
        text = staged[first[1] : last[2]].decode('utf-8')
        if places.find(text) == [(first[1], last[2])]:
            return text
    return None
