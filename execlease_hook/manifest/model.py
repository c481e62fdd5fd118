"""manifest.json's data model: one frozen value per object of the file, each field the key of
that name in snake case (schemas/manifest.schema.json declares the keys; manifest/read.py reads
them, manifest/write.py writes).

It is, with manifest/sections.py, the one declaration of the file's objects, which
tests/manifest/schema_test.py holds equal to the schema's, key for key, as one set. The classes
of the parts a manifest may leave out are declared there and named here (`model.Mutation`),
loaded when first named: a frozen dataclass costs about 4 M instructions to build (six functions
compiled), and a commit that changes covered code reads a manifest of checks and coverage
entries (benchmarks/guard_latency.py, case c: 399 M instructions with all nineteen classes
here, 352 M with thirteen there; `python -c pass` is 88 M; callgrind).

Each class has a docstring, as have the other dataclasses the guard builds: for a class without
one, dataclasses writes one from inspect.signature, which took the guard judging one covered
file 2 ms of CPU for its 14 such classes (load 25).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from execlease_hook.manifest.sections import AbstractAction as AbstractAction
    from execlease_hook.manifest.sections import CodeMutation as CodeMutation
    from execlease_hook.manifest.sections import Deep as Deep
    from execlease_hook.manifest.sections import FieldRule as FieldRule
    from execlease_hook.manifest.sections import Finding as Finding
    from execlease_hook.manifest.sections import IgnoredCode as IgnoredCode
    from execlease_hook.manifest.sections import Library as Library
    from execlease_hook.manifest.sections import Mutation as Mutation
    from execlease_hook.manifest.sections import Replace as Replace
    from execlease_hook.manifest.sections import ToolsPin as ToolsPin
    from execlease_hook.manifest.sections import TraceJob as TraceJob
    from execlease_hook.manifest.sections import UntracedAction as UntracedAction
    from execlease_hook.manifest.sections import WatchRule as WatchRule

VERSION = 1  # the schema's "version" (tests/manifest/schema_test.py)


@functools.cache
def json_keys(cls: type) -> dict[str, str]:
    """The keys of a value's object in manifest.json, each with its field: the field's name in
    camel case (`synced_blob`: syncedBlob), or the key its metadata names."""
    return {
        f.metadata.get('key') or re.sub('_([a-z])', lambda m: m[1].upper(), f.name): f.name
        for f in fields(cls)
    }


@dataclass(frozen=True)
class Region:
    """Covered code that is not a whole function: from one text to another, by its tokens."""

    start: str = field(metadata={'key': 'from'})  # where the region starts (by its tokens too)
    end: str = field(metadata={'key': 'to'})  # where the region ends (inclusive)


@dataclass(frozen=True)
class CoveredEntry:
    """Code that implements a model action, and its fingerprint at the last sync."""

    id: str
    path: str  # POSIX, relative to the repository root
    action: str  # the model action this code implements
    function: str | None = None  # qualified name; exactly one of function / region
    region: Region | None = None
    within: str | None = None  # narrows a region to one function (qualified name)
    hash: str | None = None  # "ts2:sha256:<hex>" (or an older "ts1:..."); None = never synced
    synced_blob: str | None = None  # JSON "syncedBlob": git blob of the file as it was hashed
    sync_reason: str | None = None  # JSON "syncReason": why the hash moved while the model did not


@dataclass(frozen=True)
class Check:
    """A TLC run that must pass: a cfg of the spec (or of its own root module)."""

    name: str
    config: str  # relative to the model folder
    states: int | None = None  # distinct states recorded at the last sync
    deadlock: bool | None = None  # None: the cfg's CHECK_DEADLOCK, else TLC's default (checked)
    timeout: float | None = None  # seconds
    deep: Deep | None = None  # larger bounds for `verify --deep`
    spec: str | None = None  # the root module TLC checks (MCLease.tla); None: the manifest's


@dataclass(frozen=True)
class ModelRecord:
    """coverage.modelHash per definition: for the spec, a fingerprint per top-level unit (see
    spec/index.py); for each cfg, one fingerprint of its meaning. Keys relative to the model folder."""

    scheme: str  # 'tla1'
    files: Mapping[str, str | Mapping[str, str]]  # cfg -> hex; spec -> {unit key -> hex}


@dataclass(frozen=True)
class Coverage:
    """What code the model describes, and the sync point of both."""

    sync_commit: str | None = None
    model_hash: str | ModelRecord | None = None  # str: "sha256:<hex>" of the bytes (older ones)
    entries: tuple[CoveredEntry, ...] = ()
    abstract: tuple[AbstractAction, ...] = ()
    untraced: tuple[UntracedAction, ...] = ()  # exempted from trace action coverage
    watch: tuple[WatchRule, ...] = ()
    ignored: tuple[IgnoredCode, ...] = ()


# Which rule maps the spec's actions to code, as reports name it ("actionMap"). Every action of
# the next-state relation must be covered or declared abstract once the model is tied to code,
# that is from its first covered entry on; before, a spec kept for its own sake or not yet tied
# to code would fail on every action although nothing is wrong with it (docs/concepts.md,
# "When every action needs code").
EVERY_ACTION = 'every-action'  # coverage.entries has an entry
NO_ENTRY_YET = 'no-entry-yet'  # "coverage" without entries: names are checked, no action needs code
NO_COVERAGE = 'no-coverage'  # no "coverage": the model covers no code, there is no map


@dataclass(frozen=True)
class Manifest:
    """A model: its spec, what TLC runs, and the code it covers."""

    path: Path  # absolute path of manifest.json
    root: Path  # absolute repository root
    spec: str  # relative to the model folder
    checks: tuple[Check, ...] = ()
    mutations: tuple[Mutation, ...] = ()
    findings: tuple[Finding, ...] = ()
    coverage: Coverage = field(default_factory=Coverage)
    traces: tuple[TraceJob, ...] = ()
    code_mutations: tuple[CodeMutation, ...] = ()
    covers_code: bool = True  # False: the manifest has no "coverage" (a model of no code)
    # Where editors find the JSON Schema; kept as written.
    schema: str | None = field(default=None, metadata={'key': '$schema'})
    tools: ToolsPin | None = None  # None: the default TLA+ tools (tlc/jar.py)
    # In TLC's search order: jars on the class path, folders on the library path.
    libraries: tuple[Library, ...] = ()

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def action_map(self) -> str:
        """EVERY_ACTION, NO_ENTRY_YET or NO_COVERAGE: whether every action needs code."""
        if not self.covers_code:
            return NO_COVERAGE
        return EVERY_ACTION if self.coverage.entries else NO_ENTRY_YET

    @property
    def roots(self) -> list[str]:
        """The root modules TLC checks: the spec, then every other one a check names."""
        return list(
            dict.fromkeys((self.spec, *(c.spec for c in self.checks if c.spec is not None)))
        )

    def root_of(self, config: str) -> str:
        """The root module TLC runs a cfg on: that of the check with this cfg, else the spec (a
        mutation or finding with MC.cfg runs on MC.tla, as its check does)."""
        return next(
            (c.spec for c in self.checks if c.config == config and c.spec is not None), self.spec
        )

    @property
    def model_files(self) -> list[str]:
        """Every root module and cfg the manifest names, relative to the folder, sorted, unique."""
        configs = {c.config for c in self.checks} | {m.config for m in self.mutations}
        return sorted({*self.roots, *configs, *(f.config for f in self.findings)})


def library_folders(manifest: Manifest) -> list[str]:
    """The model's library folders in the repository, as the manifest names them (root-relative)."""
    return [lib.folder for lib in manifest.libraries if lib.folder is not None]


def folder_prefix(manifest: Manifest) -> str:
    """What a name in the model folder starts with, relative to the repository root (POSIX):
    '' for a model at the root, else the folder and a slash."""
    folder = manifest.folder.relative_to(manifest.root).as_posix()
    return '' if folder == '.' else f'{folder}/'


def model_paths(manifest: Manifest) -> list[str]:
    """The spec and every cfg, relative to the repository root (POSIX)."""
    return [folder_prefix(manifest) + name for name in manifest.model_files]


def __getattr__(name: str) -> type:
    """A class of manifest/sections.py, by its name here (`model.Mutation`), loaded when first
    named (see the top). Any other name is missing without loading it: `from model import X`
    asks for `__path__` first."""
    if name[:1].isupper():
        from execlease_hook.manifest import sections

        found = vars(sections).get(name)
        if isinstance(found, type) and found.__module__ == sections.__name__:
            globals()[name] = found
            return found
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
