"""What the guard judges: the index (a commit being made) or one commit (a pushed range)."""
from __future__ import annotations

from execlease_hook.git import repo as git
from execlease_hook.core.record import record
TYPE_CHECKING = False   # typing.TYPE_CHECKING without importing typing (core/record.py)
if TYPE_CHECKING:
    from execlease_hook.git.blobs import CommitSource, IndexSource


@record
class Snapshot:
    """What is judged: the index (a commit being made) or one commit (a pushed range)."""

    source: IndexSource | CommitSource
    changes: list[git.StagedChange]     # against HEAD, or against the commit's first parent
    label: str                          # 'staged', or the commit's short id
    commit: str | None = None           # None: the index
