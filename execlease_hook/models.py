"""Where the models are: `verification/*/manifest.json`, or the one `--model DIR` names.

Kept apart from manifest.py, and light, because the fast stage calls it on every commit before
it knows whether anything covered is staged.
"""
from __future__ import annotations

from pathlib import Path

from execlease_hook.errors import CannotRun


def find_models(root: Path, model: str | None) -> list[Path]:
    """manifest.json paths: the one under --model DIR, else every verification/*/manifest.json."""
    if model is not None:
        folder = Path(model)
        if not folder.is_absolute():
            folder = Path.cwd() / folder
        manifest = folder if folder.suffix == '.json' else folder / 'manifest.json'
        if not manifest.is_file():
            raise CannotRun(f'--model {model}: no manifest.json at {manifest}')
        return [manifest]
    found = sorted((root / 'verification').glob('*/manifest.json'))
    if not found:
        raise CannotRun(
            f'no model found: expected verification/<name>/manifest.json under {root}, '
            'or name one with --model DIR',
        )
    return found
