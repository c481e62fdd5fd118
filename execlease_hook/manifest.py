"""manifest.json, version 1: load, validate, write (the README's "manifest.json" is the reference).

API (stable; other modules depend on it):
  find_models(root: Path, model: str | None) -> list[Path]   model folders (each holds manifest.json)
  load(path: Path, root: Path) -> Manifest                    raises CannotRun naming file + JSON path
  dump(manifest: Manifest) -> str                             stable text: key order, 2-space indent, newline
  write(path: Path, manifest: Manifest) -> None               atomic (temp file + rename)
"""
from __future__ import annotations

from execlease_hook.atomic import write_text_atomic
from execlease_hook.manifest_model import (
    AbstractAction, Check, CodeMutation, Coverage, CoveredEntry, Finding, HASH_SCHEMES,
    IgnoredCode, MODEL_HASH_PREFIX, MODEL_RECORD_SCHEMES, Manifest, ModelRecord, Mutation,
    Region, Replace, TraceJob, VERSION, WatchRule,
)
from execlease_hook.manifest_read import load, parse
from execlease_hook.manifest_write import dump, to_json, write
from execlease_hook.models import find_models

# The face only re-exports: the data model is manifest_model.py, reading and validating
# manifest_read.py, writing manifest_write.py.
__all__ = [
    'AbstractAction', 'Check', 'CodeMutation', 'Coverage', 'CoveredEntry', 'Finding',
    'HASH_SCHEMES', 'IgnoredCode', 'MODEL_HASH_PREFIX', 'MODEL_RECORD_SCHEMES', 'Manifest',
    'ModelRecord', 'Mutation', 'Region', 'Replace', 'TraceJob', 'VERSION', 'WatchRule', 'dump',
    'find_models', 'load', 'parse', 'to_json', 'write', 'write_text_atomic',
]
