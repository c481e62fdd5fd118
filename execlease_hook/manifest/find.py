"""Where the models are: every execlease manifest in the repository, or the one `--model DIR`
names. A model may live anywhere: `verification/<name>/manifest.json` is always a model; any
other file named manifest.json is one when its content says so (`is_manifest`: its "$schema"
names execlease's manifest schema, or it has a "version" and a "spec" that is a .tla file), so
a web app's manifest.json is left alone. For the commands that work on the working tree (verify,
coverage, add, tools) the files git tracks or would track (not ignored; a folder outside git,
such as a commit checked out alone, is walked); the guard takes the candidates from the index
instead (git.model_manifests, then `is_model`), and a pushed commit's from its tree.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from execlease_hook.core.errors import CannotRun
from execlease_hook.core.paths import outside_problem
from execlease_hook.git import repo

NAME = 'manifest.json'
NONE_FOUND = (
    'expected verification/<name>/manifest.json, or an execlease manifest.json ("version" '
    'and a "spec" .tla file) anywhere in the repository'
)


def in_legacy_place(rel: str) -> bool:
    """verification/<name>/manifest.json: a model whatever its content (a broken one says why)."""
    parts = rel.split('/')
    return len(parts) == 3 and parts[0] == 'verification' and parts[2] == NAME


def is_manifest(data: bytes | None) -> bool:
    """The bytes of an execlease manifest, as far as can be told without validating them."""
    if data is None or b'"spec"' not in data and b'manifest.schema.json' not in data:
        return False
    parsed = plain_json(data)
    if parsed is None:
        return False
    schema, spec = parsed.get('$schema'), parsed.get('spec')
    if isinstance(schema, str) and schema.endswith('manifest.schema.json'):
        return True
    return 'version' in parsed and isinstance(spec, str) and spec.endswith('.tla')


def plain_json(data: bytes | None) -> dict | None:
    """A manifest's bytes as plain JSON, not validated; None when they are not a JSON object
    (the full load says why)."""
    if data is None:
        return None
    try:
        parsed = json.loads(data)
    except (ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, dict) else None


def is_model(rel: str, data: bytes | None) -> bool:
    """Whether the manifest.json at `rel` (from the repository root) is a model."""
    return in_legacy_place(rel) or is_manifest(data)


def named(model: str) -> Path:
    """The manifest `--model DIR` names: DIR/manifest.json, or DIR itself when it is a .json file."""
    folder = Path.cwd() / model  # an absolute DIR stays itself
    return folder if folder.suffix == '.json' else folder / NAME


def find_models(root: Path, model: str | None) -> list[Path]:
    """manifest.json paths: the one under --model DIR, else every model in the repository, in
    path order."""
    if model is not None:
        manifest = named(model)
        if not manifest.is_file():
            raise CannotRun(f'--model {model}: no manifest.json at {manifest}')
        return inside(root, [manifest])
    found = []
    for rel in _candidates(root):
        path = root / rel
        try:
            data = None if in_legacy_place(rel) else path.read_bytes()
        except OSError:
            continue
        if path.is_file() and is_model(rel, data):
            found.append(path)
    if not found:
        raise CannotRun(f'no model found: {NONE_FOUND} under {root}, or name one with --model DIR')
    return inside(root, found)


def _candidates(root: Path) -> list[str]:
    """Every manifest.json under root, from the repository root: git's files when root is a
    work tree's top, else a walk (dot folders and node_modules left out)."""
    if (root / '.git').exists():
        with contextlib.suppress(CannotRun):  # not a repository after all: walk it
            tracked = repo.tracked_files(root, True, f'*{NAME}')
            return sorted({p for p in tracked if p.rsplit('/', 1)[-1] == NAME})
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith('.') and d != 'node_modules')
        if NAME in files:
            found.append(Path(folder, NAME).relative_to(root).as_posix())
    return sorted(found)


def inside(root: Path, manifests: list[Path]) -> list[Path]:
    """A manifest that is a symlink to a file outside the repository would judge it by rules
    nobody committed: refused, naming it."""
    for manifest in manifests:
        problem = outside_problem(root, manifest)
        if problem is not None:
            raise CannotRun(problem)
    return manifests
