"""A code mutation: a text replacement in a covered source file, in a copy of the repository.

The working tree is never touched: the repository's files (tracked, and untracked ones that
are not ignored, as they are in the working tree now) are copied into a temporary folder and
the replacement is applied there. The trace jobs then run in that copy and must reject it.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from execlease_hook.errors import CannotRun
from execlease_hook.manifest import CodeMutation


def repository_files(root: Path) -> list[str]:
    proc = subprocess.run(
        ('git', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'),
        cwd=root, capture_output=True,
    )
    if proc.returncode != 0:
        raise CannotRun(f'{root}: git ls-files failed: {proc.stderr.decode(errors="replace").strip()}')
    return sorted({p for p in proc.stdout.decode().split('\0') if p})


def mutated_text(mutation: CodeMutation, text: str) -> str:
    count = text.count(mutation.replace.start)
    if count != 1:
        found = 'does not match' if count == 0 else f'matches {count} times'
        raise CannotRun(
            f'code mutation {mutation.name}: replace.from {found} in {mutation.path} (it must match '
            'exactly once); update the mutation\'s "from" text in manifest.json to the current code'
        )
    return text.replace(mutation.replace.start, mutation.replace.to)


def check_applies(root: Path, mutation: CodeMutation) -> None:
    try:
        text = (root / mutation.path).read_text(encoding='utf-8')
    except (OSError, UnicodeDecodeError) as e:
        raise CannotRun(f'code mutation {mutation.name}: cannot read {mutation.path}: {e}') from None
    mutated_text(mutation, text)


@contextmanager
def mutated_copy(root: Path, mutation: CodeMutation) -> Iterator[Path]:
    """A temporary copy of the repository with the mutation applied; removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix=f'execlease-code-mutation-{mutation.name}-'))
    try:
        copy = folder / root.name
        for rel in repository_files(root):
            source = root / rel
            if not source.exists() and not source.is_symlink():
                continue   # deleted in the working tree, not yet in the index
            target = copy / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target, follow_symlinks=False)
        path = copy / mutation.path
        try:
            text = path.read_text(encoding='utf-8')
        except (OSError, UnicodeDecodeError) as e:
            raise CannotRun(f'code mutation {mutation.name}: cannot read {mutation.path}: {e}') from None
        path.write_text(mutated_text(mutation, text), encoding='utf-8')
        yield copy
    finally:
        shutil.rmtree(folder, ignore_errors=True)
