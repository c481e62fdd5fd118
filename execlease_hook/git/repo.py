"""What git knows: the repository root, HEAD, the staged set and blob contents.

It is kept whole: each function is one git command and the parsing of its
output, over the one runner (`output`) that every child git of the package goes through; split,
the commit path would import two modules to run the same few commands.

Child gits inherit the environment on purpose: during `git commit -a` or `git commit PATH`
git points GIT_INDEX_FILE at a temporary index, and that index is what is being committed.
"""

from __future__ import annotations

import functools
import hashlib
import os

# subprocess costs the commit path's early exit about 6 ms of CPU (benchmarks/guard_latency.py,
# case b: 44 ms against 39 ms with a posix_spawn clone), for the edge cases it handles.
import subprocess
from collections.abc import Sequence
from pathlib import Path

from execlease_hook.core.errors import CannotRun


class StagedChange:
    """One line of `git diff --cached --name-status`.

    A plain class, not a dataclass: importing dataclasses (and inspect with it) costs more than
    the guard's whole budget when nothing covered is staged (benchmarks/guard_latency.py).
    """

    __slots__ = ('status', 'path', 'old_path')

    def __init__(self, status: str, path: str, old_path: str | None = None) -> None:
        # One letter: A added, M modified, D deleted, R renamed, C copied, T, U.
        self.status = status
        self.path = path  # the path in the index (for D: the deleted path)
        self.old_path = old_path  # R and C: where it came from

    def _key(self) -> tuple[str, str, str | None]:
        return (self.status, self.path, self.old_path)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StagedChange) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f'StagedChange({self.status!r}, {self.path!r}, {self.old_path!r})'


def run_git(
    root: Path | None,
    *args: str,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    argv = ('git', *(('-C', str(root)) if root is not None else ()), *args)
    try:
        return subprocess.run(
            argv,
            input=stdin,
            capture_output=True,
            env=None if env is None else {**os.environ, **env},
        )
    except FileNotFoundError:
        raise CannotRun('git is not installed or not on PATH') from None


def output(
    root: Path, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None
) -> bytes:
    proc = run_git(root, *args, stdin=stdin, env=env)
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
    if os.environ.keys().isdisjoint(('GIT_DIR', 'GIT_WORK_TREE')) and (here / '.git').exists():
        return here.resolve()
    proc = run_git(here, 'rev-parse', '--show-toplevel')
    text = proc.stdout.decode(errors='replace').strip()
    if proc.returncode != 0 or not text:
        raise CannotRun(
            f'not a git repository: {here} (execlease finds models, staged code and the '
            'sync commit through git; run it inside a git work tree)',
        )
    return Path(text).resolve()


def head(root: Path) -> str | None:
    return rev_parse(root, 'HEAD')  # None: an unborn branch, the first commit


def staged_changes(root: Path) -> list[StagedChange]:
    # Compares the index with HEAD; on an unborn branch git compares with the empty tree.
    return _name_status(
        output(root, 'diff', '--cached', '-z', '--name-status', '-M', '--no-ext-diff', '--')
    )


def commit_changes(root: Path, commit: str, parent: str | None) -> list[StagedChange]:
    """What `commit` changed against `parent` (its first parent; None: a root commit, all added)."""
    base = ('diff-tree', '-r', '-z', '--name-status', '-M', '--no-ext-diff')
    ends = ('--no-commit-id', '--root', commit) if parent is None else (parent, commit)
    return _name_status(output(root, *base, *ends, '--'))


def _name_status(out: bytes) -> list[StagedChange]:
    fields = iter(out.split(b'\0')[:-1])  # every field ends with a NUL
    changes: list[StagedChange] = []
    for field in fields:
        status, path = field.decode()[:1], os.fsdecode(next(fields))
        if status in ('R', 'C'):  # the old path, then the new one
            changes.append(StagedChange(status, os.fsdecode(next(fields)), path))
        else:
            changes.append(StagedChange(status, path))
    return changes


def read_blobs(root: Path, specs: Sequence[str]) -> dict[str, bytes | None]:
    """Reads every spec (`:path` for the index, `COMMIT:path`) with one `git cat-file --batch`."""
    result: dict[str, bytes | None] = {s: None for s in specs if '\n' in s}  # not for --batch
    wanted = [s for s in dict.fromkeys(specs) if '\n' not in s]
    if not wanted:
        return result
    stdin = b''.join(os.fsencode(s) + b'\n' for s in wanted)
    out = output(root, 'cat-file', '--batch', stdin=stdin)
    pos = 0
    for spec in wanted:
        eol = out.index(b'\n', pos)
        header = out[pos:eol].split(b' ')
        pos = eol + 1
        if len(header) == 3 and header[2].isdigit() and len(header[0]) in (40, 64):
            size = int(header[2])
            body = out[pos : pos + size]
            pos += size + 1  # the content is followed by a newline
            result[spec] = body if header[1] == b'blob' else None
        else:
            result[spec] = None  # "<spec> missing" / "ambiguous"
    return result


def rev_parse(root: Path, rev: str) -> str | None:
    """The commit `rev` names; None when it names none."""
    proc = run_git(root, 'rev-parse', '--verify', '-q', '--end-of-options', f'{rev}^{{commit}}')
    return proc.stdout.decode().strip() if proc.returncode == 0 else None


def rev_list(root: Path, *revs: str) -> list[tuple[str, str | None]]:
    """(commit, first parent or None) of every commit `git rev-list REVS` names, oldest first."""
    out = output(root, 'rev-list', '--reverse', '--topo-order', '--parents', *revs, '--')
    lines = [line.split() for line in out.decode().splitlines()]
    return [(ids[0], ids[1] if len(ids) > 1 else None) for ids in lines]


def subject(root: Path, commit: str) -> str:
    return output(root, 'log', '-1', '--format=%s', commit, '--').decode(errors='replace').strip()


def model_manifests(
    root: Path, commit: str | None = None, only: str | None = None
) -> list[tuple[str, str]]:
    """(path, blob id) of every file named manifest.json (or of the manifest `only`) in the
    index (commit None) or in a commit's tree: what the commit records, never the working tree.
    Which of them are execlease manifests is the manifest layer's question (manifest/find.py):
    verification/<name>/manifest.json always is; another by its content."""
    if commit is None:  # (mode, blob id, stage, path)
        listed = listing(root, 'ls-files', '-s', '--', only or '*manifest.json')
    else:  # (mode, type, object id, path); ls-tree takes no wildcards: the whole tree, filtered
        pathspec = ('--', only) if only is not None else ()
        listed = listing(root, 'ls-tree', '-r', '--full-tree', commit, *pathspec)
    found: list[tuple[str, str]] = []
    for _, second, third, path in listed:
        if path != only and (only or path.rsplit('/', 1)[-1] != 'manifest.json'):
            continue
        if commit is not None:
            if second == 'blob':
                found.append((path, third))
        elif third == '0':
            found.append((path, second))
        elif only or (len(parts := path.split('/')) == 3 and parts[0] == 'verification'):
            raise CannotRun(
                f'{path} is unmerged in the index; resolve the conflict and `git add` it'
            )
        # else: maybe not a model at all; git refuses the commit anyway
    return found


def blob_id(data: bytes, like: str) -> str:
    """The id git gives `data` as a blob, in the object format of the id `like` (SHA-1 or SHA-256)."""
    h = hashlib.sha256() if len(like) == 64 else hashlib.sha1()
    h.update(b'blob %d\0' % len(data))
    h.update(data)
    return h.hexdigest()


def write_blobs(root: Path, paths: Sequence[str]) -> dict[str, str]:
    """Stores each working-tree file in the object database as `git add` would (the path's
    filters and attributes apply); path -> blob id."""
    if not paths:
        return {}
    out = output(root, 'hash-object', '-w', '--', *paths)
    return dict(zip(paths, out.decode().split()))


def write_blob_data(root: Path, data: bytes) -> str:
    """Stores `data`, already in the repository's form (no filters apply); its blob id."""
    return output(root, 'hash-object', '-w', '--stdin', stdin=data).decode().strip()


def listing(root: Path, *args: str) -> list[tuple[str, str, str, str]]:
    """The three fields and the path of every entry `git ARGS -z` lists: `ls-files -s`, (mode,
    blob id, stage, path); `ls-tree`, (mode, type, object id, path)."""
    found = []
    for record in output(root, *args[:1], '-z', *args[1:]).split(b'\0'):
        meta, _, name = record.partition(b'\t')
        fields = meta.decode().split()
        if name and len(fields) == 3:
            found.append((fields[0], fields[1], fields[2], os.fsdecode(name)))
    return found


def index_blob(root: Path, path: str) -> str | None:
    """The blob id of `path` in the index (stage 0); None when it is not there."""
    entries = listing(root, 'ls-files', '-s', '--', path)
    return next((blob for _, blob, stage, p in entries if p == path and stage == '0'), None)


def stage_blob(root: Path, path: str, blob: str) -> None:
    """Points the index entry of `path` at `blob`, keeping its mode."""
    mode = next((mode for mode, *_ in listing(root, 'ls-files', '-s', '--', path)), '100644')
    output(root, 'update-index', '--cacheinfo', f'{mode},{blob},{path}')


def checkout_tree(root: Path, commit: str, dest: Path) -> None:
    """Writes the tree of `commit` into `dest` (an empty folder), through a temporary index of
    its own: the working tree, the index and HEAD are not touched, and no hook runs."""
    index = dest.parent / f'{dest.name}.index'
    env = {'GIT_INDEX_FILE': str(index)}
    try:
        output(root, 'read-tree', commit, env=env)
        output(root, 'checkout-index', '-a', '-f', f'--prefix={dest}{os.sep}', env=env)
    finally:
        index.unlink(missing_ok=True)


def tracked_files(root: Path, untracked: bool = False, *pathspec: str) -> list[str]:
    """Every path in the index (under `pathspec`); with `untracked`, also the working tree's
    files git does not ignore (a new file someone has not added yet is still code)."""
    others = ('--others', '--exclude-standard') if untracked else ()
    out = output(root, 'ls-files', '-z', '--cached', *others, '--', *pathspec)
    return list(dict.fromkeys(os.fsdecode(p) for p in out.split(b'\0') if p))


def common_dir(root: Path) -> Path:
    """git's own folder shared by every worktree (`.git` of the main worktree): nothing a commit
    carries can be written there. Asked once per process per root, its `.git` (the same inode
    and mtime) and the variables that move it (a verify asks twice: the results and the timings)."""
    try:
        st = (root / '.git').stat()
        dot_git: tuple[int, int] | None = (st.st_ino, st.st_mtime_ns)
    except OSError:
        dot_git = None
    return _common_dir(
        os.path.abspath(root),
        dot_git,
        os.environ.get('GIT_DIR'),
        os.environ.get('GIT_COMMON_DIR'),
    )


@functools.cache
def _common_dir(
    root: str, dot_git: tuple[int, int] | None, git_dir: str | None, common: str | None
) -> Path:
    """common_dir's answer for a root, its `.git` and the variables: the rest is the key."""
    text = os.fsdecode(output(Path(root), 'rev-parse', '--git-common-dir')).strip()
    return (Path(root) / text).resolve()
