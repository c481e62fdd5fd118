"""What the working tree holds, as git's blob ids: the key of a result that depends on every file a
program run in the repository can read (a trace job's command, traces/suite.cache_key)."""

from __future__ import annotations

import os
from pathlib import Path

from execlease_hook.git import repo


def worktree_ids(root: Path) -> dict[str, str]:
    """Every file git tracks or would track (untracked ones it does not ignore), path -> the blob
    id of what the working tree holds there: the index's id where the file matches the index (one
    `git ls-files -s`), else hashed from the file (`file_id`). What a program run in the
    repository can read of it, without reading the files that did not change. A folder that is
    not a git work tree (a commit's tree checked out alone, `verify --rev`): every file in it."""
    if not (root / '.git').exists() and 'GIT_DIR' not in os.environ:
        return {
            (Path(here) / name).relative_to(root).as_posix(): file_id(Path(here) / name, '0' * 40)
            for here, dirs, files in os.walk(root)  # links not followed
            for name in (*files, *(d for d in dirs if (Path(here) / d).is_symlink()))
        }
    entries = repo.listing(root, 'ls-files', '-s')
    ids = {path: blob for _, blob, stage, path in entries if stage == '0'}
    unmerged = {path for _, _, stage, path in entries if stage != '0'}
    changed = repo.output(
        root, 'ls-files', '-z', '--modified', '--deleted', '--others', '--exclude-standard'
    )
    like = next(iter(ids.values()), '0' * 40)
    for path in {os.fsdecode(p) for p in changed.split(b'\0') if p} | unmerged:
        ids[path] = file_id(root / path, like)
    return ids


def file_id(path: Path, like: str) -> str:
    """The blob id of the file at `path` as it is (a symbolic link: its target, as git stores it),
    in the object format of `like`; `gone` when there is none, `folder` for a folder (a submodule)."""
    try:
        data = os.fsencode(os.readlink(path)) if path.is_symlink() else path.read_bytes()
    except FileNotFoundError:
        return 'gone'
    except IsADirectoryError:
        return 'folder'
    except OSError as e:
        return f'unreadable ({e.strerror})'
    return repo.blob_id(data, like)
