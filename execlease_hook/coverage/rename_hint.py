"""A covered function that is gone under its name: which function it was renamed to, and the exact
manifest edit and command that repair the entry, which the guard prints (docs/architecture.md,
covered code against the manifest). The candidates: the functions of the same scope
(`LeaseStore.renew` -> `LeaseStore.*`) that no other entry covers, in the entry's file or its
rename target when the file is renamed in the same commit.
"""

from __future__ import annotations

import contextlib
import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from execlease_hook.core.errors import CannotRun
from execlease_hook.fingerprint.scheme import matches
from execlease_hook.locate.definition import Definition
from execlease_hook.locate.entry import every_definition, find_functions
from execlease_hook.locate.source import check_text, language_for
from execlease_hook.manifest.model import CoveredEntry, Manifest

MAX_TRIES = 8  # candidates whose code is compared with the synced fingerprint (a parse each)


@dataclass(frozen=True)
class Renamed:
    path: str
    function: str  # the new qualified name
    line: int
    unchanged: bool  # its code is the synced code, but for the name


def _named_back(e: CoveredEntry, path: str, content: bytes, d: Definition, max_bytes: int) -> bool:
    """True when `d`, with its name (and any call of itself) written back to the entry's name,
    has the entry's recorded fingerprint."""
    if e.hash is None or e.function is None:
        return False
    start, end = d.nodes[0].start_byte, d.nodes[-1].end_byte
    new, old = d.qualname.rpartition('.')[2], e.function.rpartition('.')[2]
    body = re.sub(
        rb'(?<![\w$])' + re.escape(new.encode()) + rb'(?![\w$])', old.encode(), content[start:end]
    )
    try:
        found = find_functions(path, content[:start] + body + content[end:], e.function, max_bytes)
    except CannotRun:
        return False
    return len(found) == 1 and matches(found[0], e.hash)


def find(
    m: Manifest,
    e: CoveredEntry,
    paths: Sequence[str],
    read: Callable[[str], bytes | None],
    synced: bytes | None,
    max_bytes: int,
) -> Renamed | None:
    """`read(path) -> bytes | None` reads the judged content; `synced`: the entry's file as
    synced, when known (it tells which names are new); `max_bytes`: EXECLEASE_MAX_COVERED_MB."""
    if e.function is None:
        return None
    covered = {(c.path, c.function) for c in m.coverage.entries if c.function is not None}
    for path in paths:
        language = language_for(path)
        content = read(path)
        if language is None or content is None:
            continue
        try:  # what the guard would not locate (binary, not UTF-8, too large) it does not search
            check_text(path, content, path, max_bytes)
        except CannotRun:
            continue
        candidates = [
            d
            for d in every_definition(language, content)
            if d.qualname != e.function
            and d.qualname.rpartition('.')[0] == e.function.rpartition('.')[0]  # the same scope
            and (path, d.qualname) not in covered
        ]
        before: set[str] | None = None
        if synced is not None and b'\0' not in synced and len(synced) <= len(content) * 4 + 10**6:
            with contextlib.suppress(ValueError, UnicodeDecodeError):
                before = {d.qualname for d in every_definition(language, synced)}
        new = [d for d in candidates if before is not None and d.qualname not in before]
        by_name = {d.qualname: d for d in candidates}
        close = [
            by_name[n]
            for n in difflib.get_close_matches(e.function, list(by_name), n=MAX_TRIES, cutoff=0.6)
        ]
        # Each try parses the file again: the new functions first, then the closest names, a few.
        tried = list({id(d): d for d in (*new, *close, *candidates[:MAX_TRIES])}.values())
        same = [d for d in tried[:MAX_TRIES] if _named_back(e, path, content, d, max_bytes)]
        found = same[0] if len(same) == 1 else new[0] if len(new) == 1 else next(iter(close), None)
        if found is not None:
            line = found.nodes[0].start_point.row + 1
            return Renamed(path, found.qualname, line, unchanged=len(same) == 1)
    return None


def repair(m: Manifest, e: CoveredEntry, r: Renamed, at: str) -> list[str]:
    """The lines that name the repair: the manifest edit at `at` (file:line), then the command."""
    edits = []
    if r.path != e.path:
        edits.append(f'"path": "{e.path}" to "path": "{r.path}"')
    edits.append(f'"function": "{e.function}" to "function": "{r.function}"')
    lines = [f'  {at}: change ' + ' and '.join(edits)]
    if not r.unchanged:
        lines.append('  then follow the steps below: the code changed too')
        return lines
    model = (
        ''
        if m.folder.parent == m.root / 'verification'
        else f' --model {m.folder.relative_to(m.root).as_posix()}'
    )
    reason = f'renamed {e.function} to {r.function}; the code is the same'
    lines.append(
        f"  then `execlease verify --update-coverage{model} --reason '{reason}'` (a name is "
        'part of the fingerprint) and `git add` the manifest and NOTES.md'
    )
    return lines
