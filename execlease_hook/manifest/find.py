"""Where the models are in the working tree: `verification/*/manifest.json`, or the one
`--model DIR` names. For the commands that work on the working tree (verify, coverage, add); the
guard takes the models from the index instead (git/repo.model_manifests), and a pushed commit's from
its tree.
"""
from __future__ import annotations

from pathlib import Path

from execlease_hook.core.errors import CannotRun


def find_models(root: Path, model: str | None) -> list[Path]:
    """manifest.json paths: the one under --model DIR, else every verification/*/manifest.json."""
    if model is not None:
        folder = Path(model)
        if not folder.is_absolute():
            folder = Path.cwd() / folder
        manifest = folder if folder.suffix == '.json' else folder / 'manifest.json'
        if not manifest.is_file():
            raise CannotRun(f'--model {model}: no manifest.json at {manifest}')
        return _inside(root, [manifest])
    found = sorted((root / 'verification').glob('*/manifest.json'))
    if not found:
        raise CannotRun(
            f'no model found: expected verification/<name>/manifest.json under {root}, '
            'or name one with --model DIR',
        )
    return _inside(root, found)


def _inside(root: Path, manifests: list[Path]) -> list[Path]:
    """A manifest that is a symlink to a file outside the repository would judge it by rules
    nobody committed: refused, naming it."""
    from execlease_hook.core.paths import outside_problem

    for manifest in manifests:
        problem = outside_problem(root, manifest)
        if problem is not None:
            raise CannotRun(problem)
    return manifests
