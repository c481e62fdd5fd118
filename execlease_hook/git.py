"""What git knows: the repository root, HEAD, the staged set and blob contents (issue 3 §4).

Child gits inherit the environment on purpose: during `git commit -a` or `git commit PATH`
git points GIT_INDEX_FILE at a temporary index, and that index is what is being committed.
"""
from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

from execlease_hook.errors import CannotRun


class StagedChange:
    """One line of `git diff --cached --name-status`.

    A plain class, not a dataclass: importing dataclasses (and inspect with it) costs more than
    the guard's whole budget when nothing covered is staged (issue 3 §7).
    """

    __slots__ = ('status', 'path', 'old_path')

    def __init__(self, status: str, path: str, old_path: str | None = None) -> None:
        self.status = status        # one letter: A added, M modified, D deleted, R renamed, C copied, T, U
        self.path = path            # the path in the index (for D: the deleted path)
        self.old_path = old_path    # R and C: where it came from

    def _key(self) -> tuple[str, str, str | None]:
        return (self.status, self.path, self.old_path)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StagedChange) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f'StagedChange({self.status!r}, {self.path!r}, {self.old_path!r})'


def _run(root: Path | None, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    argv = ('git', *args)
    try:
        return subprocess.run(argv, cwd=root, input=stdin, capture_output=True, check=False)
    except FileNotFoundError:
        raise CannotRun('git is not installed or not on PATH') from None


def _output(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    proc = _run(root, *args, stdin=stdin)
    if proc.returncode != 0:
        raise CannotRun(
            f'`git {" ".join(args)}` failed in {root} (exit {proc.returncode}): '
            f'{proc.stderr.decode(errors="replace").strip()}',
        )
    return proc.stdout


def repo_root(cwd: Path | None = None) -> Path:
    here = Path.cwd() if cwd is None else cwd
    # Fast path (the hook runs from the top level): a `.git` here, and no variable that moves
    # the repository elsewhere, means `here` is the root; saves one git process per commit.
    if 'GIT_DIR' not in os.environ and 'GIT_WORK_TREE' not in os.environ and (here / '.git').exists():
        return here.resolve()
    proc = _run(here, 'rev-parse', '--show-toplevel')
    text = proc.stdout.decode(errors='replace').strip()
    if proc.returncode != 0 or not text:
        raise CannotRun(
            f'not a git repository: {here} (execlease finds models, staged code and the '
            'sync commit through git; run it inside a git work tree)',
        )
    return Path(text).resolve()


def head(root: Path) -> str | None:
    proc = _run(root, 'rev-parse', '--verify', '-q', 'HEAD^{commit}')
    if proc.returncode != 0:
        return None  # unborn branch: the first commit
    return proc.stdout.decode().strip()


def staged_changes(root: Path) -> list[StagedChange]:
    # Compares the index with HEAD; on an unborn branch git compares with the empty tree.
    out = _output(root, 'diff', '--cached', '-z', '--name-status', '-M', '--no-ext-diff', '--')
    fields = out.split(b'\0')
    if fields and fields[-1] == b'':
        fields.pop()
    changes: list[StagedChange] = []
    i = 0
    while i < len(fields):
        status = fields[i].decode()[:1]
        if status in ('R', 'C'):
            old, new = fields[i + 1], fields[i + 2]
            changes.append(StagedChange(status, os.fsdecode(new), os.fsdecode(old)))
            i += 3
        else:
            changes.append(StagedChange(status, os.fsdecode(fields[i + 1])))
            i += 2
    return changes


def read_blobs(root: Path, specs: Sequence[str]) -> dict[str, bytes | None]:
    """Reads every spec (`:path` for the index, `COMMIT:path`) with one `git cat-file --batch`."""
    result: dict[str, bytes | None] = {}
    wanted = [s for s in dict.fromkeys(specs) if '\n' not in s]
    result.update({s: None for s in specs if '\n' in s})  # cannot be asked through --batch
    if not wanted:
        return result
    stdin = b''.join(os.fsencode(s) + b'\n' for s in wanted)
    out = _output(root, 'cat-file', '--batch', stdin=stdin)
    pos = 0
    for spec in wanted:
        eol = out.index(b'\n', pos)
        header = out[pos:eol].split(b' ')
        pos = eol + 1
        if len(header) == 3 and header[2].isdigit() and len(header[0]) in (40, 64):
            size = int(header[2])
            body = out[pos:pos + size]
            pos += size + 1  # the content is followed by a newline
            result[spec] = body if header[1] == b'blob' else None
        else:
            result[spec] = None  # "<spec> missing" / "ambiguous"
    return result


def show(root: Path, commit: str, path: str) -> bytes | None:
    """Content of `path` at `commit`; None when either is absent (a shallow clone lacks old commits)."""
    spec = f'{commit}:{path}'
    return read_blobs(root, [spec])[spec]


def has_commit(root: Path, commit: str) -> bool:
    return _run(root, 'cat-file', '-e', f'{commit}^{{commit}}').returncode == 0


def tracked_files(root: Path, untracked: bool = False) -> list[str]:
    """Every path in the index; with `untracked`, also the working tree's files git does not
    ignore (a new file someone has not added yet is still code)."""
    args = ['ls-files', '-z', '--cached'] + (['--others', '--exclude-standard'] if untracked else [])
    out = _output(root, *args)
    return list(dict.fromkeys(os.fsdecode(p) for p in out.split(b'\0') if p))


def common_dir(root: Path) -> Path:
    """git's own folder shared by every worktree (`.git` of the main worktree): nothing a commit
    carries can be written there."""
    text = os.fsdecode(_output(root, 'rev-parse', '--git-common-dir')).strip()
    return (root / text).resolve()
