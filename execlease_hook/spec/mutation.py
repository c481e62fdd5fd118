"""Where a mutation applies: its `replace.from` must occur exactly once in the spec, or, when the
mutation names the operator it edits (`within`), exactly once inside that operator's definition.
Naming it lets a message say which action lost its anchor, and where the text went.
"""

from __future__ import annotations

from collections.abc import Collection

from execlease_hook.core.errors import CannotRun
from execlease_hook.manifest.model import Mutation
from execlease_hook.spec.index import SpecIndex, Unit, read_spec


def anchor(
    spec: bytes,
    spec_name: str,
    mu: Mutation,
    index: SpecIndex | None = None,
    actions: Collection[str] = (),
) -> int:
    """The byte offset of the mutation's anchor; CannotRun saying what is wrong and what to do.
    `index` (the spec read with spec/index.py) is needed only when the mutation has `within`;
    `actions` (the next-state relation's) only makes messages say "action" rather than "operator".
    A definition spans from its name to the end of its last line (a trailing comment included)."""
    needle = mu.replace.start.encode('utf-8')
    if mu.within is None:
        count = spec.count(needle)
        if count == 1:
            return spec.index(needle)
        found = 'does not match' if count == 0 else f'matches {count} times'
        raise CannotRun(
            f'mutation {mu.name}: replace.from {found} in {spec_name} (it must match exactly '
            'once); update the mutation\'s "from" text in manifest.json to the current spec',
        )
    if index is None:
        index = read_spec(spec, spec_name)
    definitions = index.definitions()
    unit = definitions.get(mu.within)
    if unit is None:
        raise CannotRun(
            f'mutation {mu.name}: `within` names {mu.within!r}, which {spec_name} does not define; '
            'name the operator the mutation edits',
        )
    what = f'{"action" if mu.within in actions else "operator"} {mu.within} ({index.where(unit)})'
    hits = _hits(spec, needle, unit)
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise CannotRun(
            f'mutation {mu.name}: replace.from matches {len(hits)} times within {what}; '
            'make the "from" text longer so that it picks one place',
        )
    elsewhere = [u for u in definitions.values() if _hits(spec, needle, u)]
    moved = ', '.join(f'{u.key} ({index.where(u)})' for u in elsewhere)
    moved = f' (it is now in {moved})' if moved else ''
    raise CannotRun(
        f'mutation {mu.name}: replace.from no longer matches within {what}{moved}; '
        'update the mutation\'s "from" text (or its `within`) in manifest.json to the current spec',
    )


def apply(spec: bytes, spec_name: str, mu: Mutation) -> bytes:
    """The spec with the mutation's one replacement made."""
    at = anchor(spec, spec_name, mu)
    needle = mu.replace.start.encode('utf-8')
    return spec[:at] + mu.replace.to.encode('utf-8') + spec[at + len(needle) :]


def _hits(spec: bytes, needle: bytes, unit: Unit) -> list[int]:
    """Every offset of `needle` in the unit's definition, to the end of its last line."""
    newline = spec.find(b'\n', unit.end_byte)
    high = len(spec) if newline < 0 else newline
    found = []
    at = spec.find(needle, unit.start_byte, high)
    while at != -1:
        found.append(at)
        at = spec.find(needle, at + 1, high)
    return found
