"""Anchored regions: from the start of `from` to the end of `to`, each found exactly once."""
from __future__ import annotations

from execlease_hook.core.errors import CannotRun

TYPE_CHECKING = False   # typing.TYPE_CHECKING without importing typing (core/record.py)
if TYPE_CHECKING:
    from execlease_hook.locate.definition import Located
    from execlease_hook.manifest.model import CoveredEntry


def find_region(entry: CoveredEntry, source: bytes, scope: Located | None) -> tuple[int, int]:
    """(start byte, end byte) of the region; `scope` is the `within` function, if any."""
    assert entry.region is not None
    low, high = (scope.start_byte, scope.end_byte) if scope is not None else (0, len(source))
    where = f'in {entry.path}' if scope is None else (
        f'in {entry.path} within {entry.within!r} (lines {scope.start_line}-{scope.end_line})'
    )
    prefix = f'coverage entry {entry.id!r}'
    start = _once(entry.region.start, 'region.from', source, low, high, prefix, where)
    to_start = _once(entry.region.end, 'region.to', source, low, high, prefix, where)
    end = to_start + len(entry.region.end.encode('utf-8'))
    if to_start < start or end < start + len(entry.region.start.encode('utf-8')):
        raise CannotRun(
            f'{prefix}: `region.to` {_show(entry.region.end)} (line {_line(source, to_start)}) comes before '
            f'`region.from` {_show(entry.region.start)} (line {_line(source, start)}) {where}; '
            f'swap or correct the anchors',
        )
    return start, end


def _once(anchor: str, key: str, source: bytes, low: int, high: int, prefix: str, where: str) -> int:
    needle = anchor.encode('utf-8')
    if not needle:
        raise CannotRun(f'{prefix}: `{key}` is empty; give the exact text where the region starts/ends')
    found = []
    at = source.find(needle, low, high)
    while at != -1:
        found.append(at)
        at = source.find(needle, at + 1, high)
    if len(found) == 1:
        return found[0]
    if not found:
        raise CannotRun(
            f'{prefix}: `{key}` {_show(anchor)} not found {where}; '
            f'update the anchor to text that is in the code',
        )
    lines = ', '.join(str(line) for line in sorted({_line(source, at) for at in found}))
    hint = 'make the anchor longer' if ' within ' in where else (
        'make the anchor longer or narrow the search with `within`'
    )
    raise CannotRun(
        f'{prefix}: `{key}` {_show(anchor)} occurs {len(found)} times {where}, on lines {lines}; '
        f'it must occur exactly once: {hint}',
    )


def _show(anchor: str) -> str:
    return repr(anchor if len(anchor) <= 60 else anchor[:57] + '...')


def _line(source: bytes, offset: int) -> int:
    return source.count(b'\n', 0, offset) + 1
