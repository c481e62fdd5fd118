"""sha1 and sha256 on the commit path, without importing `hashlib`.

`hashlib` loads OpenSSL (`_hashlib` and libcrypto) when imported, which costs a commit more than
the guard's own work when nothing covered is staged (benchmarks/guard_latency.py). CPython ships
its own implementations of both digests (`_sha1`; `_sha2` from 3.12, `_sha256` before), which
give the same digests; a build without them gets hashlib's.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (core/record.py)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    class Hash(Protocol):
        def update(self, data: bytes, /) -> None: ...

        def digest(self) -> bytes: ...

        def hexdigest(self) -> str: ...


_BUILTIN = {'sha1': ('_sha1',), 'sha256': ('_sha2', '_sha256')}
_found: dict[str, Callable[[], Hash]] = {}


def _constructor(name: str) -> Callable[[], Hash]:
    found = _found.get(name)
    if found is None:
        for module in _BUILTIN[name]:
            try:
                found = getattr(importlib.import_module(module), name)
                break
            except (ImportError, AttributeError):
                continue
        else:
            import hashlib

            found = getattr(hashlib, name)
        _found[name] = found
    return found


def sha1() -> Hash:
    return _constructor('sha1')()


def sha256() -> Hash:
    return _constructor('sha256')()


def length_prefixed(data: bytes, tag: bytes = b'', sep: bytes = b'\0') -> bytes:
    """The one encoder of every digest's fields: `tag`, the length in decimal, `sep`, the bytes.
    Length-prefixed, so no two sequences of fields encode alike. Two spellings are pinned by
    what is already recorded: fingerprints and the spec record use `tag` and `:`
    (tagged_field), cache keys and modelHash a NUL (tests/project/golden_digests_test.py)."""
    return tag + str(len(data)).encode('ascii') + sep + data


def tagged_field(tag: bytes, data: bytes) -> bytes:
    return length_prefixed(data, tag, b':')


def tagged_gap(text: bytes, verbatim: bool) -> bytes:
    """Source text between children that no node covers: whitespace, or a hidden token."""
    if not verbatim:
        text = b' '.join(text.split())
    return tagged_field(b'g', text) if text else b''
