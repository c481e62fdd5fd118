"""coverage.modelHash as a record per definition, and what changed against it.

The record holds the fingerprint of every top-level unit (spec/index.py) of every module the
model reads (spec/modules.py) and, for each cfg, the fingerprint of its meaning. A comment or
layout edit changes none of them; any other edit is named, with its module and line: `action
Claim changed (ExecutionLease.tla:79-90) since the sync`. A module of the model folder is keyed
by its file name (`LockLib.tla`), as the spec is; a library folder's by its path from the
repository root (`verification/lib/Ops.tla`); a module nothing reads is no part of the model.

An older manifest's "sha256:<hex>" (one hash of the bytes) is still read: the model counts as
unchanged while the bytes are, and the next `execlease verify --update-coverage` records the
per-definition form. (The TLC result cache keys on exact bytes; that is a different question.)

A record an older execlease wrote holds the spec, the cfgs and every module of the library
folders, whether read or not, and no other module of the model folder: what differs only because
of that is told apart from a change (`Comparison.upgrade`; spec/older_record.py judges it).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from execlease_hook.core.digest import length_prefixed
from execlease_hook.core.errors import CannotRun
from execlease_hook.git.blobs import Source, WorktreeSource
from execlease_hook.manifest.model import Manifest, ModelRecord, folder_prefix, model_paths
from execlease_hook.spec import actions, index, mutation
from execlease_hook.spec.actions import Action
from execlease_hook.spec.index import SpecIndex, Unit
from execlease_hook.spec.modules import Module, closure, merged_index
from execlease_hook.spec.older_record import older_record


@dataclass(frozen=True)
class ModelView:
    """The spec, cfgs and modules of one model as one source holds them, read once."""

    manifest: Manifest
    spec: bytes
    index: SpecIndex
    cfgs: Mapping[str, bytes]  # every cfg the manifest names, by its name in the manifest
    # Every other module the model reads (spec/modules.py), in the order they are met.
    modules: tuple[Module, ...] = field(default_factory=tuple)

    @cached_property
    def model_index(self) -> SpecIndex:
        """The spec's definitions and those of every module it reads (modules.merged_index): a
        wrapper `MCLease.tla` that EXTENDS `Lease.tla` has Lease's actions."""
        indexes = [self.index, *(index.read_spec(mod.text, mod.key) for mod in self.modules)]
        return merged_index(indexes)

    def actions(self) -> dict[str, Action]:
        # Every cfg TLC runs the spec with: checks, mutations and findings.
        index = self.model_index
        relations = actions.next_relations(index, (self.cfgs[c] for c in sorted(self.cfgs)))
        return actions.next_actions(index, relations)

    def definition(self, name: str) -> Unit | None:
        """Where the model defines `name`: in the spec or a module it reads (`unit.file`)."""
        return self.model_index.definitions().get(name)

    def mutation_problems(self) -> list[str]:
        """Mutations whose anchor no longer matches once (in its `within` operator): TLC could not
        run them, so a spec edit that breaks one (a reworded comment in it) stops the tools."""
        problems = []
        actions = self.actions()
        texts = {mod.key: mod.text for mod in self.module_list()}
        for mu in self.manifest.mutations:
            edited = mu.module or self.manifest.spec
            text = texts.get(edited)
            if text is None:
                problems.append(
                    f'mutation {mu.name}: module {edited} is not read by the model; '
                    'name in "module" a module the root module EXTENDS or INSTANCEs'
                )
                continue
            index = self.index if edited == self.manifest.spec else None
            try:
                mutation.anchor(text, edited, mu, index, actions)
            except CannotRun as e:
                problems.append(str(e))
        return problems

    def module_list(self) -> list[Module]:
        """The modules of the model, the spec first."""
        m = self.manifest
        name = self.index.module or m.spec.removesuffix('.tla')
        return [Module(name, m.spec, folder_prefix(m) + m.spec, self.spec), *self.modules]


def in_worktree(m: Manifest) -> ModelView | None:
    """The model as the working tree holds it; None when a model file is missing or unreadable
    (the caller then says what it can without it)."""
    try:
        return read(m, WorktreeSource(m.root))
    except (CannotRun, OSError):
        return None


def _model_files(m: Manifest, source: Source) -> dict[str, bytes]:
    """The spec and every cfg by its name in the manifest, in model_files order."""
    paths = dict(zip(m.model_files, model_paths(m)))
    source.prefetch(paths.values())
    contents: dict[str, bytes] = {}
    for name, path in paths.items():
        content = source.read(path)
        if content is None:
            raise CannotRun(
                f'{m.path}: the model file {path} is missing from {source.description}; '
                'restore it or remove it from the manifest',
            )
        contents[name] = content
    return contents


def read(m: Manifest, source: Source) -> ModelView:
    contents = _model_files(m, source)
    spec = contents.pop(m.spec)
    spec_units = index.read_spec(spec, m.spec)
    # The checks' own root modules (a wrapper MCLease.tla beside the spec) are roots too.
    roots = {m.spec: spec, **{name: contents.pop(name) for name in m.roots[1:]}}
    modules = tuple(closure(m, source, roots)[1:])
    return ModelView(m, spec, spec_units, contents, modules)


def record(view: ModelView) -> ModelRecord:
    files: dict[str, str | Mapping[str, str]] = {view.manifest.spec: view.index.digests()}
    for name, content in sorted(view.cfgs.items()):
        files[name] = index.cfg_digest(content)
    for module in view.modules:
        files[module.key] = index.read_spec(module.text, module.key).digests()
    return ModelRecord(index.SCHEME, dict(sorted(files.items())))


@dataclass(frozen=True)
class Comparison:
    """The model against its recorded modelHash."""

    changes: list[str]  # what changed in the model since the sync, one line each
    upgrade: list[str] = field(default_factory=list)  # what only an older record's form explains
    unjudged: bool = False  # a module the model reads is not in that older record: one sync


UPGRADE_STEP = (
    'execlease records every module the model reads since this version; run `execlease verify`, '
    'then `execlease verify --update-coverage` once to record them (with --reason "..." if covered '
    'code changed and no model file did)'
)


def compare(view: ModelView, source: Source) -> Comparison:
    """What changed since the recorded modelHash, and what an older record cannot say."""
    m = view.manifest
    recorded = m.coverage.model_hash
    if recorded is None:
        return Comparison(['never synced (no coverage.modelHash yet)'])
    if isinstance(recorded, str):
        if model_hash(m, source) == recorded:
            return Comparison([])
        return Comparison(
            [
                'the spec or a cfg differs from the sync; coverage.modelHash is one sha256 of the '
                'bytes (an older execlease wrote it), so the change cannot be named; the next '
                '`execlease verify --update-coverage` records it per definition',
            ]
        )
    current = record(view)
    lines: list[str] = []
    actions = view.actions()
    modules = {mod.key: mod for mod in view.modules}
    new_reads = [key for key in current.files if key in modules and key not in recorded.files]
    dropped = [
        key
        for key in recorded.files
        if key not in current.files and key.endswith('.tla') and key != m.spec
    ]
    older = older_record(view.manifest, view.module_list(), recorded, new_reads, dropped, source)
    upgrade: list[str] = []
    for name in sorted(set(current.files) | set(recorded.files), key=lambda n: (n != m.spec, n)):
        before, now = recorded.files.get(name), current.files.get(name)
        if before == now:
            continue
        if isinstance(now, str) or isinstance(before, str):
            if before is None:
                lines.append(f'config {name} is new since the sync')
            elif now is None:
                lines.append(f'{name} is no longer part of the model since the sync')
            else:
                lines.append(f'config {name} changed its meaning since the sync')
            continue
        kind = 'spec' if name == m.spec else 'library module' if '/' in name else 'module'
        if before is None:
            module = modules[name]
            if older:
                upgrade.append(
                    f'{kind} {name} ({module.via()}) is read by the model but not in '
                    'the record, which an older execlease wrote: an edit of it since '
                    'the sync cannot be named'
                )
            else:
                lines.append(f'{kind} {name} is new to the model since the sync ({module.via()})')
            continue
        if now is None:
            if older:
                upgrade.append(
                    f'{kind} {name} is in the record, which an older execlease wrote, '
                    'but no module of the model reads it: the sync drops it'
                )
            else:
                lines.append(f'{kind} {name} is no longer part of the model since the sync')
            continue
        units_of = view.index if name == m.spec else index.read_spec(modules[name].text, name)
        named = {key: a for key, a in actions.items() if (a.unit.file or m.spec) == name}
        units = {u.key: u for u in units_of.units}
        for key, digest in now.items():
            if before.get(key) != digest:
                unit, change = units[key], 'changed' if key in before else 'added'
                what = _what(key, unit.definition, named)
                lines.append(f'{what} {change} ({units_of.where(unit)}) since the sync')
        for key in before:
            if key not in now:
                definition = key.split('#')[0].split(' ')[0] not in index.KEYWORDS
                lines.append(f'{_what(key, definition, named)} removed from {name} since the sync')
    return Comparison(lines, upgrade, older and bool(new_reads))


def _what(key: str, definition: bool, actions: Mapping[str, object]) -> str:
    if key in actions:
        return f'action {key}'
    return f'definition {key}' if definition else key


def model_hash(manifest: Manifest, source: Source) -> str:
    """sha256 over the spec and every cfg: name, NUL, length, NUL, bytes, in model_files order."""
    digest = hashlib.sha256()
    for name, content in _model_files(manifest, source).items():
        digest.update(name.encode() + b'\0' + length_prefixed(content))
    return f'sha256:{digest.hexdigest()}'
