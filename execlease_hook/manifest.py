"""manifest.json, version 1 (DESIGN §4): load, validate, write.

API (stable; other modules depend on it):
  find_models(root: Path, model: str | None) -> list[Path]   model folders (each holds manifest.json)
  load(path: Path, root: Path) -> Manifest                    raises CannotRun naming file + JSON path
  dump(manifest: Manifest) -> str                             stable text: key order, 2-space indent, newline
  write(path: Path, manifest: Manifest) -> None               atomic (temp file + rename)
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

HASH_SCHEMES = ('ts1:sha256:',)
MODEL_HASH_PREFIX = 'sha256:'


@dataclass(frozen=True)
class Region:
    start: str          # JSON "from": exact text where the region starts
    end: str            # JSON "to": exact text where the region ends (inclusive)


@dataclass(frozen=True)
class CoveredEntry:
    id: str
    path: str                   # POSIX, relative to the repository root
    action: str                 # the model action this code implements
    function: str | None = None  # qualified name; exactly one of function / region
    region: Region | None = None
    within: str | None = None   # narrows a region to one function (qualified name)
    hash: str | None = None     # "ts1:sha256:<hex>"; None = never synced


@dataclass(frozen=True)
class Replace:
    start: str  # JSON "from"
    to: str


@dataclass(frozen=True)
class Check:
    name: str
    config: str                 # relative to the model folder
    states: int | None = None   # distinct states recorded at the last sync
    deadlock: bool = False      # True: check deadlock (default: TLC runs with -deadlock)
    timeout: float | None = None  # seconds


@dataclass(frozen=True)
class Mutation:
    name: str
    config: str
    replace: Replace
    violates: str
    timeout: float | None = None


@dataclass(frozen=True)
class Finding:
    id: str
    config: str
    violates: str
    summary: str = ''
    deadlock: bool = False
    timeout: float | None = None


@dataclass(frozen=True)
class Coverage:
    sync_commit: str | None
    model_hash: str | None
    entries: tuple[CoveredEntry, ...]


@dataclass(frozen=True)
class Manifest:
    path: Path                  # absolute path of manifest.json
    root: Path                  # absolute repository root
    spec: str                   # relative to the model folder
    checks: tuple[Check, ...]
    mutations: tuple[Mutation, ...] = ()
    findings: tuple[Finding, ...] = ()
    coverage: Coverage = field(default_factory=lambda: Coverage(None, None, ()))

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def model_files(self) -> list[str]:
        """Spec and every cfg the manifest names, relative to the folder, sorted, unique."""
        names = {self.spec}
        names.update(c.config for c in self.checks)
        names.update(m.config for m in self.mutations)
        names.update(f.config for f in self.findings)
        return sorted(names)
