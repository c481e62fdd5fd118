"""`execlease init`: scaffolds a model folder for a spec that already exists (what it writes:
docs/architecture.md#the-other-commands-coverage-init-add-tools-report), never overwriting a file:
whatever exists is left alone, and it says so. What it cannot write (a config of the user's) it
prints as the text to paste: YAML and commands verbatim, never wrapped.

It is kept whole: each file init writes or suggests (manifest and its libraries, schema copy,
NOTES.md, .gitignore, the hooks config) follows the one rule of never overwriting and adds its
line to the one report of what was done and what was left alone; split, a file could be written
or suggested by rules that differ from the others'. The hooks config's text, and what to paste
into a config that exists, are init_hooks.py's: text only, no write.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import shlex
from pathlib import Path

from execlease_hook.commands import add_library, init_hooks
from execlease_hook.core import atomic, paths, term
from execlease_hook.core.errors import CannotRun
from execlease_hook.core.settings import Settings
from execlease_hook.git import repo
from execlease_hook.manifest import notes_table, read, write
from execlease_hook.manifest.model import Check, Library, Manifest
from execlease_hook.tlc import libraries, library_modules, missing

NOTES_SECTIONS = (
    ('Assumptions', 'What the model takes for granted about the code, the database and the world.'),
    ('Bounds', 'The constants of each cfg and why they are enough.'),
    ('Outside the model', 'What the model leaves out on purpose, and who checks it instead.'),
    ('Results', 'What TLC checked: distinct states and time of each check.'),
    (
        'Findings',
        'Known gaps, each reproduced by a cfg under findings/ (`execlease add --finding`).',
    ),
)
# What init adds to .gitignore: .tmp/tla/ holds the jar, its lock and the JVM's class-data archive;
# TLC's results are cached inside git's own folder, where no commit can plant one.
IGNORE_LINES = '# execlease: the pinned TLA+ tools (TLC results are cached inside .git)\n.tmp/\n'
SHIPPED_SCHEMA = Path(__file__).resolve().parents[1] / 'schemas' / 'manifest.schema.json'
SCHEMA_COPY = 'manifest.schema.json'  # beside manifest.json, when the shipped one is not in git


def _inside(root: Path, path: Path, what: str) -> Path:
    resolved = Path(os.path.abspath(path))
    if not resolved.resolve().is_relative_to(root.resolve()):
        raise CannotRun(f'{what} {path}: outside the repository {root}; models live inside it')
    return resolved


def _spec(folder: Path | None, spec: str | None, root: Path) -> tuple[Path, Path]:
    """(model folder, spec path), both absolute."""
    if spec is not None:
        spec_path = _inside(root, Path(spec), '--spec')
        if spec_path.suffix != '.tla' or not spec_path.is_file():
            raise CannotRun(f'--spec {spec}: no such .tla file; name the spec the model checks')
        folder = folder or spec_path.parent
        if not spec_path.is_relative_to(folder):
            raise CannotRun(
                f'--spec {spec} is not inside the model folder {os.path.relpath(folder)}; move the '
                'spec (and its cfgs) into it, or leave out --model',
            )
        return folder, spec_path
    if folder is None:
        raise CannotRun(
            'name the spec: `execlease init --spec verification/NAME/Spec.tla` '
            '(or --model DIR holding exactly one .tla)'
        )
    specs = sorted(folder.glob('*.tla'))
    if len(specs) != 1:
        found = ', '.join(p.name for p in specs) or 'none'
        raise CannotRun(
            f'--model {os.path.relpath(folder)}: {len(specs)} .tla files ({found}); '
            'name the one TLC checks with --spec'
        )
    return folder, specs[0]


def plan_model(root: Path, spec: str | None, cfgs: list[str], model: str | None) -> Manifest:
    """The model to scaffold: its spec and a check per cfg, no library or covered code yet."""
    folder = _inside(root, Path(model), '--model') if model is not None else None
    if folder is not None and not folder.is_dir():
        raise CannotRun(f'--model {model}: no such folder; create it with the spec inside')
    folder, spec_path = _spec(folder, spec, root)
    if cfgs:
        paths = [_inside(root, Path(c), '--cfg') for c in cfgs]
    else:
        paths = sorted(folder.glob('*.cfg'))
        if not paths:
            raise CannotRun(
                f'no .cfg beside {os.path.relpath(spec_path)}: write one (INIT, NEXT, INVARIANT) '
                'or name it with --cfg; each cfg becomes a check that must pass',
            )
    checks: list[Check] = []
    for path in paths:
        if path.suffix != '.cfg' or not path.is_file():
            raise CannotRun(f'--cfg {os.path.relpath(path)}: no such .cfg file')
        if not path.is_relative_to(folder):
            raise CannotRun(
                f'--cfg {os.path.relpath(path)} is not inside the model folder '
                f'{os.path.relpath(folder)}; move it there'
            )
        name = 'main' if path.stem == spec_path.stem else path.stem
        taken = {c.name for c in checks}
        if name in taken:
            name = next(
                f'{name}-{i}' for i in range(2, len(paths) + 2) if f'{name}-{i}' not in taken
            )
        # A cfg beside a module of its own name (MCLease.cfg and MCLease.tla, the Toolbox's
        # MC.cfg and MC.tla) is that module's check: TLC is run on the module the cfg was written for.
        own = path.with_suffix('.tla')
        module = (
            own.relative_to(folder).as_posix()
            if own.resolve() != spec_path.resolve() and own.is_file()
            else None
        )
        checks.append(Check(name=name, config=path.relative_to(folder).as_posix(), spec=module))
    spec_name = spec_path.relative_to(folder).as_posix()
    return Manifest(path=folder / 'manifest.json', root=root, spec=spec_name, checks=tuple(checks))


def schema_ref(p: Manifest) -> str:
    """What "$schema" names: a path relative to the manifest, so that it resolves in every clone
    and offline. The shipped schema itself when git tracks it beside the model (this repository,
    a vendored execlease); otherwise a copy of it beside manifest.json (an install in a venv has
    a path that differs from machine to machine, so it cannot be committed)."""
    if SHIPPED_SCHEMA.is_relative_to(p.root.resolve()) and not _ignored(p.root, SHIPPED_SCHEMA):
        return paths.rel(p.folder.resolve(), SHIPPED_SCHEMA)
    return SCHEMA_COPY


def _ignored(root: Path, path: Path) -> bool:
    """Whether git ignores `path` (absolute, or relative to `root`), tracked or not."""
    return repo.run_git(root, 'check-ignore', '-q', '--no-index', str(path)).returncode == 0


def manifest_text(p: Manifest, libraries: tuple[Library, ...] = ()) -> str:
    """The new manifest, read back through the loader so that init never writes one it rejects."""
    m = dataclasses.replace(p, libraries=libraries, schema=schema_ref(p))
    text = write.dump(m)
    read.parse(text, m.path, p.root)
    return text


def notes_text(p: Manifest) -> str:
    lines = [
        f'# {Path(p.spec).stem}: model notes',
        '',
        f'What `{p.spec}` describes, which code implements it, and the promise TLC checks.',
        '',
    ]
    for heading, hint in NOTES_SECTIONS:
        lines.extend((f'## {heading}', '', hint, ''))
    lines += ('## Code-to-action map', '', notes_table.BEGIN)
    table = notes_table.render([], paths.rel(p.root, p.folder))
    return '\n'.join(lines) + '\n' + table + notes_table.END + '\n'


def _create(path: Path, text: str) -> bool:
    """Writes a new file; False (and nothing written) when one exists."""
    if path.exists() or path.is_symlink():
        return False
    atomic.write_text_atomic(path, text)
    return True


def _copy_schema(p: Manifest) -> list[str]:
    """The copy of the shipped schema that the manifest's "$schema" names, kept current after an
    upgrade (it is execlease's file, not the user's); nothing when the manifest names no copy."""
    if _json_key(p.folder / 'manifest.json', '$schema') != SCHEMA_COPY:
        return []
    path, rel = p.folder / SCHEMA_COPY, f'{paths.rel(p.root, p.folder)}/{SCHEMA_COPY}'
    if path.exists() and _json_key(path, 'title') != _json_key(SHIPPED_SCHEMA, 'title'):
        return [f"left alone: {rel} exists and is not execlease's manifest schema"]
    if path.exists() and path.read_bytes() == SHIPPED_SCHEMA.read_bytes():
        return [f"left alone: {rel} is already this execlease's manifest schema"]
    verb = 'updated' if path.exists() else 'created'
    atomic.write_text_atomic(path, SHIPPED_SCHEMA.read_text(encoding='utf-8'))
    return [f'{verb} {rel}: the JSON Schema that "$schema" in manifest.json names, for editors']


def _json_key(path: Path, key: str) -> object:
    try:
        data = json.loads(path.read_text(encoding='utf-8'))
    except (OSError, ValueError):
        return None
    return data.get(key) if isinstance(data, dict) else None


def _add_ignore(root: Path) -> bool:
    if _ignored(root, Path('.tmp/tla/tla2tools.jar')):  # relative: git -C root reads it there
        return False
    path = root / '.gitignore'
    try:
        old = path.read_text(encoding='utf-8') if path.exists() else ''
    except (OSError, UnicodeDecodeError) as e:
        raise CannotRun(f'{path}: cannot read it ({e}); add the line `.tmp/` yourself') from None
    separator = '' if not old or old.endswith('\n') else '\n'
    atomic.write_text_atomic(path, old + separator + IGNORE_LINES)
    return True


def run(options: argparse.Namespace, settings: Settings) -> int:
    root = repo.repo_root()
    p = plan_model(root, options.spec, list(options.cfg), options.model)
    hooks = init_hooks.plan(options.hooks, options.hooks_repo, options.hooks_rev)
    folder = paths.rel(root, p.folder)
    # The --model the hooks pass: none where they look without it, `verification/<name>/`.
    hooked = None if p.folder.parent == root / 'verification' else folder
    model = '' if hooked is None else f' --model {hooked}'
    exists = (p.folder / 'manifest.json').exists()
    libraries = () if exists else _libraries(p, list(options.library), settings)
    text = manifest_text(p, tuple(lib for lib, _ in libraries))
    report: list[str] = []
    if _create(p.folder / 'manifest.json', text):
        checks = ', '.join(f'{c.name} ({c.config})' for c in p.checks)
        report.append(
            f'created {folder}/manifest.json: spec {p.spec}, checks {checks}, no covered code yet'
        )
        for lib, said in libraries:
            report += (f'  library {lib.label}: {said[0]}', *(f'  {line}' for line in said[1:]))
        report += _unsupplied(p, [lib for lib, _ in libraries], model, settings)
    else:
        report.append(
            f'left alone: {folder}/manifest.json exists'
            + ('; add each library to it with:' if options.library else '')
        )
        report += (
            init_hooks.Verbatim(f'  execlease add --library {shlex.quote(value)}{model}')
            for value in options.library
        )
    report += _copy_schema(p)
    notes = p.folder / 'NOTES.md'
    if _create(notes, notes_text(p)):
        report.append(f'created {folder}/NOTES.md: its sections and the code-to-action markers')
    elif notes_table.has_markers(notes.read_text(encoding='utf-8', errors='replace')):
        report.append(f'left alone: {folder}/NOTES.md exists')
    else:
        report.append(
            f'left alone: {folder}/NOTES.md exists; it has no code-to-action markers: add the '
            f'lines {notes_table.BEGIN} and {notes_table.END} where the table belongs'
        )
    report.append(
        'added .tmp/ to .gitignore'
        if _add_ignore(root)
        else 'left alone: .gitignore already ignores .tmp/'
    )
    config = root / '.pre-commit-config.yaml'
    whole = init_hooks.config_text(hooks, hooked)
    if options.write_config and _create(config, whole):
        report.append('created .pre-commit-config.yaml: both hooks; run `pre-commit install`')
    elif not config.exists():
        report += (
            'no .pre-commit-config.yaml: write this one (or run again with --write-config):',
            '',
        )
        report += (init_hooks.Verbatim(line) for line in whole.splitlines())
    else:
        report += init_hooks.existing_config(config, hooks, hooked)
    if hooks.note is not None:
        report += ('', hooks.note)
    report += (
        '',
        'next: cover the code that implements each action, then record the first sync:',
        init_hooks.Verbatim(f'  execlease add PATH::FUNCTION --action ACTION{model}'),
        init_hooks.Verbatim(f'  execlease verify --update-coverage{model}'),
    )
    for line in () if options.quiet else report:  # -q: the exit code says it was done
        print(line if isinstance(line, init_hooks.Verbatim) else term.wrap(line))
    return 0


def _libraries(
    p: Manifest, values: list[str], settings: Settings
) -> list[tuple[Library, list[str]]]:
    """Each --library made ready as `verify` makes it, with what it supplies to the spec."""
    readied: list[tuple[Library, list[str]]] = []
    for value in values:
        lib = add_library.library_entry(p.root, value, settings=settings)
        if any(lib == old for old, _ in readied):
            raise CannotRun(f'--library {value}: given twice; name each library once')
        readied.append((lib, add_library.ready(p.root, lib, settings)))
    probe = dataclasses.replace(p, libraries=tuple(lib for lib, _ in readied))
    every = libraries.of(probe, settings)
    return [
        (lib, add_library.supplies(probe, lib, modules, every, settings))
        for lib, modules in readied
    ]


def _unsupplied(p: Manifest, given: list[Library], model: str, settings: Settings) -> list[str]:
    """What to run for the CommunityModules and TLAPS modules the model reads that neither its
    folder nor a --library supplies (any other missing module `verify` names when TLC asks)."""
    probe = dataclasses.replace(p, libraries=tuple(given))
    read, jar = add_library.read_by_model(probe, libraries.of(probe, settings), settings)
    wanted = set(add_library.unsupplied(read, library_modules.standard_modules(jar)))
    community = sorted(wanted & missing.COMMUNITY_MODULES)
    tlaps = sorted(wanted & missing.TLAPS_MODULES)
    lines: list[str] = []
    if community and not any(lib.url is not None for lib in given):
        lines += [
            f'the spec needs {", ".join(community)}, from CommunityModules: add the jar of a '
            'versioned release (not a rolling one) built for the TLC the model runs with (a '
            'current release needs the TLA+ tools 1.8 or newer; the offline TLC 2.15 cannot '
            'load its Java overrides); the command shows its sha256, to compare with the '
            "release's before you pin it with --sha256 (docs/libraries.md):",
            '',
            init_hooks.Verbatim(
                f'  execlease add --library {missing.COMMUNITY_URL} --name CommunityModules{model}'
            ),
            '',
        ]
    if tlaps:
        lines += [
            f'the spec needs {", ".join(tlaps)}, from the TLA+ Proof System: copy the .tla files '
            'of its library folder into a folder of the repository, then (docs/libraries.md):',
            '',
            init_hooks.Verbatim(f'  execlease add --library verification/tlaps{model}'),
            '',
        ]
    return lines
