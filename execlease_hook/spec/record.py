"""coverage.modelHash as a record per definition, and what changed against it.

The record holds, for the spec, the fingerprint of every top-level unit (spec/index.py) and, for
each cfg, the fingerprint of its meaning. A comment or layout edit changes none of them; any
other edit is named: `action Claim changed (ExecutionLease.tla:79-90) since the sync`.
An older manifest's "sha256:<hex>" (one hash of the bytes) is still read: the model counts as
unchanged while the bytes are, and the next `execlease verify --update-coverage` records the
per-definition form. (The TLC result cache keys on exact bytes; that is a different question.)

A model's library folders in the repository (manifest `libraries`) are part of it: each of
their modules is recorded per definition as the spec is, keyed by its path from the repository
root (`verification/lib/Ops.tla`), so an edit of a shared operator is named where it is.
"""
from __future__ import annotations

from execlease_hook.core import paths
from execlease_hook.core.digest import length_prefixed
from execlease_hook.manifest.model import library_folders, model_paths
from execlease_hook.core.digest import sha256

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from execlease_hook.spec import index as spec_index
from execlease_hook.core.errors import CannotRun
from execlease_hook.manifest.model import Manifest, ModelRecord
from execlease_hook.spec.index import SpecIndex

if TYPE_CHECKING:
    from execlease_hook.spec.actions import Action
    from execlease_hook.git.blobs import Source


@dataclass(frozen=True)
class ModelView:
    """The spec and cfgs of one model as one source holds them, read once."""

    manifest: Manifest
    spec: bytes
    index: SpecIndex
    cfgs: Mapping[str, bytes]       # every cfg the manifest names, by its name in the manifest
    # Each module of the library folders, by its path from the repository root.
    libraries: Mapping[str, bytes] = field(default_factory=dict)

    def actions(self) -> dict[str, Action]:
        from execlease_hook.spec import actions as action_map

        # Every cfg TLC runs the spec with: checks, mutations and findings.
        relations = action_map.next_relations(self.index, (self.cfgs[c] for c in sorted(self.cfgs)))
        return action_map.next_actions(self.index, relations)

    def mutation_problems(self) -> list[str]:
        """Mutations whose anchor no longer matches once (in its `within` operator): TLC could not
        run them, so a spec edit that breaks one (a reworded comment in it) stops the tools."""
        from execlease_hook.spec import mutation as spec_mutation
        from execlease_hook.core.errors import CannotRun

        problems = []
        actions = self.actions()
        for mu in self.manifest.mutations:
            try:
                spec_mutation.anchor(self.spec, self.manifest.spec, mu, self.index, actions)
            except CannotRun as e:
                problems.append(str(e))
        return problems


def read(m: Manifest, source: Source) -> ModelView:

    paths = dict(zip(m.model_files, model_paths(m)))
    prefetch = getattr(source, 'prefetch', None)
    if prefetch is not None:
        prefetch(paths.values())
    contents: dict[str, bytes] = {}
    for name, path in paths.items():
        content = source.read(path)
        if content is None:
            raise CannotRun(
                f'{m.path}: the model file {path} is missing from {source.description}; '
                'restore it or remove it from the manifest',
            )
        contents[name] = content
    spec = contents.pop(m.spec)
    return ModelView(m, spec, spec_index.read_spec(spec, m.spec), contents, _library_modules(m, source))


def _library_modules(m: Manifest, source: Source) -> dict[str, bytes]:
    folders = library_folders(m)
    if not folders:
        return {}
    from execlease_hook.git.blobs import WorktreeSource

    if isinstance(source, WorktreeSource):
        found = [p.relative_to(m.root).as_posix() for folder in folders for p in sorted((m.root / folder).glob('*.tla'))]
    else:
        from execlease_hook.git import repo as git

        found = [p for p in git.tree_files(m.root, getattr(source, 'commit', None), folders)
                 if any(paths.module_in_folder(f, p) for f in folders)]
    prefetch = getattr(source, 'prefetch', None)
    if prefetch is not None:
        prefetch(found)
    out: dict[str, bytes] = {}
    for path in found:
        content = source.read(path)
        if content is not None:
            out[path] = content
    return out


def record(view: ModelView) -> ModelRecord:
    files: dict[str, str | Mapping[str, str]] = {view.manifest.spec: view.index.digests()}
    for name, content in sorted(view.cfgs.items()):
        files[name] = spec_index.cfg_digest(content)
    for path, content in view.libraries.items():
        files[path] = spec_index.read_spec(content, path).digests()
    return ModelRecord(spec_index.SCHEME, dict(sorted(files.items())))


def changes(view: ModelView, source: Source) -> list[str]:
    """What changed since the recorded modelHash, one line each; [] when nothing did."""
    m = view.manifest
    recorded = m.coverage.model_hash
    if recorded is None:
        return ['never synced (no coverage.modelHash yet)']
    if isinstance(recorded, str):

        if model_hash(m, source) == recorded:
            return []
        return [
            'the spec or a cfg differs from the sync; coverage.modelHash is one sha256 of the '
            'bytes (an older execlease wrote it), so the change cannot be named; the next '
            '`execlease verify --update-coverage` records it per definition',
        ]
    current = record(view)
    lines: list[str] = []
    actions = view.actions()
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
        library = name != m.spec and name.endswith('.tla')
        kind = 'library module' if library else 'spec'
        if before is None:
            lines.append(f'{kind} {name} is new since the sync')
            continue
        if now is None:
            lines.append(f'{kind} {name} is no longer part of the model since the sync')
            continue
        index = spec_index.read_spec(view.libraries[name], name) if library else view.index
        named = {} if library else actions
        units = {u.key: u for u in index.units}
        for key, digest in now.items():
            unit = units[key]
            what = _what(key, unit.definition, named)
            if key not in before:
                lines.append(f'{what} added ({index.where(unit)}) since the sync')
            elif before[key] != digest:
                lines.append(f'{what} changed ({index.where(unit)}) since the sync')
        for key in before:
            if key not in now:
                definition = key.split('#')[0].split(' ')[0] not in spec_index.KEYWORDS
                lines.append(f'{_what(key, definition, named)} removed from {name} since the sync')
    return lines


def _what(key: str, definition: bool, actions: Mapping[str, object]) -> str:
    if key in actions:
        return f'action {key}'
    return f'definition {key}' if definition else key


def model_hash(manifest: Manifest, source: Source) -> str:
    """sha256 over the spec and every cfg: name, NUL, length, NUL, bytes, in model_files order."""
    digest = sha256()
    prefetch = getattr(source, 'prefetch', None)
    paths = model_paths(manifest)
    if prefetch is not None:
        prefetch(paths)
    for name, path in zip(manifest.model_files, paths):
        content = source.read(path)
        if content is None:
            raise CannotRun(
                f'{manifest.path}: the model file {path} is missing from {source.description}; '
                'restore it or remove it from the manifest',
            )
        digest.update(name.encode() + b'\0' + length_prefixed(content))
    return f'sha256:{digest.hexdigest()}'
