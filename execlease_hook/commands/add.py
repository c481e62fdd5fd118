"""`execlease add`: one new manifest item, checked before anything is written.

  execlease add PATH::QUALNAME --action ACTION [--id ID]                 a covered function
  execlease add PATH --from TEXT --to TEXT [--within QUALNAME] --action ACTION [--id ID]
                                                                          a covered region
  execlease add --mutation NAME --property P --from TEXT --to TEXT [--cfg FILE]
  execlease add --finding NAME --property P (--cfg FILE | --from-check CHECK --set C=V ...)
  execlease add --library DIR | --library URL --sha256 HEX [--name NAME]
  execlease add --tools URL --sha256 HEX [--min-tlc V] | --min-tlc V

Covered code is located first, by the guard's own rules (the same function, the same errors);
its hash is left for the first `execlease verify --update-coverage`, and the NOTES.md
code-to-action table is regenerated. A library or the model's own TLA+ tools are made ready as
`verify` uses them (commands/add_library.py). Every refusal exits 2 and changes nothing.

It is kept whole: the kinds of item share the model loading, the refusals and
the single write at the end (a finding's cfg, manifest.json, NOTES.md, only once every check
passed); split, a refusal could come after a write.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
from pathlib import Path

from execlease_hook.commands import add_library
from execlease_hook.core import atomic, paths, term
from execlease_hook.core.errors import CannotRun
from execlease_hook.core.settings import Settings
from execlease_hook.coverage import compare
from execlease_hook.coverage.notes import map_table
from execlease_hook.fingerprint.tokens import tokens
from execlease_hook.git import blobs, repo
from execlease_hook.git.blobs import WorktreeSource
from execlease_hook.locate.entry import locate
from execlease_hook.manifest import find, notes_table, read, write
from execlease_hook.manifest.model import CoveredEntry, Finding, Manifest, Mutation, Region, Replace
from execlease_hook.spec import record
from execlease_hook.spec.action_map import closest

USAGE = (
    'give one of: PATH::QUALNAME --action A (a function), PATH --from TEXT --to TEXT '
    '--action A (a region), --mutation NAME, --finding NAME, --library DIR|URL, '
    '--tools URL --sha256 HEX, --min-tlc V'
)


def _slug(text: str) -> str:
    return re.sub(r'[^a-z0-9]+', '-', text.lower()).strip('-')[:40].strip('-')


def _one_model(root: Path, model: str | None) -> Path:
    found = find.find_models(root, model)
    if len(found) > 1:
        names = ', '.join(paths.rel(root, p.parent) for p in found)
        raise CannotRun(f'{len(found)} models ({names}); name one with --model DIR')
    return found[0]


def _repo_path(root: Path, path: str, what: str) -> str:
    rel = paths.rel(root, os.path.abspath(path))
    if rel == '..' or rel.startswith('../'):
        raise CannotRun(f'{what} {path}: outside the repository {root}')
    return rel


def _lines_of(text: str, needle: str) -> str:
    lines, at = [], text.find(needle)
    while at != -1:
        lines.append(str(text.count('\n', 0, at) + 1))
        at = text.find(needle, at + 1)
    return ', '.join(dict.fromkeys(lines))


def _check_action(m: Manifest, action: str) -> None:
    """The action must be defined in the model (the spec or a module it EXTENDS or INSTANCEs),
    by the name TLC prints in a counterexample."""
    view = record.read(m, WorktreeSource(m.root))
    if view.definition(action) is None:
        raise CannotRun(
            f'--action {action}: no definition `{action} ==` or `{action}(...) ==` in {m.spec} '
            f'nor a module it EXTENDS or INSTANCEs{closest(view.model_index, action)}; give the '
            'action as TLC names it in a counterexample',
        )


def _default_id(m: Manifest, function: str | None, region: Region | None) -> str:
    taken = {e.id for e in m.coverage.entries}
    if function is not None:
        candidates = [_slug(function.rsplit('.', 1)[-1]), _slug(function)]
    else:
        assert region is not None
        candidates = [_slug(region.start) or 'region']
    for candidate in candidates:
        if candidate and candidate not in taken:
            return candidate
    raise CannotRun(f'entry id {candidates[-1]!r} is taken; choose one with --id')


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
    else:
        path = target
        if options.start is None or options.to is None:
            raise CannotRun(
                f'{target}: give PATH::QUALNAME for a function, or --from TEXT --to '
                'TEXT for a region (exact text, once in the file)'
            )
        region = Region(start=options.start, end=options.to)
    rel = _repo_path(m.root, path, 'PATH')
    entry = CoveredEntry(
        id=options.id or _default_id(m, function, region),
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
    _check_action(m, entry.action)
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
    what = (
        f'function {entry.function}'
        if entry.function
        else (f'region `{entry.region.start}` .. `{entry.region.end}`' if entry.region else '')
    )
    if entry.within:
        what += f' within {entry.within}'
    new = dataclasses.replace(
        m,
        covers_code=True,
        coverage=dataclasses.replace(  # now it covers code
            m.coverage, entries=(*m.coverage.entries, entry)
        ),
    )
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


def _config(m: Manifest, cfg: str) -> str:
    """A cfg named on the command line (from here, or from the model folder) -> folder-relative."""
    for candidate in (Path(os.path.abspath(cfg)), m.folder / cfg):
        if candidate.is_file() and candidate.resolve().is_relative_to(m.folder.resolve()):
            return paths.rel(m.folder, candidate)
    raise CannotRun(
        f'--cfg {cfg}: no such .cfg inside the model folder {paths.rel(m.root, m.folder)}'
    )


def _check_property(m: Manifest, config: str, prop: str) -> None:
    if prop.lower() in ('deadlock', 'assert') or prop.startswith('assert:'):
        return
    spec = (m.folder / m.spec).read_text(encoding='utf-8', errors='replace')
    if re.search(rf'\b(?:ASSUME|ASSUMPTION|AXIOM)\s+{re.escape(prop)}\s*==', spec):
        return  # a named assumption
    text = (m.folder / config).read_text(encoding='utf-8', errors='replace')
    text = re.sub(r'\\\*[^\n]*|\(\*.*?\*\)', '', text, flags=re.DOTALL)  # TLA+ comments
    if not re.search(rf'(?<![\w!]){re.escape(prop)}(?![\w!])', text):
        raise CannotRun(
            f'--property {prop}: {config} does not check it; add it under INVARIANT or PROPERTY '
            'there, or name the cfg that checks it with --cfg',
        )


def add_mutation(m: Manifest, options: argparse.Namespace) -> tuple[Manifest, list[str]]:
    name: str = options.mutation
    if options.property is None or options.start is None or options.to is None:
        raise CannotRun(
            f'--mutation {name}: give --property P --from TEXT --to TEXT '
            '(the spec text to replace, exactly once, and what replaces it)'
        )
    if any(mu.name == name for mu in m.mutations):
        raise CannotRun(f'mutation {name!r} exists already; choose another name')
    spec = m.folder / m.spec
    text = spec.read_text(encoding='utf-8')
    count = text.count(options.start)
    if count != 1:
        where = (
            'does not occur'
            if count == 0
            else (f'occurs {count} times (lines {_lines_of(text, options.start)}); make it longer')
        )
        raise CannotRun(f'--from `{options.start}` {where} in {m.spec}: it must occur exactly once')
    if options.start == options.to:
        raise CannotRun('--from and --to are the same text: nothing would be mutated')
    config = _config(m, options.cfg) if options.cfg else m.checks[0].config
    _check_property(m, config, options.property)
    mutation = Mutation(
        name=name,
        config=config,
        violates=options.property,
        replace=Replace(start=options.start, to=options.to),
    )
    line = _lines_of(text, options.start)
    return dataclasses.replace(m, mutations=(*m.mutations, mutation)), [
        f'added mutation {name}: {m.spec}:{line} `{options.start}` -> `{options.to}`, with '
        f'{config}; `execlease verify` must see it fail on {options.property}',
    ]


def set_constants(text: str, settings: list[str], where: str) -> str:
    """The cfg text with each CONST=VALUE of `settings` assigned instead of its value there."""
    for setting in settings:
        name, sep, value = setting.partition('=')
        name, value = name.strip(), value.strip()
        if not sep or not name or not value:
            raise CannotRun(f'--set {setting!r}: give CONST=VALUE')
        pattern = re.compile(
            rf'^(?P<lead>[ \t]*(?:CONSTANTS?[ \t]+)?){re.escape(name)}[ \t]*(?:=|<-)[ \t]*(?P<value>.*)$',
            re.MULTILINE,
        )
        found = list(pattern.finditer(text))
        if len(found) != 1:
            what = 'is not assigned' if not found else f'is assigned {len(found)} times'
            raise CannotRun(
                f'--set {setting}: {name} {what} in {where}; assign it there once '
                '(one `NAME = value` line), or copy the cfg yourself and give --cfg'
            )
        old = found[0].group('value')
        if any(old.count(a) != old.count(b) for a, b in ('{}', '()', '<>', '[]')):
            raise CannotRun(
                f'--set {setting}: the value of {name} in {where} spans several lines; '
                'copy the cfg yourself, edit it and give --cfg'
            )
        text = text[: found[0].start('value')] + value + text[found[0].end('value') :]
    return text


def add_finding(
    m: Manifest, options: argparse.Namespace
) -> tuple[Manifest, list[str], tuple[Path, str] | None]:
    """The new manifest, what to say, and the derived cfg to write first (path, text), if any."""
    name: str = options.finding
    if options.property is None:
        raise CannotRun(f'--finding {name}: give --property P, the property it must still violate')
    if (options.cfg is None) == (options.from_check is None):
        raise CannotRun(
            f'--finding {name}: give --cfg FILE, or --from-check CHECK --set CONST=VALUE'
        )
    if any(f.id == name for f in m.findings):
        raise CannotRun(f'finding {name!r} exists already; choose another name')
    new_cfg = None
    if options.cfg is not None:
        config = _config(m, options.cfg)
        _check_property(m, config, options.property)
    else:
        check = next((c for c in m.checks if c.name == options.from_check), None)
        if check is None:
            names = ', '.join(c.name for c in m.checks)
            raise CannotRun(f'--from-check {options.from_check}: no such check (checks: {names})')
        if not options.set:
            raise CannotRun(
                '--from-check: give the constants that make the finding with --set CONST=VALUE'
            )
        config = f'findings/{name}.cfg'
        target = m.folder / config
        if target.exists():
            raise CannotRun(
                f'{paths.rel(m.root, target)} exists; left alone: give it with --cfg instead'
            )
        _check_property(m, check.config, options.property)
        source = (m.folder / check.config).read_text(encoding='utf-8')
        new_cfg = (target, set_constants(source, list(options.set), check.config))
    finding = Finding(
        id=name, config=config, violates=options.property, summary=options.summary or ''
    )
    said = [f'added finding {name}: {config} must still violate {options.property}']
    if new_cfg is not None:
        said.insert(
            0,
            f"wrote {paths.rel(m.root, new_cfg[0])}: {options.from_check}'s config with "
            + ', '.join(options.set),
        )
    return dataclasses.replace(m, findings=(*m.findings, finding)), said, new_cfg


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
    statuses = compare.compare(m, blobs.WorktreeSource(m.root), None, max_bytes)
    return notes_table.replace_table(text, map_table(m, statuses), str(notes))


def run(options: argparse.Namespace, settings: Settings) -> int:
    pins = options.tools is not None or options.min_tlc is not None
    kinds = [
        options.target is not None,
        options.mutation is not None,
        options.finding is not None,
        options.library is not None,
        pins,
    ]
    if options.sha256 is not None and options.library is None and options.tools is None:
        raise CannotRun('--sha256 pins a jar: give it with --library URL or --tools URL')
    if options.name is not None and options.library is None:
        raise CannotRun('--name names a library jar: give it with --library URL')
    if sum(kinds) != 1:
        raise CannotRun(USAGE)
    root = repo.repo_root()
    path = _one_model(root, options.model)
    m = read.load(path, root)
    new_cfg = None
    if options.target is not None:
        new, said = add_entry(m, new_entry(m, options), settings.max_covered_bytes)
    elif options.mutation is not None:
        new, said = add_mutation(m, options)
    elif options.library is not None:
        new, said = add_library.add_library(m, options, settings)
    elif pins:
        new, said = add_library.add_tools(m, options, settings)
    else:
        new, said, new_cfg = add_finding(m, options)
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
    if notes is not None:
        changed = notes != (m.folder / 'NOTES.md').read_text(encoding='utf-8')
        if changed:
            atomic.write_text_atomic(m.folder / 'NOTES.md', notes)
        said.append(
            f'{paths.rel(root, m.folder)}/NOTES.md: code-to-action table '
            + ('rewritten' if changed else 'already current')
        )
    elif options.target is not None:
        said.append(
            f'{paths.rel(root, m.folder)}/NOTES.md keeps no code-to-action table (no markers): '
            'not written'
        )
    if (
        new_cfg is not None
        or (options.mutation and new.model_files != m.model_files)
        or options.finding
        or options.library is not None
        or pins
    ):
        said.append(
            'the model changed: run `execlease verify`, then `execlease verify --update-coverage`'
        )

    if options.quiet:  # -q: nothing did not hold; the exit code says it was added
        return 0
    for line in said:
        print(term.wrap(line))
    return 0
