"""A covered entry located in a source file: a function by qualified name, or an anchored region
widened to whole tokens. `Located` itself is locate/definition.py's.

A definition is found by name without walking the tree: the last part of the name is searched in
the bytes and each occurrence asks the language's family module (its row in locate/languages.py)
whether it names a definition (a 60 KB file is searched in well under a millisecond). The full
walk (every_definition) is for the watch rules and error messages.

`max_bytes`: the largest covered file that is parsed (EXECLEASE_MAX_COVERED_MB, read by
core/settings.py; its default here is that variable's).
"""

from __future__ import annotations

import difflib
from itertools import takewhile
from typing import TYPE_CHECKING

from execlease_hook.core.errors import CannotRun
from execlease_hook.core.settings import Settings
from execlease_hook.locate.anchor import Tokenizer
from execlease_hook.locate.definition import Definition, Located, Node, ancestors
from execlease_hook.locate.languages import LANGUAGES
from execlease_hook.locate.region import find_region
from execlease_hook.locate.source import check_text, line_of, parse, require_language

if TYPE_CHECKING:
    from execlease_hook.manifest.model import CoveredEntry

MAX_BYTES = Settings().max_covered_bytes


def locate(
    entry: CoveredEntry, source: bytes, tokens: Tokenizer | None = None, max_bytes: int = MAX_BYTES
) -> Located:
    """The entry in `source`; a region's anchors by their tokens too when `tokens` is given
    (fingerprint/tokens.py's: see locate/region.py)."""
    what = f'coverage entry {entry.id!r}'
    language = require_language(entry.path, what)
    check_text(entry.path, source, what, max_bytes)
    if entry.function is not None:
        return _one(entry, source, language, 'function')
    if entry.region is None:
        raise CannotRun(f'{what} ({entry.path}): give either `function` or `region`')
    scope = _one(entry, source, language, 'within') if entry.within is not None else None
    start, end = find_region(entry, source, scope, language, tokens)
    return _region(entry.id, entry.path, source, language, start, end)


def _region(
    entry_id: str, path: str, source: bytes, language: str, start: int, end: int
) -> Located:
    root = parse(language, source).root_node
    # Widened so that no token (or string literal, of the row's `literals`) is cut: an anchor that
    # ends inside `rows` covers all of `rows`, so an edit to the part of a token beyond the anchor
    # is still seen.
    if end > start:
        literals = LANGUAGES[language].literals
        first, last = _token_at(root, start, literals), _token_at(root, end - 1, literals)
        start = min(start, first.start_byte) if first is not None else start
        end = max(end, last.end_byte) if last is not None else end
    covering = root.descendant_for_byte_range(start, end)
    if covering is None or covering.start_byte > start or covering.end_byte < end:
        covering = root  # the fingerprint must see every byte of the region
    return _located(entry_id, path, source, (covering,), (start, end))


def edge_variants(located: Located, source: bytes, tokens: Tokenizer) -> list[Located]:
    """The region with the optional tokens at its edges (a `;`, a trailing comma, a parenthesis
    that only groups: fingerprint/tokens.py) taken in or left out, other than `located`.

    Such a token means nothing where it stands, but whether the region ends before or after it
    decides which syntax nodes the region holds whole, and so its fingerprint: a formatter that
    adds the `;` after a region's last statement must not move it. The recorded hash picks."""
    language = require_language(located.path, located.path)
    start, end = located.start_byte, located.end_byte
    near = tokens(language, source, max(0, start - _EDGE), min(len(source), end + _EDGE))
    inside = [t for t in near if start <= t[1] and t[2] <= end]
    if not inside:
        return []
    first, last = near.index(inside[0]), near.index(inside[-1])

    def run(indices: range) -> list[int]:  # the optional tokens from the first index on
        return list(takewhile(lambda i: near[i][3], indices))

    starts = {start} | {near[i][1] for i in run(range(first - 1, -1, -1))}  # just before it
    starts |= {near[i + 1][1] for i in run(range(first, last))}  # and at its start
    ends = {end} | {near[i][2] for i in run(range(last + 1, len(near)))}
    ends |= {near[i - 1][2] for i in run(range(last, first, -1))}
    return [
        _region(located.entry_id, located.path, source, language, a, b)
        for a in sorted(starts)
        for b in sorted(ends)
        if a < b and (a, b) != (start, end)
    ]


_EDGE = 4096  # bytes read either side of a region for the tokens at its edges


def _token_at(root: Node, at: int, literals: frozenset[str]) -> Node | None:
    """The token holding byte `at` (the outermost literal around it, if any); None in whitespace."""
    node = root.descendant_for_byte_range(at, at + 1)
    if node is None:
        return None
    around = [n for n in (node, *ancestors(node)) if n.type in literals]
    return around[-1] if around else node if node.child_count == 0 else None


def find_functions(
    path: str, source: bytes, qualname: str, max_bytes: int = MAX_BYTES
) -> list[Located]:
    """Every function named `qualname`; none in a file that cannot be located (check_text)."""
    try:
        check_text(path, source, path, max_bytes)
        language = require_language(path, path)
    except CannotRun:
        return []
    return [_located('', path, source, d.nodes, None) for d in find(language, source, qualname)]


def _one(entry: CoveredEntry, source: bytes, language: str, key: str) -> Located:
    """The one definition the entry's `function` or `within` (`key`) names."""
    qualname = entry.function if key == 'function' else entry.within
    assert qualname is not None
    found = [
        _located(entry.id, entry.path, source, d.nodes, None)
        for d in find(language, source, qualname)
    ]
    if len(found) == 1:
        return found[0]
    where = f'coverage entry {entry.id!r} ({entry.path}): `{key}` {qualname!r}'
    if not found:
        raise CannotRun(
            f'{where} not found{_similar(language, source, qualname)}; fix `{key}` in the manifest'
        )
    lines = ', '.join(
        str(f.start_line) if f.start_line == f.end_line else f'{f.start_line}-{f.end_line}'
        for f in found
    )
    reason = 'is overloaded' if LANGUAGES[language].overloads else 'is defined more than once'
    raise CannotRun(
        f'{where} {reason} (lines {lines}); the name must pick one definition: '
        f'cover it with a `region` whose anchors occur once in the file',
    )


def _similar(language: str, source: bytes, qualname: str) -> str:
    by_name = {d.qualname: d for d in every_definition(language, source)}
    # `Peer.callRPC` for `LogCabin.Server.Peer.callRPC`: a name missing its outer scopes
    close = [name for name in sorted(by_name) if name.endswith('.' + qualname)][:5]
    close = close or difflib.get_close_matches(qualname, list(by_name), n=5, cutoff=0.5)
    if not close:
        if not by_name:
            return ' (the file defines no functions this tool can address)'
        return f' (the file defines {len(by_name)} addressable functions, e.g. {", ".join(sorted(by_name)[:5])})'
    shown = ', '.join(
        f'{name} (line {by_name[name].nodes[0].start_point.row + 1})' for name in close
    )
    return f' (did you mean: {shown})'


def _located(
    entry_id: str, path: str, source: bytes, nodes: tuple[Node, ...], span: tuple[int, int] | None
) -> Located:
    """`nodes` located; `span` (start byte, end byte) when the entry is not all of them."""
    start, end = span or (nodes[0].start_byte, nodes[-1].end_byte)
    return Located(
        entry_id=entry_id,
        path=path,
        start_line=line_of(source, start),
        end_line=line_of(source, max(start, end - 1)),
        start_byte=start,
        end_byte=end,
        text=source[start:end].decode('utf-8'),
        nodes=nodes,
    )


def find(language: str, source: bytes, qualname: str) -> list[Definition]:
    """Every definition named `qualname`, in source order."""
    last = qualname.rsplit('.', 1)[-1].encode('utf-8')
    if not last:
        return []
    family = LANGUAGES[language].family()
    root = parse(language, source).root_node
    found = []
    start = source.find(last)
    while start != -1:
        end = start + len(last)
        node = root.descendant_for_byte_range(start, end)
        if node is not None and node.type in family.NAME_TYPES and node.byte_range == (start, end):
            definition = family.named_definition(node)
            if definition is not None and definition.qualname == qualname:
                found.append(definition)
        start = source.find(last, start + 1)
    return found


def every_definition(language: str, source: bytes) -> list[Definition]:
    family = LANGUAGES[language].family()
    cursor = parse(language, source).walk()
    found = []
    while True:
        node = cursor.node
        if node is not None and node.type in family.NAME_TYPES:
            definition = family.named_definition(node)
            if definition is not None:
                found.append(definition)
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return found
