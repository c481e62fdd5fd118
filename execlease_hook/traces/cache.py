"""The result cache of trace jobs and code mutations: one file per run, `traces-<key>.json` in the
suite's cache folder (tlc/cache.py), keyed by the jar, the Java major version, the model folder's
modules and cfgs, and the traces: the bytes of the trace files; or, for a command, everything it
can read in the repository (the blob id of every file git tracks or would track: from the index
where the file matches it, git/worktree.py), its argv and the variables the job sets; plus, for a
code mutation, the mutated file. So an edit to the command's own script, a module it imports or a
data file it reads, staged or not, runs the job again. What it reads outside the repository or
in files git ignores is not in the key (a command that writes files git does not ignore into the
repository changes its own key: ignore them).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from execlease_hook.core.atomic import write_text_atomic
from execlease_hook.core.digest import length_prefixed
from execlease_hook.git import worktree
from execlease_hook.manifest.model import Manifest, TraceJob
from execlease_hook.tlc import libraries
from execlease_hook.tlc.cache import ResultCache
from execlease_hook.tlc.jar import Tools
from execlease_hook.traces import code_mutations
from execlease_hook.traces.validation import TraceRun

FORMAT = 1


def cache_key(
    m: Manifest, job: TraceJob, root: Path, t: Tools, copy: code_mutations.Mutated | None = None
) -> str:
    """What the module's docstring says. `copy`: the key of the job in the mutated copy `copy`
    says (its root is `root`), without the copy: the same files, the mutated file's bytes in place
    of the file's."""
    folder = root / m.folder.relative_to(m.root)
    h = hashlib.sha256()
    read = Path.read_bytes if copy is None else copy.read

    def part(*texts: bytes) -> None:
        for text in texts:
            h.update(length_prefixed(text))

    part(
        b'execlease-traces-2' if job.command else b'execlease-traces-1',
        t.jar.sha256.encode(),
        str(t.java.major).encode(),
        job.spec.encode(),
        job.config.encode(),
        '\0'.join(job.command).encode(),
    )
    held = Path.is_file if copy is None else copy.holds
    inputs = sorted(
        p
        for p in (folder.iterdir() if folder.is_dir() else ())
        if p.suffix in ('.tla', '.cfg') and held(p)
    )
    if not job.command:
        for pattern in job.files:
            inputs += sorted(p for p in folder.glob(pattern) if copy is None or copy.holds(p))
    for path in inputs:
        part(str(path.relative_to(root)).encode(), read(path))
    if job.line != 'l':  # how a project's own trace spec names a rejected line
        part(f'line {job.line}'.encode())
    if job.fields is not None:  # what of each line reaches TLA+
        part(repr((job.fields.keep, job.fields.drop)).encode())
    if job.command:
        part(*(f'env {name}={value}'.encode() for name, value in sorted(job.env)))
        ids = worktree.worktree_ids(root) if copy is None else copy.ids
        # The manifest's own file is left out: what of it a job runs by is in the key above, and
        # `verify --update-coverage` rewrites it (the synced hashes) without changing the job.
        manifest = m.path.relative_to(m.root).as_posix()
        for rel, blob in sorted(ids.items()):
            if rel != manifest:
                part(rel.encode(), blob.encode())
    if copy is not None:
        # The mutated file, wherever it is: a mutation outside the covered folders must never
        # be answered by the result of the unmutated code.
        part(b'code-mutation', copy.mutation.path.encode(), copy.data)
    part(*libraries.of(m, t.settings, t.root).key_parts())  # nothing when the model has none
    return h.hexdigest()


def cached_run(cache: ResultCache, key: str) -> TraceRun | None:
    if not cache.enabled:
        return None
    try:
        data = json.loads((cache.folder / f'traces-{key}.json').read_text(encoding='utf-8'))
        if data.get('format') != FORMAT or data.get('key') != key:
            return None
        return TraceRun.from_json(data['run'])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def store(cache: ResultCache, key: str, run: TraceRun) -> None:
    if run.verdict.outcome == 'error' or cache.problem is not None:
        return  # never cache a failure to run: it may not recur
    try:
        cache.folder.mkdir(parents=True, exist_ok=True)
        write_text_atomic(
            cache.folder / f'traces-{key}.json',
            json.dumps({'format': FORMAT, 'key': key, 'run': run.to_json()}),
        )
    except OSError as e:
        cache.problem = f'results were not cached: cannot write {cache.folder} ({e.strerror or e})'
