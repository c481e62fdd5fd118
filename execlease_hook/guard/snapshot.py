"""What the guard judges: the index (a commit being made) or one commit (a pushed range), and each
model as that snapshot records it (its manifest, read with the covered blobs)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from execlease_hook.core.errors import CannotRun
from execlease_hook.git import repo
from execlease_hook.manifest import read
from execlease_hook.manifest.model import Manifest

if TYPE_CHECKING:
    from execlease_hook.git.blobs import CommitSource, IndexSource


@dataclass(frozen=True)
class Snapshot:
    source: IndexSource | CommitSource
    changes: list[repo.StagedChange]  # against HEAD, or against the commit's first parent
    label: str  # 'staged', or the commit's short id
    commit: str | None = None  # None: the index


@dataclass(frozen=True)
class StagedModel:
    manifest: Manifest
    unstaged_manifest: bool  # the working tree's manifest.json differs from the staged one
    text: str  # the manifest's text, as judged


def load_model(
    rel: str, root: Path, source: IndexSource | CommitSource, blob: bytes | None, worktree: bool
) -> StagedModel:
    """The manifest at `rel` as `source` records it (`blob`, when already read). `worktree`:
    compare it with the working tree's file, for the note about unstaged changes."""
    blob = source.read(rel) if blob is None else blob
    if blob is None:
        raise CannotRun(
            f'{rel}: not in {source.description}; `git add` it (the guard judges what '
            'the commit records, never the working tree)'
        )
    try:
        text = blob.decode('utf-8')
    except UnicodeDecodeError as e:
        where = 'staged' if worktree else source.description
        raise CannotRun(
            f'{root / rel} ({where}): not UTF-8 (byte {e.start}); save it as UTF-8 and `git add` it'
        ) from None
    try:
        unstaged = worktree and (root / rel).read_bytes() != blob
    except OSError:
        unstaged = True
    return StagedModel(read.parse(text, root / rel, root), unstaged, text)
