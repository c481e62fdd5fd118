"""A code mutation: a text replacement in a covered source file, in a copy of the repository.

The working tree is never touched: the repository's files (tracked, and untracked ones that
are not ignored, as they are in the working tree now) are copied into a temporary folder and
the replacement is applied there. The trace jobs then run in that copy and must reject it.

The copy is made only when a trace job must run in it: `Mutated` says what the copy would
hold (the files git lists, the mutated file's bytes) without making it, so that the result
cache (traces/suite.cache_key) answers a mutation that ran before without copying anything.
Its `ids` are what the cache key reads of the copy: the blob id of every file, from git's index
where the working tree's file matches it (git/worktree.worktree_ids), the mutated file's from its
mutated bytes; in a copy that was made (`in_copy`), from the copy's files as they are.

A symbolic link is copied as a link. An absolute one into the repository (a model module linked
as /path/to/repo/specs/Foo.tla) is pointed at the copy's file instead, so that the job reads the
copy, as it reads the repository; its id stays that of the repository's link, as git stores it.
An absolute link elsewhere, or a relative one, is copied as it is: a job in the copy refuses a
module that resolves outside it, as it refuses it in the repository.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from execlease_hook.core import (
    scratch,  # marked: a killed run's is swept by the next
)
from execlease_hook.core.errors import CannotRun
from execlease_hook.git import repo, worktree
from execlease_hook.manifest.model import CodeMutation


def mutated_bytes(root: Path, mutation: CodeMutation) -> bytes:
    """The mutated file's bytes, as the copy holds them (read as text, written as UTF-8)."""
    try:
        text = (root / mutation.path).read_text(encoding='utf-8')
    except (OSError, UnicodeDecodeError) as e:
        raise CannotRun(
            f'code mutation {mutation.name}: cannot read {mutation.path}: {e}'
        ) from None
    count = text.count(mutation.replace.start)
    if count != 1:
        found = 'does not match' if count == 0 else f'matches {count} times'
        raise CannotRun(
            f'code mutation {mutation.name}: replace.from {found} in {mutation.path} (it must match '
            'exactly once); update the mutation\'s "from" text in manifest.json to the current code'
        )
    return text.replace(mutation.replace.start, mutation.replace.to).encode('utf-8')


@dataclass(frozen=True)
class Mutated:
    """The mutated copy of the repository at `root`, as it would be, read from the repository."""

    root: Path
    mutation: CodeMutation
    files: frozenset[str]  # the files git lists (git/worktree.worktree_ids)
    data: bytes  # the mutated file's bytes
    ids: Mapping[str, str]  # file -> the blob id of what the copy holds there

    def holds(self, path: Path) -> bool:
        """Whether the copy holds `path` (a path under root) as a file."""
        return path.relative_to(self.root).as_posix() in self.files and path.is_file()

    def read(self, path: Path) -> bytes:
        if path.relative_to(self.root).as_posix() == self.mutation.path:
            return self.data
        return path.read_bytes()


def _with_mutation(ids: dict[str, str], mutation: CodeMutation, data: bytes) -> dict[str, str]:
    ids[mutation.path] = repo.blob_id(data, next(iter(ids.values()), '0' * 40))
    return ids


def mutated(root: Path, mutation: CodeMutation, ids: Mapping[str, str] | None = None) -> Mutated:
    """What the copy of `root` with `mutation` applied holds; `ids`: git/worktree.worktree_ids(root),
    when known. CannotRun if the mutation does not apply."""
    data = mutated_bytes(root, mutation)
    known = dict(worktree.worktree_ids(root) if ids is None else ids)
    return Mutated(root, mutation, frozenset(known), data, _with_mutation(known, mutation, data))


def _into(root: Path, link: Path) -> Path | None:
    """Where in `root` the absolute symbolic link `link` points, relative to it; None for a
    relative link, a link elsewhere or a file that is no link."""
    if not link.is_symlink():
        return None
    target = Path(os.readlink(link))
    for base in (root, root.resolve()):
        if target.is_absolute() and target.is_relative_to(base):
            return target.relative_to(base)
    return None


def in_copy(folder: Path, planned: Mutated) -> Mutated:
    """The copy made at `folder` from `planned`, its ids read from its files as they are (the
    working tree may have changed since `planned` was read); a link mutated_copy pointed into the
    copy, from the repository's link."""
    like = next(iter(planned.ids.values()), '0' * 40)
    ids = {
        rel: worktree.file_id(
            planned.root / rel if _into(folder, folder / rel) else folder / rel, like
        )
        for rel in planned.files
    }
    data = (folder / planned.mutation.path).read_bytes()
    return Mutated(
        folder, planned.mutation, planned.files, data, _with_mutation(ids, planned.mutation, data)
    )


@contextmanager
def mutated_copy(
    root: Path, mutation: CodeMutation, files: Collection[str] | None = None
) -> Iterator[Path]:
    """A temporary copy of the repository with the mutation applied; removed afterwards.
    `files`: the files git lists (tracked, and untracked ones it does not ignore), when known."""
    folder = scratch.make(f'execlease-code-mutation-{mutation.name}-')
    try:
        copy = folder / root.name
        for rel in sorted(repo.tracked_files(root, untracked=True) if files is None else files):
            source = root / rel
            if not source.exists() and not source.is_symlink():
                continue  # deleted in the working tree, not yet in the index
            target = copy / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            inside = _into(root, source)
            if inside is None:
                shutil.copy2(source, target, follow_symlinks=False)
            else:
                target.symlink_to(copy / inside)
        (copy / mutation.path).write_bytes(mutated_bytes(copy, mutation))
        yield copy
    finally:
        scratch.remove(folder)
