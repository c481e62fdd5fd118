"""A cfg as TLC is given it (docs/architecture.md, the slow stage): deadlock checking decided as
TLC decides it, `CHECK_DEADLOCK` turned into the `-deadlock` flag or its absence (so TLC 2.15,
which lacks the keyword, and TLC 2.19 run the same search), keywords this TLC lacks refused, one
temporal property kept when a job must name the one that fails; and the one cfg lexer.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

# TLC reads these keywords of a config alike in the singular and the plural.
SYNONYMS = {
    'CONSTANT': 'CONSTANTS',
    'INVARIANT': 'INVARIANTS',
    'PROPERTY': 'PROPERTIES',
    'CONSTRAINT': 'CONSTRAINTS',
    'ACTION_CONSTRAINT': 'ACTION_CONSTRAINTS',
}
# Every keyword of a TLC cfg; singular and plural alike.
KEYWORDS = frozenset(
    {*SYNONYMS, *SYNONYMS.values(), 'INIT', 'NEXT', 'SPECIFICATION', 'SYMMETRY', 'VIEW'}
    | {'CHECK_DEADLOCK', 'POSTCONDITION', 'ALIAS', 'TYPE_CONSTRAINT'}
)
PROPERTY_KEYWORDS = ('PROPERTY', 'PROPERTIES')
# What a TLC version's cfg reader does not know (tlc/jar.KNOWN_JARS names the versions; TLC 2.15
# stops with "It was expecting a keyword" at these, tests/spec/cfg_test.py runs it).
LACKS = {'TLC 2.15': ('CHECK_DEADLOCK', 'ALIAS', 'POSTCONDITION')}
# Passed through to the pinned TLC 2.19 (this repository's tests run the offline TLC 2.15 only).
HAS_THEM = (
    'a newer TLC (the pinned TLA+ tools, TLC 2.19; `execlease tools` says which TLC is in use)'
)

# Every byte to a space but the line ends, in one bytes.translate: lines and offsets stay.
BLANK = bytes(b if b in b'\r\n' else 0x20 for b in range(256))
_TOKEN = re.compile(rb'"(?:[^"\\\n]|\\.)*"|<-|[A-Za-z0-9_]+|\S')


@dataclass(frozen=True)
class Token:
    text: str
    start: int
    end: int


def token_matches(source: bytes) -> Iterator[re.Match[bytes]]:
    """The cfg's tokens as regex matches over its bytes; comments (`\\*` to the end of the line,
    nested `(* *)`) left out. The one cfg lexer: tokens here and spec/index.cfg_digest read it."""
    at, end = 0, len(source)
    while at < end:
        if source[at : at + 1].isspace():
            at += 1
        elif source.startswith(b'\\*', at):
            newline = source.find(b'\n', at)
            at = end if newline < 0 else newline + 1
        elif source.startswith(b'(*', at):
            depth, at = 1, at + 2
            while at < end and depth:
                if source.startswith(b'(*', at):
                    depth, at = depth + 1, at + 2
                elif source.startswith(b'*)', at):
                    depth, at = depth - 1, at + 2
                else:
                    at += 1
        else:
            match = _TOKEN.match(source, at)
            assert match is not None  # \S matches any non-space byte
            yield match
            at = match.end()


def without_comments(source: bytes) -> bytes:
    """`source` with its comments blanked, newlines kept (so lines and offsets stay): a cfg or a
    TLA+ module alike, whose comments are the same, read by the same lexer (token_matches)."""
    out = bytearray(source.translate(BLANK))
    for match in token_matches(source):
        out[match.start() : match.end()] = match.group(0)
    return bytes(out)


def tokens(source: bytes) -> Iterator[Token]:
    """The cfg's tokens with their byte offsets (token_matches, decoded)."""
    for match in token_matches(source):
        yield Token(match.group(0).decode('utf-8', 'replace'), match.start(), match.end())


# A run prepares each cfg for several jobs (every mutation of one cfg), each reading its sections
# four times: they are read once per cfg's bytes per process (tokens are frozen, sections tuples).
@functools.lru_cache(maxsize=64)
def sections(source: bytes) -> tuple[tuple[Token, tuple[Token, ...]], ...]:
    """Each keyword with the tokens that follow it up to the next keyword."""
    found: list[tuple[Token, list[Token]]] = []
    for token in tokens(source):
        if token.text in KEYWORDS:
            found.append((token, []))
        elif found:
            found[-1][1].append(token)
    return tuple((keyword, tuple(rest)) for keyword, rest in found)


def names(source: bytes, wanted: tuple[str, ...]) -> list[str]:
    """The names listed after the given keywords (e.g. PROPERTY/PROPERTIES), in order."""
    return [t.text for keyword, rest in sections(source) if keyword.text in wanted for t in rest]


class CfgProblem(ValueError):
    pass


def check_deadlock(source: bytes, config: str) -> bool | None:
    """The cfg's CHECK_DEADLOCK (TRUE/FALSE), or None when it has none."""
    values = [rest for keyword, rest in sections(source) if keyword.text == 'CHECK_DEADLOCK']
    if not values:
        return None
    if len(values) > 1:
        raise CfgProblem(f'{config}: CHECK_DEADLOCK is given {len(values)} times; keep one')
    rest = values[0]
    if len(rest) != 1 or rest[0].text not in ('TRUE', 'FALSE'):
        got = ' '.join(t.text for t in rest) or 'nothing'
        raise CfgProblem(f'{config}: CHECK_DEADLOCK must be followed by TRUE or FALSE, not {got}')
    return rest[0].text == 'TRUE'


def blank(source: bytes, spans: list[tuple[int, int]]) -> bytes:
    """The source with the spans replaced by spaces (newlines kept: TLC's line numbers stay)."""
    out = bytearray(source)
    for start, end in spans:
        out[start:end] = source[start:end].translate(BLANK)
    return bytes(out)


def without_check_deadlock(source: bytes) -> bytes:
    spans = [
        (keyword.start, (rest[-1] if rest else keyword).end)
        for keyword, rest in sections(source)
        if keyword.text == 'CHECK_DEADLOCK'
    ]
    return blank(source, spans)


def only_property(source: bytes, keep: str) -> bytes:
    """The cfg with every PROPERTY entry but `keep` blanked out, and a PROPERTY keyword left with
    nothing after it too (that would be a cfg error)."""
    spans = []
    for keyword, rest in sections(source):
        if keyword.text in PROPERTY_KEYWORDS:
            spans += [(t.start, t.end) for t in rest if t.text != keep]
            if all(t.text != keep for t in rest):
                spans.append((keyword.start, keyword.end))
    return blank(source, spans)


@dataclass(frozen=True)
class Prepared:
    text: bytes  # the cfg TLC reads
    deadlock: bool  # TLC checks deadlock (no -deadlock flag)
    problem: str | None = None  # set: the job cannot run on this TLC
    translated: bool = False  # CHECK_DEADLOCK became the flag, for a TLC that lacks the keyword


def prepare(
    source: bytes,
    config: str,
    deadlock: bool | None,
    tlc_version: str,
    label: str = '',
    expect: str | None = None,
) -> Prepared:
    """The cfg of one job (`label`, e.g. 'finding F2'): `deadlock` is the manifest entry's key
    (None: not given); `expect` what a mutation or finding must violate. A temporal property
    that `expect` names among several PROPERTY entries is kept alone, so that TLC, which does
    not name the temporal property that fails, can only mean that one."""
    try:
        from_cfg = check_deadlock(source, config)
    except CfgProblem as e:
        return Prepared(source, True, problem=f'{e}; fix the cfg')
    checked = deadlock if deadlock is not None else from_cfg if from_cfg is not None else True
    text = source if from_cfg is None else without_check_deadlock(source)
    # The keywords of the cfg that this TLC does not know, CHECK_DEADLOCK aside (translated).
    lacks = next((kws for version, kws in LACKS.items() if tlc_version.startswith(version)), ())
    used = {keyword.text for keyword, _ in sections(source)}
    missing = [k for k in lacks if k in used and k != 'CHECK_DEADLOCK']
    if missing:
        words = ' and '.join(missing)
        problem = (
            f'{label} ({config}): the cfg uses {words}, which {tlc_version} does not know (it stops '
            f'with "expecting a keyword"); run it with {HAS_THEM}, or take {words} out of the cfg'
        )
        return Prepared(text, checked, problem=problem)
    if expect is not None and expect.lower() == 'deadlock' and not checked:
        why = (
            '"deadlock": false on the entry'
            if deadlock is not None
            else 'CHECK_DEADLOCK FALSE in the cfg'
        )
        problem = (
            f'{label} ({config}) must fail on a deadlock, but {why} turns deadlock checking off; '
            'remove it (or set "deadlock": true on the entry)'
        )
        return Prepared(text, checked, problem=problem)
    listed = names(text, PROPERTY_KEYWORDS)
    if expect is not None and expect in listed and len(set(listed)) > 1:
        text = only_property(text, expect)
    translated = from_cfg is not None and deadlock is None and 'CHECK_DEADLOCK' in lacks
    return Prepared(text, checked, translated=translated)


def translation_note(configs: list[str], tlc_version: str) -> str | None:
    """One note for every cfg whose CHECK_DEADLOCK became TLC's -deadlock flag (or its absence)."""
    if not configs:
        return None
    return (
        f'CHECK_DEADLOCK in {", ".join(configs)} is given to {tlc_version}, which lacks the '
        'keyword, as its -deadlock flag (FALSE) or no flag (TRUE): the same search'
    )
