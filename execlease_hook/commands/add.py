"""`execlease add`: one new manifest item, checked before anything is written (USAGE below, and
`execlease add --help`, list the command lines).

Covered code is located first, by the guard's own rules (the same function, the same errors);
its hash is left for the first `execlease verify --update-coverage`, and the NOTES.md
code-to-action table is regenerated. A mutation or finding is checked against the spec and its
cfg (commands/add_spec.py); a library or the model's own TLA+ tools are made ready as `verify`
uses them (commands/add_library.py); those modules check and build an item, and write nothing.
`run` here writes once, at the end (a finding's cfg, manifest.json, NOTES.md), after every check
passed, so that no refusal comes after a write: every refusal exits 2 and changes nothing.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re

from execlease_hook.commands import add_library, add_spec
from execlease_hook.core import atomic, paths, term
from execlease_hook.core.errors import CannotRun
from execlease_hook.core.settings import Settings
from execlease_hook.coverage import compare
from execlease_hook.coverage.notes import map_table
from execlease_hook.fingerprint.tokens import tokens
from execlease_hook.git import repo
from execlease_hook.git.blobs import WorktreeSource
from execlease_hook.locate.entry import locate
from execlease_hook.manifest import find, notes_table, read, write
from execlease_hook.manifest.model import CoveredEntry, Manifest, Region
from execlease_hook.spec import record
from execlease_hook.spec.action_map import closest

USAGE = (
    'give one of: PATH::QUALNAME --action A (a function), PATH --from TEXT --to TEXT '
    '--action A (a region), --mutation NAME, --finding NAME, --library DIR|URL, '
    '--tools URL --sha256 HEX, --min-tlc V'
)


def _slug(text: str) -> str:
    return re.sub(r'[^a-z0-9]+', '-', text.lower()).strip('-')[:40].strip('-')


def new_entry(m: Manifest, options: argparse.Namespace) -> CoveredEntry:
    target: str = options.target
    if options.action is None:
        raise CannotRun('--action ACTION: name the model action this code implements')
    function = region = None
    if '::' in target:
        path, function = target.split('::', 1)
        if options.start is not None or options.to is not None or options.within is not None:
            raise CannotRun(
                f'{target}: a function needs no --from/--to/--within; for a region '
                'give the PATH alone'
            )
        if not function:
            raise CannotRun(f'{target}: give the qualified name after "::" (Class.method)')
        names = [_slug(function.rsplit('.', 1)[-1]), _slug(function)]
    else:
        path = target
        if options.start is None or options.to is None:
            raise CannotRun(
                f'{target}: give PATH::QUALNAME for a function, or --from TEXT --to '
                'TEXT for a region (exact text, once in the file)'
            )
        region = Region(start=options.start, end=options.to)
        names = [_slug(options.start) or 'region']
    rel = paths.rel(m.root, os.path.abspath(path))
    if rel == '..' or rel.startswith('../'):
        raise CannotRun(f'PATH {path}: outside the repository {m.root}')
    taken = {e.id for e in m.coverage.entries}
    free = [name for name in names if name and name not in taken]
    if not (options.id or free):
        raise CannotRun(f'entry id {names[-1]!r} is taken; choose one with --id')
    entry = CoveredEntry(
        id=options.id or free[0],
        path=rel,
        action=options.action,
        function=function,
        region=region,
        within=options.within,
    )
    for e in m.coverage.entries:
        if e.id == entry.id:
            raise CannotRun(
                f'entry id {entry.id!r} exists already ({e.path}); choose another with --id'
            )
        if (e.path, e.function, e.region, e.within) == (rel, function, region, options.within):
            raise CannotRun(f'{target} is covered already, by entry {e.id!r}')
    # Defined in the model (the spec or a module it EXTENDS or INSTANCEs), by the name TLC
    # prints in a counterexample.
    view, action = record.read(m, WorktreeSource(m.root)), entry.action
    if view.definition(action) is None:
        raise CannotRun(
            f'--action {action}: no definition `{action} ==` or `{action}(...) ==` in {m.spec} '
            f'nor a module it EXTENDS or INSTANCEs{closest(view.model_index, action)}; give the '
            'action as TLC names it in a counterexample',
        )
    return entry


def add_entry(m: Manifest, entry: CoveredEntry, max_bytes: int) -> tuple[Manifest, list[str]]:
    """Locates the entry (exit 2 as the guard would), then the new manifest and what to say."""
    try:
        content = (m.root / entry.path).read_bytes()
    except FileNotFoundError:
        raise CannotRun(f'{entry.path}: no such file') from None
    except OSError as e:
        raise CannotRun(f'{entry.path}: cannot read it ({e.strerror})') from None
    try:
        located = locate(entry, content, tokens, max_bytes)
    except CannotRun as e:  # the guard's own message; here the fix is on the command line
        raise CannotRun(
            str(e)
            .replace('in the manifest', 'on the command line')
            .replace('update the anchor', 'give an anchor')
        ) from None
    region = entry.region  # a region or a function, never both (new_entry)
    what = f'region `{region.start}` .. `{region.end}`' if region else f'function {entry.function}'
    what += f' within {entry.within}' if entry.within else ''
    coverage = dataclasses.replace(m.coverage, entries=(*m.coverage.entries, entry))
    new = dataclasses.replace(m, covers_code=True, coverage=coverage)  # now it covers code
    said = [
        f'added entry {entry.id}: {entry.path}:{located.start_line}-{located.end_line}, '
        f'{what}, action {entry.action} (its hash is recorded by the next '
        '`execlease verify --update-coverage`)'
    ]
    if not m.coverage.entries:  # manifest/model.py: the first entry ties the model to code
        said.append(
            "the model's first covered entry: from now on every action of the next-state "
            'relation must be covered or declared in coverage.abstract (`execlease coverage` '
            'names those without code)'
        )
    return new, said


def _notes_table(m: Manifest, max_bytes: int) -> str | None:
    """The regenerated NOTES.md text, None when it keeps no table; refuses when an entry
    cannot be located (the table could not be written, so nothing is)."""
    notes = m.folder / 'NOTES.md'
    try:
        text = notes.read_text(encoding='utf-8')
    except (OSError, UnicodeDecodeError):
        return None
    if not notes_table.has_markers(text):
        return None
    statuses = compare.compare(m, WorktreeSource(m.root), None, max_bytes)
    return notes_table.replace_table(text, map_table(m, statuses), str(notes))


def run(options: argparse.Namespace, settings: Settings) -> int:
    pins = options.tools is not None or options.min_tlc is not None
    kinds = (options.target, options.mutation, options.finding, options.library)
    if options.sha256 is not None and options.library is None and options.tools is None:
        raise CannotRun('--sha256 pins a jar: give it with --library URL or --tools URL')
    if options.name is not None and options.library is None:
        raise CannotRun('--name names a library jar: give it with --library URL')
    if sum(kind is not None for kind in kinds) + pins != 1:
        raise CannotRun(USAGE)
    root = repo.repo_root()
    found = find.find_models(root, options.model)
    if len(found) > 1:
        names = ', '.join(paths.rel(root, p.parent) for p in found)
        raise CannotRun(f'{len(found)} models ({names}); name one with --model DIR')
    path = found[0]
    m = read.load(path, root)
    new_cfg = None
    if options.target is not None:
        new, said = add_entry(m, new_entry(m, options), settings.max_covered_bytes)
    elif options.mutation is not None:
        new, said = add_spec.add_mutation(m, options)
    elif options.library is not None:
        new, said = add_library.add_library(m, options, settings)
    elif pins:
        new, said = add_library.add_tools(m, options, settings)
    else:
        new, said, new_cfg = add_spec.add_finding(m, options)
    text = write.dump(new)
    read.parse(text, path, root)  # never write a manifest the loader rejects
    notes = _notes_table(new, settings.max_covered_bytes) if options.target is not None else None
    if new_cfg is not None:
        new_cfg[0].parent.mkdir(parents=True, exist_ok=True)
        atomic.write_text_atomic(*new_cfg)
    atomic.write_text_atomic(path, text)
    said = [
        line.replace('added', f'added to {paths.rel(root, path)}:', 1)
        if line.startswith('added')
        else line
        for line in said
    ]
    folder = paths.rel(root, m.folder)
    if notes is not None:
        changed = notes != (m.folder / 'NOTES.md').read_text(encoding='utf-8')
        if changed:
            atomic.write_text_atomic(m.folder / 'NOTES.md', notes)
        said.append(
            f'{folder}/NOTES.md: code-to-action table '
            + ('rewritten' if changed else 'already current')
        )
    elif options.target is not None:
        said.append(f'{folder}/NOTES.md keeps no code-to-action table (no markers): not written')
    if options.target is None and (options.mutation is None or new.model_files != m.model_files):
        said.append(
            'the model changed: run `execlease verify`, then `execlease verify --update-coverage`'
        )
    for line in () if options.quiet else said:  # -q: the exit code says it was added
        print(term.wrap(line))
    return 0
