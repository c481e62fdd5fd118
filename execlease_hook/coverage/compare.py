"""Did covered code change? Every entry of a manifest resolved against one source of file
contents (the index, the working tree or a commit) and compared with its recorded hash, for both
stages (docs/architecture.md, covered code against the manifest).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from execlease_hook.core.errors import CannotRun
from execlease_hook.fingerprint.scheme import SCHEME, fingerprint, matches, scheme_of
from execlease_hook.fingerprint.tokens import tokens
from execlease_hook.git.blobs import Source
from execlease_hook.locate.definition import Located
from execlease_hook.locate.entry import edge_variants, locate
from execlease_hook.manifest.model import CoveredEntry, Manifest


@dataclass(frozen=True)
class EntryStatus:
    """A covered entry against the code: located or not, and its fingerprint now."""

    entry: CoveredEntry
    status: str  # 'unchanged', 'changed', 'never synced', 'missing' or 'ambiguous'
    current: str | None  # current fingerprint (None if not located)
    located: Located | None
    problem: str | None  # for missing / ambiguous: why

    @property
    def where(self) -> str:
        if self.located is not None:
            return f'{self.entry.path}:{self.located.start_line}'
        return self.entry.path


# locate raises CannotRun for every failure; these phrases of its messages mean "more than one".
_AMBIGUOUS = re.compile(r'is defined more than once|is overloaded|occurs \d+ times')


def entry_status(entry: CoveredEntry, source: Source, max_bytes: int) -> EntryStatus:
    content = source.read(entry.path)
    if content is None:
        return EntryStatus(
            entry, 'missing', None, None, f'{entry.path}: no such file in {source.description}'
        )
    try:
        located = locate(entry, content, tokens, max_bytes)
    except CannotRun as e:
        status = 'ambiguous' if _AMBIGUOUS.search(str(e)) else 'missing'
        return EntryStatus(entry, status, None, None, str(e))
    current = fingerprint(located)  # what a sync records (the current scheme)
    if entry.hash is None:
        status = 'never synced'
    elif current == entry.hash or (
        scheme_of(entry.hash) != SCHEME and matches(located, entry.hash)
    ):
        # an older scheme's hash (ts1) is compared with the code's fingerprint in that scheme
        status = 'unchanged'
    else:
        status = 'changed'
        # A region taken with or without the optional tokens at its edges (locate/entry.py's
        # edge_variants) that has the recorded fingerprint is unchanged.
        variants = edge_variants(located, content, tokens) if entry.region is not None else ()
        other = next((v for v in variants if matches(v, entry.hash)), None)
        if other is not None:
            located, current, status = other, entry.hash, 'unchanged'
    return EntryStatus(entry, status, current, located, None)


def compare(
    manifest: Manifest,
    source: Source,
    entries: Iterable[CoveredEntry] | None,
    max_bytes: int,
) -> list[EntryStatus]:
    """`entries` of the manifest (None: all); `max_bytes`: EXECLEASE_MAX_COVERED_MB."""
    chosen = list(manifest.coverage.entries if entries is None else entries)
    source.prefetch(e.path for e in chosen)
    return [entry_status(e, source, max_bytes) for e in chosen]


def exit_code(statuses: Sequence[EntryStatus]) -> int:
    kinds = {s.status for s in statuses}
    if kinds & {'missing', 'ambiguous'}:
        return 2
    if kinds & {'changed', 'never synced'}:
        return 1
    return 0


def code_for(action: str, statuses: Sequence[EntryStatus]) -> list[str]:
    cited = []
    for s in statuses:
        if s.entry.action != action:
            continue
        if s.located is not None:
            where = f'{s.entry.path}:{s.located.start_line}'
            if s.located.end_line != s.located.start_line:
                where += f'-{s.located.end_line}'
        else:
            where = f'{s.entry.path} (not found: update the anchors)'
        if s.entry.function:
            name = s.entry.function
        else:
            anchor = s.entry.region.start if s.entry.region else ''
            name = f'region {anchor!r}' + (f' in {s.entry.within}' if s.entry.within else '')
        cited.append(f'{where}  {name}  [{s.entry.id}]')
    return cited
