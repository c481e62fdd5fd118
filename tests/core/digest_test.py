from __future__ import annotations

import hashlib
import subprocess
import sys

import pytest

from execlease_hook.core import digest

DATA = (b'', b'a', b'blob 3\0abc', bytes(range(256)) * 300)


@pytest.mark.parametrize('data', DATA, ids=('empty', 'one', 'blob-header', '75-kb'))
@pytest.mark.parametrize('name', ('sha1', 'sha256'))
def test_the_same_digests_as_hashlib(name, data):
    h = getattr(digest, name)()
    h.update(data[:7])
    h.update(data[7:])
    assert h.hexdigest() == hashlib.new(name, data).hexdigest()
    assert h.digest() == hashlib.new(name, data).digest()


def test_without_the_builtin_modules_hashlib_is_used(monkeypatch):
    # A CPython built without its own sha1/sha256 (--with-builtin-hashlib-hashes=...) still works.
    monkeypatch.setattr(
        digest, '_BUILTIN', {'sha1': ('no_such_module',), 'sha256': ('hashlib_no',)}
    )
    monkeypatch.setattr(digest, '_found', {})
    h = digest.sha256()
    h.update(b'abc')
    assert h.hexdigest() == hashlib.sha256(b'abc').hexdigest()
    assert digest._found['sha256'] is hashlib.sha256


def test_hashlib_is_not_imported():
    code = (
        'import sys\nfrom execlease_hook.core import digest\nh = digest.sha256()\nh.update(b"x")\n'
        'g = digest.sha1()\nprint("hashlib" in sys.modules, "_hashlib" in sys.modules)'
    )
    out = subprocess.run(
        (sys.executable, '-c', code), capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ['False', 'False']
