"""TLC results cache in <git common dir>/execlease/cache/ (e.g. .git/execlease/cache/).

Inside git's own folder, where no commit can put a file: a cache in the working tree could be
committed, and a clone would then read planted "passed" entries for checks it never ran. It is
shared by every worktree of the repository (they share the common dir).

One JSON file per TlcJob.cache_key, written atomically; a corrupt entry is ignored (and
rewritten by the run that follows). Errors are never cached: a timeout may not recur. A cache
that cannot be written (read-only, full disk) only costs speed: the run goes on and says so once.
"""

from __future__ import annotations

import json
from pathlib import Path

from execlease_hook.core.atomic import write_text_atomic
from execlease_hook.git import repo
from execlease_hook.tlc.output import Verdict

FORMAT = 1


def results_folder(root: Path) -> Path:
    return repo.common_dir(root) / 'execlease' / 'cache'


class ResultCache:
    def __init__(self, folder: Path, enabled: bool = True) -> None:
        self.folder = folder
        self.enabled = enabled
        self.problem: str | None = None  # set when an entry could not be written
        # Entries this run has read or written: a run asks for each job's entry more than once
        # (to order the jobs, then to run them), and an entry, once valid, stays valid for its key.
        self._known: dict[str, Verdict] = {}

    def get(self, key: str) -> Verdict | None:
        if not self.enabled:
            return None
        if (known := self._known.get(key)) is not None:
            return known
        try:
            data = json.loads((self.folder / f'{key}.json').read_text(encoding='utf-8'))
            if data.get('format') != FORMAT or data.get('key') != key:
                return None
            verdict = Verdict.from_json(data['verdict'])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None  # absent or corrupt: run the job again and rewrite the entry
        if verdict.outcome == 'error':
            return None
        self._known[key] = verdict
        return verdict

    def put(self, key: str, verdict: Verdict) -> None:
        if verdict.outcome == 'error' or self.problem is not None:
            return
        self._known[key] = verdict
        text = json.dumps({'format': FORMAT, 'key': key, 'verdict': verdict.to_json()})
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            write_text_atomic(self.folder / f'{key}.json', text)
        except OSError as e:
            self.problem = (
                f'results were not cached: cannot write {e.filename or self.folder} ({e.strerror or e}); '
                f'make {self.folder} writable or remove it'
            )
