"""The classes of the parts of manifest.json that a model may leave out (its mutations,
findings, trace jobs, code mutations, libraries, tools pin, and coverage's abstract, untraced,
watch and ignored lists), declared as manifest/model.py declares the rest, which names them.

Apart from model.py because a class costs its first use: manifest/model.py says how much.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
    # A regular expression searched in a function's text, comments left out.
    strings: str | None = None
    # Callee names: `release` matches `release(...)` and `lease.release(...)`.
    calls: tuple[str, ...] = ()
    # The message's verb phrase: "writes {2}" ({0} the match, {1}... its groups).
    what: str | None = None


@dataclass(frozen=True)
class IgnoredCode:
    """A function a watch rule matches that is not protocol code, and why."""

    path: str
    function: str  # qualified name, as in a coverage entry
    reason: str
