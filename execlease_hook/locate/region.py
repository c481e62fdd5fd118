"""Anchored regions: from the start of `from` to the end of `to`, each found exactly once.

An anchor is where its exact text occurs once; otherwise where its tokens occur once
(locate/anchor.py), so formatting the code never loses it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from execlease_hook.core.errors import CannotRun
from execlease_hook.locate import anchor
from execlease_hook.locate.anchor import Token, Tokenizer
from execlease_hook.locate.definition import Located
from execlease_hook.locate.source import line_of

if TYPE_CHECKING:
    from execlease_hook.manifest.model import CoveredEntry


def find_region(
    entry: CoveredEntry,
    source: bytes,
    scope: Located | None,
    language: str = '',
    tokens: Tokenizer | None = None,
) -> tuple[int, int]:
    """(start byte, end byte) of the region; `scope` is the `within` function, if any. Without
    `tokens` an anchor is found by its exact text only."""
    assert entry.region is not None
    low, high = (scope.start_byte, scope.end_byte) if scope is not None else (0, len(source))
    where = f'in {entry.path}'
    if scope is not None:
        where += f' within {entry.within!r} (lines {scope.start_line}-{scope.end_line})'
    prefix = f'coverage entry {entry.id!r}'
    places = Places(source, low, high, language, tokens)
    start, from_end = places.once(entry.region.start, 'region.from', prefix, where)
    to_start, end = places.once(entry.region.end, 'region.to', prefix, where)
    if to_start < start or end < from_end:
        raise CannotRun(
            f'{prefix}: `region.to` {_show(entry.region.end)} (line {line_of(source, to_start)}) comes before '
            f'`region.from` {_show(entry.region.start)} (line {line_of(source, start)}) {where}; '
            f'swap or correct the anchors',
        )
    return start, end


@dataclass
class Places:
    """Where anchors stand in one scope (bytes [low, high)) of a source."""

    source: bytes
    low: int
    high: int
    language: str
    tokens: Tokenizer | None

    def find(self, anchor_text: str) -> list[tuple[int, int]]:
        """(start byte, end byte) of each place of the anchor: its exact text when that occurs
        once, else each place of its tokens (or of its text, when its tokens are nowhere)."""
        source, low, high = self.source, self.low, self.high
        needle = anchor_text.encode('utf-8')
        exact = []
        at = source.find(needle, low, high) if needle else -1
        while at != -1:
            exact.append((at, at + len(needle)))
            at = source.find(needle, at + 1, high)
        if len(exact) == 1 or self.tokens is None or not needle:
            return exact

        mine = anchor.open_ended(self.tokens(self.language, needle, 0, None))
        if all(optional for *_, optional in mine):
            return exact  # a comment (`# region: begin`) is found by its text alone
        found: set[tuple[int, int]] = set()
        for near_low, near_high in self._near(mine, needle):
            near = self.tokens(self.language, source, near_low, near_high)
            found.update(
                (a, b) for a, b in anchor.find(mine, needle, near, source) if a < high and b > low
            )
        spans = anchor.outermost(list(found))
        # Text found more than once that is no tokens (inside strings: `UPDATE lease`) stays ambiguous.
        return spans or exact

    def _near(self, mine: list[Token], needle: bytes) -> list[tuple[int, int]]:
        """The stretches of the scope an anchor's tokens can stand in: around each place of its
        rarest token that the code must spell as the anchor does (reading the tokens of a whole
        large file costs more than the rest of a commit; a match reaches _NEAR bytes, plus the
        anchor's length eight times, either side of that token)."""
        spelled = {key for key, a, b, optional in mine if not optional and key == needle[a:b]}
        if not spelled:
            return [(self.low, self.high)]
        word = min(spelled, key=lambda w: (self.source.count(w, self.low, self.high), -len(w)))
        reach = _NEAR + 8 * len(needle)
        stretches: list[tuple[int, int]] = []
        at = self.source.find(word, self.low, self.high)
        while at != -1:
            start, end = max(self.low, at - reach), min(self.high, at + len(word) + reach)
            if stretches and start <= stretches[-1][1]:
                stretches[-1] = (stretches[-1][0], end)
            else:
                stretches.append((start, end))
            at = self.source.find(word, at + 1, self.high)
        return stretches

    def once(self, anchor_text: str, key: str, prefix: str, where: str) -> tuple[int, int]:
        needle = anchor_text.encode('utf-8')
        if not needle:
            raise CannotRun(
                f'{prefix}: `{key}` is empty; give the text where the region starts/ends'
            )
        found = self.find(anchor_text)
        if len(found) == 1:
            return found[0]
        if not found:
            hint = '; update the anchor to text that is in the code'
            if self.tokens is not None:
                hint = f'{self._differs(needle)}; update the anchor to code that is there'
            raise CannotRun(f'{prefix}: `{key}` {_show(anchor_text)} not found {where}{hint}')
        lines = ', '.join(
            str(line) for line in sorted({line_of(self.source, at) for at, _ in found})
        )
        hint = 'make the anchor longer'
        if ' within ' not in where:
            hint += ' or narrow the search with `within`'
        raise CannotRun(
            f'{prefix}: `{key}` {_show(anchor_text)} occurs {len(found)} times {where}, on lines {lines}; '
            f'it must occur exactly once: {hint}',
        )

    def _differs(self, needle: bytes) -> str:
        """Which token of the anchor the code no longer has, where the anchor matches best."""
        assert self.tokens is not None
        mine = anchor.open_ended(self.tokens(self.language, needle, 0, None))
        if not any(not optional for *_, optional in mine):
            return ' (it holds no code, only a comment: that is found by its exact text)'
        found = self.tokens(self.language, self.source, self.low, self.high)
        matched, at, _ = anchor.closest(mine, needle, found, self.source)
        if matched == 0:
            return f' (no token of the code is its first, {_token(needle, mine[0])})'
        wanted = _token(needle, mine[matched]) if matched < len(mine) else 'its end'
        there = (
            f'{_token(self.source, found[at])} on line {line_of(self.source, found[at][1])}'
            if at is not None
            else 'the end of the scope'
        )
        done = _token(needle, mine[matched - 1])
        return f' (its tokens match up to {done}; then the anchor says {wanted}, the code {there})'


_NEAR = 1024


def _token(text: bytes, token: Token) -> str:
    return repr(text[token[1] : token[2]].decode('utf-8', errors='replace'))


def _show(anchor_text: str) -> str:
    return repr(anchor_text if len(anchor_text) <= 60 else anchor_text[:57] + '...')
