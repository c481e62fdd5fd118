"""Fingerprints of located entries: `<scheme>:sha256:<hex>` over the entry's syntax tree.

API (guard, coverage and suite depend on it):
  SCHEME                          the scheme syncs record (ts2)
  SCHEMES                         every scheme a manifest may hold
  fingerprint(located, scheme)    the entry's fingerprint in `scheme` (default: SCHEME)
  matches(located, recorded)      the entry still has the recorded fingerprint, compared in the
                                  recorded hash's own scheme (so a ts1 hash keeps working)
  scheme_of(recorded)             'ts1' for 'ts1:sha256:...'

ts1 (fingerprint/ts1.py) hashes every token's text; ts2 (fingerprint/ts2.py and one rules module
per language family) hashes what the language means, so formatters never change it.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from execlease_hook.fingerprint import rule_modules, ts1, ts2
from execlease_hook.locate.source import language_for

if TYPE_CHECKING:
    from execlease_hook.locate.definition import Located

SCHEME = 'ts2'
SCHEMES = ('ts1', 'ts2')


def fingerprint(located: Located, scheme: str = SCHEME) -> str:
    nodes, start, end = located.nodes, located.start_byte, located.end_byte
    chunk = located.text.encode('utf-8')  # == source[start:end]
    if scheme == 'ts2':
        language = language_for(located.path)
        assert language is not None, located.path
        parts = ts2.serialize(rule_modules.for_language(language), nodes, start, end, chunk)
    elif scheme == 'ts1':
        parts = ts1.serialize(nodes, start, end, chunk)
    else:
        raise ValueError(f'unknown fingerprint scheme {scheme!r} (known: {", ".join(SCHEMES)})')
    return f'{scheme}:sha256:{hashlib.sha256(b"".join(parts)).hexdigest()}'


def scheme_of(recorded: str) -> str:
    return recorded.split(':', 1)[0]


def matches(located: Located, recorded: str) -> bool:
    scheme = scheme_of(recorded)
    return scheme in SCHEMES and fingerprint(located, scheme) == recorded
