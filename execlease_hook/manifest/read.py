"""manifest.json -> the data model (manifest/model.py), every error naming the file, the JSON
path of the field (`coverage.entries[3].region.from`) and what to do. What each value may be is
the JSON Schema's to say (manifest/schema.py); here is only what a schema cannot say: a path as
git spells it and where it leads on disk, names unique within a list, the rules across parts.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import re
from pathlib import Path
from typing import Any

from execlease_hook.core import paths
from execlease_hook.core.errors import CannotRun
from execlease_hook.manifest import model, schema, watch_paths

# What a pinned jar and a TLC version look like, shared with the commands that write them
# (commands/add_library.py).
_TOOLS = schema.SCHEMA['definitions']['tools']['properties']
SHA256 = schema.pattern(_TOOLS['sha256']['pattern'])
JAR_URL = schema.pattern(_TOOLS['url']['pattern'])
TLC_VERSION = schema.pattern(_TOOLS['minTlc']['pattern'])
_MODEL_PATH, _REPO_PATH = '#/definitions/modelPath', '#/definitions/repoPath'


class _Reader(schema.Validator):
    """The schema's checks, and a path's spelling and place on disk (core/paths.py): the guard
    compares the manifest's paths with git's as strings."""

    def __init__(self, folder: Path, root: Path) -> None:
        self.bases = {_MODEL_PATH: folder, _REPO_PATH: root}
        self.root, self._resolved_root = root, root.resolve()
        self._on_disk: dict[tuple[Path, str], str | None] = {}  # a path's disk checks, once

    def ref(self, target: str, value: object, where: str) -> None:
        base = self.bases.get(target)
        if base is None or not isinstance(value, str) or not value:
            return super().ref(target, value, where)
        problem = paths.spelling_problem(value)
        if problem is not None and problem.endswith('is absolute'):
            named = 'the repository root' if base == self.root else 'the model folder'
            problem += f'; give a path relative to {named}'
        if problem is None:
            super().ref(target, value, where)
            key = (base, value)
            if key not in self._on_disk:  # entries of one file share it: each costs syscalls
                self._on_disk[key] = self._disk_problem(value, base)
            problem = self._on_disk[key]
        if problem is not None:
            raise schema.Invalid(where, problem)

    def _disk_problem(self, text: str, base: Path) -> str | None:
        try:
            resolved = (base / text).resolve()
        except (OSError, RuntimeError) as e:  # a symlink loop
            return f'{text!r} cannot be resolved ({e}); fix the symlinks on its way'
        if not resolved.is_relative_to(self._resolved_root):
            return (
                f'{text!r} resolves to {resolved}, outside the '
                f'repository {self.root} (a symlink pointing outside?)'
            )
        return paths.case_problem(base, text) or paths.submodule_problem(self.root, base, text)


@functools.cache
def _types(cls: type) -> dict[str, str]:
    return {f.name: str(f.type) for f in dataclasses.fields(cls)}


@functools.cache
def _named_class(cls: type, name: str) -> Any:
    """The class of the manifest's that field `name` of `cls` holds, as its type first names it
    (`region: Region | None`, `abstract: tuple[AbstractAction, ...]`), or None. Asked only for a
    key the manifest has: the classes of the parts it may leave out load when first named
    (manifest/model.py). Without a regular expression: compiling one cost a commit 0.4 M
    instructions (callgrind; `python -c pass` is 88 M)."""
    words = _types(cls)[name].replace('[', ' ').replace(',', ' ').split()
    found = getattr(model, next((w for w in words if w[:1].isupper()), '_'), None)
    return found if dataclasses.is_dataclass(found) else None


def _record(cls: type, d: dict[str, Any]) -> Any:
    """A record from a checked JSON object, each key as its field (model.json_keys), by the
    field's type: an object, or an array of them, as the class the type names; an object into a
    tuple as (key, cfg text) pairs (env, a deep run's constants: JSON true/false are TLA+'s
    TRUE/FALSE, a whole number is cfg text as written); other arrays as tuples; seconds as floats."""
    names, types = model.json_keys(cls), _types(cls)
    fields: dict[str, Any] = {}
    for key, value in d.items():
        name = names[key]
        items = value if isinstance(value, list) else [value]
        inner = _named_class(cls, name) if items and isinstance(items[0], dict) else None
        if inner is not None:
            built = [_record(inner, item) for item in items]
            value = built if isinstance(value, list) else built[0]
        elif isinstance(value, dict) and types[name].startswith('tuple'):
            text = {True: 'TRUE', False: 'FALSE'}
            value = [(k, text[v] if isinstance(v, bool) else str(v)) for k, v in value.items()]
        elif isinstance(value, int) and types[name].startswith('float'):
            value = float(value)
        fields[name] = tuple(value) if isinstance(value, list) else value
    return cls(**fields)


def _problem(m: model.Manifest) -> tuple[str, str] | None:
    """The first rule of one part against another that `m` breaks: (JSON path, what to do)."""
    c = m.coverage
    # Each list whose items are named, and by what.
    named: list[tuple[str, tuple[Any, ...], str]] = [
        ('checks', m.checks, 'name'),
        ('mutations', m.mutations, 'name'),
        ('findings', m.findings, 'id'),
        ('traces', m.traces, 'name'),
        ('codeMutations', m.code_mutations, 'name'),
        ('coverage.entries', c.entries, 'id'),
        ('coverage.abstract', c.abstract, 'action'),
        ('coverage.untraced', c.untraced, 'action'),
    ]
    for where, items, key in named:
        seen: dict[str, int] = {}
        for i, item in enumerate(items):
            name = getattr(item, key)
            if name in seen:
                return (
                    f'{where}[{i}].{key}',
                    f'duplicate {key} {name!r} (also {where}[{seen[name]}]); '
                    f'every {key} must be unique',
                )
            seen[name] = i
    edits: list[tuple[str, tuple[model.Mutation | model.CodeMutation, ...]]] = [
        ('mutations', m.mutations),
        ('codeMutations', m.code_mutations),
    ]
    for where, edited in edits:
        for i, item in enumerate(edited):
            if item.replace.start == item.replace.to:
                return (
                    f'{where}[{i}].replace',
                    '"from" and "to" are the same text: nothing is mutated',
                )
    for i, rule in enumerate(c.watch):
        groups = re.compile(rule.strings).groups if rule.strings is not None else 1
        try:
            (rule.what or '').format(*(['x'] * (groups + 1)), callee='x')
        except (IndexError, KeyError, ValueError) as e:
            return (
                f'coverage.watch[{i}].what',
                f'{rule.what!r} cannot be filled in ({e}); use {{0}} for the match, '
                '{1}, {2}... for its groups, {callee} for the callee',
            )
    globs = [g for rule in c.watch for g in rule.paths]
    for i, ignored in enumerate(c.ignored):
        if not watch_paths.matches(globs, ignored.path):
            return (
                f'coverage.ignored[{i}].path',
                f"{ignored.path!r} is under no watch rule's paths, so "
                'nothing would judge it; remove the item or fix the path',
            )
    if c.untraced and not m.traces:
        return (
            'coverage.untraced',
            'exempts actions from trace action coverage, but the model has '
            'no trace job; remove it or add one under "traces"',
        )
    covered = sorted({e.action for e in c.entries})
    for i, item in enumerate(c.untraced):
        if item.action not in covered:
            return (
                f'coverage.untraced[{i}].action',
                f'{item.action!r} is the action of no covered entry, so trace action '
                f'coverage never asks for it (covered: {", ".join(covered) or "none"})',
            )
    known = {j.name for j in m.traces}
    for i, mutation in enumerate(m.code_mutations):
        for j, name in enumerate(mutation.traces):
            if name not in known:
                return (
                    f'codeMutations[{i}].traces[{j}]',
                    f'no trace job named {name!r} (known: {", ".join(sorted(known)) or "none"})',
                )
        if not known:
            return (
                f'codeMutations[{i}]',
                'a code mutation needs a trace job to reject it; add one under "traces"',
            )
    libs: dict[tuple[str, str | None], int] = {}
    for i, lib in enumerate(m.libraries):
        if lib.folder is not None and (m.root / lib.folder).resolve() == m.folder.resolve():
            return (
                f'libraries[{i}].folder',
                f'{lib.folder!r} is the model folder itself, whose modules TLC finds '
                'without a library entry; remove the entry',
            )
        for what, value in (('folder', lib.folder), ('jar', lib.sha256), ('url', lib.url)):
            first = libs.setdefault((what, value), i)
            if value is not None and first != i:
                return (
                    f'libraries[{i}]',
                    f'the same {what} as libraries[{first}]; list each library once',
                )
    return None


def parse(text: str, path: Path, root: Path) -> model.Manifest:
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as e:
        raise CannotRun(f'{path}:{e.lineno}:{e.colno}: not valid JSON: {e.msg}') from None
    except ValueError as e:  # an integer of thousands of digits
        raise CannotRun(f'{path}: not a usable manifest: {e}') from None
    except RecursionError:
        raise CannotRun(f'{path}: not a usable manifest: nested too deeply') from None
    try:
        _Reader(path.parent, root).check(schema.SCHEMA, raw, '$')
    except schema.Invalid as e:
        raise CannotRun(f'{path}: {e.where}: {e.problem}') from None
    fields = {k: v for k, v in raw.items() if k != 'version'}
    fields.update(path=path, root=root, coversCode='coverage' in raw)
    m: model.Manifest = _record(model.Manifest, fields)
    problem = _problem(m)
    if problem is not None:
        raise CannotRun(f'{path}: {problem[0]}: {problem[1]}')
    return m


def load(path: Path, root: Path) -> model.Manifest:
    path, root = Path(os.path.abspath(path)), Path(os.path.abspath(root))
    outside = paths.outside_problem(root, path)
    if outside is not None and path.exists():
        raise CannotRun(outside)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CannotRun(f'{path}: no such manifest') from None
    except OSError as e:
        raise CannotRun(f'{path}: cannot read: {e.strerror}') from None
    try:
        text = data.decode('utf-8')
    except UnicodeDecodeError as e:
        raise CannotRun(f'{path}: not UTF-8 (byte {e.start}); save it as UTF-8') from None
    return parse(text, path, root)
