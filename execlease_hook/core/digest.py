"""The one encoding of every digest's fields (the digests themselves are hashlib's)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node


def length_prefixed(data: bytes, tag: bytes = b'', sep: bytes = b'\0') -> bytes:
    """The one encoder of every digest's fields: `tag`, the length in decimal, `sep`, the bytes.
    Length-prefixed, so no two sequences of fields encode alike. Two spellings are pinned by
    what is already recorded: fingerprints and the spec record use `tag` and `:`
    (tagged_field), cache keys and modelHash a NUL (tests/project/golden_digests_test.py)."""
    return tag + str(len(data)).encode('ascii') + sep + data


def tagged_field(tag: bytes, data: bytes) -> bytes:
    return length_prefixed(data, tag, b':')


@functools.cache  # a syntax tree has few kinds and many nodes
def opening_field(flag: bytes, kind: str) -> bytes:
    """The field that opens a node of `kind` in a tree digest; `flag` says how it was parsed
    (named, anonymous, missing, an error)."""
    return tagged_field(b'(' + flag, kind.encode('utf-8'))


def node_opening(node: Node) -> bytes:
    """The opening field of `node`, flagged missing, error, named or anonymous (ts1 and the spec
    index; ts2 never flags an error, it hashes one verbatim)."""
    flag = b'!' if node.is_missing else b'E' if node.is_error else b'n' if node.is_named else b'a'
    return opening_field(flag, node.type)


def tagged_gap(text: bytes, verbatim: bool) -> bytes:
    """Source text between children that no node covers: whitespace, or a hidden token."""
    if not verbatim:
        text = b' '.join(text.split())
    return tagged_field(b'g', text) if text else b''
