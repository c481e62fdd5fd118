"""manifest.json's data model: one frozen value per object of the file, each field the key of
that name in snake case (schemas/manifest.schema.json declares the keys; manifest/read.py reads
them, manifest/write.py writes).

It is kept whole: it is the one declaration of the file's objects, which
tests/manifest/schema_test.py holds equal to the schema's, key for key, as one set.

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
class Replace:
    """A mutation's edit: the text `start` (JSON "from"), once, becomes `to`."""

    start: str = field(metadata={'key': 'from'})
    to: str


@dataclass(frozen=True)
class Deep:
    """A check's larger bounds for `verify --deep` (verify/deep.py): constants the cfg assigns, as cfg text."""

    constants: tuple[tuple[str, str], ...]  # (name, value), in the manifest's order
    timeout: float | None = None  # the time budget, seconds (default: --budget)
    states: int | None = None  # distinct states of the last full deep run, recorded by hand


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
class Mutation:
    """A break of the spec that TLC must catch: the named property must be violated."""

    name: str
    config: str
    replace: Replace
    violates: str
    timeout: float | None = None
    within: str | None = None  # the operator the mutation edits: its anchor must be inside it
    deadlock: bool | None = None  # as on a check
    module: str | None = None  # the module file it edits (Lease.tla); None: the manifest's spec


@dataclass(frozen=True)
class Finding:
    """A known violation kept as a regression: its cfg must fail with the named property."""

    id: str
    config: str
    violates: str
    summary: str = ''
    deadlock: bool | None = None  # as on a check
    timeout: float | None = None


@dataclass(frozen=True)
class FieldRule:
    """Which top-level fields of a trace line reach TLA+: `keep` only these, or `drop` these."""

    keep: tuple[str, ...] | None = None
    drop: tuple[str, ...] = ()

    def passes(self, name: str) -> bool:
        return name not in self.drop if self.keep is None else name in self.keep


@dataclass(frozen=True)
class TraceJob:
    """Trace validation (traces/validation.py): NDJSON traces of the real program against a trace
    spec."""

    name: str
    spec: str  # the trace spec, relative to the model folder
    config: str
    files: tuple[str, ...] = ()  # glob patterns of NDJSON traces, relative to the model folder
    command: tuple[str, ...] = ()  # or: argv run from the repository root, writing the traces
    timeout: float | None = None  # seconds, for the command and for TLC each
    env: tuple[tuple[str, str], ...] = ()  # variables set for the command: (name, value), in order
    fields: FieldRule | None = None  # which fields of a line reach TLA+ (default: all)
    line: str = 'l'  # a project's own trace spec: its variable of the next line


@dataclass(frozen=True)
class CodeMutation:
    """A break of the covered code (a copy of the repository) that the trace jobs must reject."""

    name: str
    path: str  # the source file, relative to the repository root
    replace: Replace
    traces: tuple[str, ...] = ()  # the trace jobs that must reject it (default: every one)


@dataclass(frozen=True)
class Library:
    """A TLA+ library the model's modules EXTEND or INSTANCE (docs/libraries.md): a jar, fetched
    from `url` and trusted by its pinned `sha256`, on TLC's class path; or a `folder` of .tla
    modules in the repository (relative to the repository root) on TLC's library path."""

    url: str | None = None  # a jar: where it is downloaded from
    sha256: str | None = None  # a jar: 64 hex, checked on every use
    name: str | None = None  # a jar: how reports name it (default: the url's file name)
    folder: str | None = None  # a folder: POSIX, relative to the repository root

    @property
    def label(self) -> str:
        """How messages and reports name the library."""
        if self.folder is not None:
            return self.folder
        if self.name is not None:
            return self.name
        return (self.url or '').rstrip('/').rsplit('/', 1)[-1] or (self.url or '')


@dataclass(frozen=True)
class ToolsPin:
    """The TLA+ tools a model runs with (docs/how-to/tla-tools.md#a-models-own-tla-tools): its own
    jar, trusted by its pinned `sha256` and fetched from `url` when it is not on this machine,
    and the lowest TLC version its specs need (`min_tlc`); either may be given alone."""

    url: str | None = None
    sha256: str | None = None
    min_tlc: str | None = None  # 'MAJOR.MINOR', e.g. '2.19', compared with the jar's TLC


@dataclass(frozen=True)
class ModelRecord:
    """coverage.modelHash per definition: for the spec, a fingerprint per top-level unit (see
    spec/index.py); for each cfg, one fingerprint of its meaning. Keys relative to the model folder."""

    scheme: str  # 'tla1'
    files: Mapping[str, str | Mapping[str, str]]  # cfg -> hex; spec -> {unit key -> hex}


@dataclass(frozen=True)
class AbstractAction:
    """An action declared to have no code, and why."""

    action: str  # an action of the next-state relation that no code implements
    reason: str


@dataclass(frozen=True)
class UntracedAction:
    """A covered action exempted from trace action coverage: no trace reaches it yet."""

    action: str
    reason: str


@dataclass(frozen=True)
class WatchRule:
    """What protocol code looks like: every function in `paths` that matches must be covered."""

    paths: tuple[str, ...]  # globs relative to the repository root (`**` spans folders)
    strings: str | None = (
        None  # a regular expression searched in a function's text, comments left out
    )
    calls: tuple[
        str, ...
    ] = ()  # callee names: `release` matches `release(...)` and `lease.release(...)`
    what: str | None = (
        None  # the message's verb phrase: "writes {2}" ({0} the match, {1}... its groups)
    )


@dataclass(frozen=True)
class IgnoredCode:
    """A function a watch rule matches that is not protocol code, and why."""

    path: str
    function: str  # qualified name, as in a coverage entry
    reason: str


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
    libraries: tuple[
        Library, ...
    ] = ()  # in TLC's search order: jars on the class path, folders on the library path

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
        names = {self.spec}
        names.update(self.roots)
        names.update(c.config for c in self.checks)
        names.update(m.config for m in self.mutations)
        names.update(f.config for f in self.findings)
        return sorted(names)


def library_folders(manifest: Manifest) -> list[str]:
    """The model's library folders in the repository, as the manifest names them (root-relative)."""
    return [lib.folder for lib in manifest.libraries if lib.folder is not None]


def model_paths(manifest: Manifest) -> list[str]:
    """The spec and every cfg, relative to the repository root (POSIX)."""
    folder = manifest.folder.relative_to(manifest.root).as_posix()
    prefix = '' if folder == '.' else f'{folder}/'
    return [prefix + name for name in manifest.model_files]
