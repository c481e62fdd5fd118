"""Definitions by qualified name, through each language family's rules (the module its row in
locate/languages.py names).

Finding one name does not walk the tree: the last part of the name is searched in the bytes
and each occurrence asks the family whether it names a definition (speed: a 60 KB file is
searched in well under a millisecond). The full walk is only for error messages.
"""

from __future__ import annotations

from execlease_hook.locate.definition import Definition
from execlease_hook.locate.languages import LANGUAGES
from execlease_hook.locate.source import parse


def find(language: str, source: bytes, qualname: str) -> list[Definition]:
    """Every definition named `qualname`, in source order."""
    last = qualname.rsplit('.', 1)[-1].encode('utf-8')
    if not last:
        return []
    family = LANGUAGES[language].family()
    root = parse(language, source).root_node
    found = []
    start = source.find(last)
    while start != -1:
        end = start + len(last)
        node = root.descendant_for_byte_range(start, end)
        if node is not None and node.type in family.NAME_TYPES and node.byte_range == (start, end):
            definition = family.named_definition(node)
            if definition is not None and definition.qualname == qualname:
                found.append(definition)
        start = source.find(last, start + 1)
    return found


def every_definition(language: str, source: bytes) -> list[Definition]:
    family = LANGUAGES[language].family()
    cursor = parse(language, source).walk()
    found = []
    while True:
        node = cursor.node
        if node is not None and node.type in family.NAME_TYPES:
            definition = family.named_definition(node)
            if definition is not None:
                found.append(definition)
        if cursor.goto_first_child():
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return found
