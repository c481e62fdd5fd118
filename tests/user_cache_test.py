from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests import needs, user_cache

ROOT = Path(__file__).resolve().parents[1]


def test_what_was_made_changed_or_removed_is_named_once(tmp_path: Path):
    folder = tmp_path / 'execlease'
    assert user_cache.state(folder) == {}
    (folder / 'jvm').mkdir(parents=True)
    (folder / 'jvm' / 'kept.jsa').write_bytes(b'a')
    (folder / 'jvm' / 'changed.jsa').write_bytes(b'a')
    (folder / 'execlease.log').write_text('a bug\n')
    before = user_cache.state(folder)
    assert set(before) == {
        str(folder),
        str(folder / 'jvm'),
        str(folder / 'jvm' / 'kept.jsa'),
        str(folder / 'jvm' / 'changed.jsa'),
        str(folder / 'execlease.log'),
    }
    assert user_cache.changed(before, user_cache.state(folder)) == []
    os.utime(folder / 'jvm' / 'changed.jsa', ns=(1, 1))
    (folder / 'execlease.log').unlink()
    (folder / 'jvm' / 'spares').mkdir()
    assert user_cache.changed(before, user_cache.state(folder)) == sorted(
        [
            str(folder),  # a file in it removed
            str(folder / 'execlease.log'),
            str(folder / 'jvm'),  # a folder made in it
            str(folder / 'jvm' / 'changed.jsa'),
            str(folder / 'jvm' / 'spares'),
        ]
    )


# A test that writes into the user's JVM cache, as a TLC run without offline_tlc's cache did.
WRITER = textwrap.dedent("""\
    import os
    from pathlib import Path

    def test_a_run_with_the_users_jvm_cache():
        folder = Path(os.environ['XDG_CACHE_HOME']) / 'execlease' / 'jvm'
        folder.mkdir(parents=True, exist_ok=True)
        (folder / 'tla2tools-0123.jsa').write_bytes(b'an archive')
""")
READER = 'def test_nothing_written():\n    pass\n'


@pytest.mark.parametrize(
    ('test', 'ci', 'code'),
    [(WRITER, True, 1), (READER, True, 0), (WRITER, False, 0)],
    ids=['writes-in-ci', 'writes-nothing', 'writes-outside-ci'],
)
def test_a_run_that_touched_the_users_cache_fails_in_ci(
    tmp_path: Path, test: str, ci: bool, code: int
):
    """The hooks in a pytest run of their own (the session's first and last moments are what
    they judge), as the xdist controller runs them."""
    (tmp_path / 'run').mkdir()
    (tmp_path / 'run' / 'test_one.py').write_text(test)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(('PYTEST_', 'EXECLEASE_')) and k != 'PYTHONPATH'
    }
    # No plugin but the one under test: a third of the run's time was loading the others.
    env.update(
        PYTHONPATH=str(ROOT),
        XDG_CACHE_HOME=str(tmp_path / 'cache'),
        PYTEST_DISABLE_PLUGIN_AUTOLOAD='1',
    )
    if ci:
        env[needs.REQUIRE_ALL] = '1'
    proc = subprocess.run(
        (sys.executable, '-m', 'pytest', '-p', 'tests.user_cache', '-p', 'no:cacheprovider', '-rN'),
        cwd=tmp_path / 'run',
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == code, proc.stdout + proc.stderr
    assert '1 passed' in proc.stdout
    said = f"the run made or changed what is in the user's execlease cache ({tmp_path / 'cache'}"
    assert (said in proc.stdout) is (code == 1), proc.stdout
    if code == 1:
        assert str(tmp_path / 'cache' / 'execlease' / 'jvm' / 'tla2tools-0123.jsa') in proc.stdout
