"""ResultCache on its own: entries on disk, and what one run remembers of them.
(Whole runs against it, a corrupt entry, two runs at once, an unwritable folder: suite_test.py.)"""

from __future__ import annotations

import json

from execlease_hook.tlc.cache import ResultCache
from execlease_hook.tlc.output import Verdict

PASSED = Verdict('passed', 1.5, exit_code=0, states=10, distinct=7, depth=3)
KEY = 'a' * 64


def test_an_entry_put_is_read_back_by_another_run(tmp_path):
    ResultCache(tmp_path).put(KEY, PASSED)
    assert ResultCache(tmp_path).get(KEY) == PASSED
    assert json.loads((tmp_path / f'{KEY}.json').read_text())['key'] == KEY


def test_one_run_reads_an_entry_once(tmp_path):
    ResultCache(tmp_path).put(KEY, PASSED)
    cache = ResultCache(tmp_path)
    assert cache.get(KEY) == PASSED
    (tmp_path / f'{KEY}.json').unlink()  # read already: this run keeps what it read
    assert cache.get(KEY) == PASSED
    assert ResultCache(tmp_path).get(KEY) is None  # the next run reads the folder again


def test_a_miss_is_not_remembered(tmp_path):
    cache = ResultCache(tmp_path)
    assert cache.get(KEY) is None
    (tmp_path / f'{KEY}.json').write_text('{not json')
    assert cache.get(KEY) is None  # corrupt: a miss
    ResultCache(tmp_path).put(KEY, PASSED)  # another run (or this one's job) writes it
    assert cache.get(KEY) == PASSED


def test_an_entry_under_another_key_is_not_read(tmp_path):
    ResultCache(tmp_path).put(KEY, PASSED)
    (tmp_path / f'{KEY}.json').rename(tmp_path / f'{"b" * 64}.json')
    assert ResultCache(tmp_path).get('b' * 64) is None


def test_errors_are_never_cached_and_a_disabled_cache_reads_nothing(tmp_path):
    cache = ResultCache(tmp_path)
    cache.put(KEY, Verdict('error', 0.1, reason='timed out'))
    assert cache.get(KEY) is None and not (tmp_path / f'{KEY}.json').exists()
    cache.put(KEY, PASSED)
    assert ResultCache(tmp_path, enabled=False).get(KEY) is None
