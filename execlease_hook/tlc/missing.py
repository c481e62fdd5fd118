"""A module TLC cannot find, said clearly: the module, the line that EXTENDS or INSTANCEs it, and
the `libraries` entry that supplies it (docs/libraries.md), in place of SANY's raw parse error.

SANY says `Cannot find source file for module M imported in module N.` (TLC 2.15 and 2.19) and
TLC exits 150; the verdict stays an error (exit 2), with these words as its reason.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from pathlib import Path

from execlease_hook.spec import syntax
from execlease_hook.tlc.output import Verdict

_CANNOT_FIND = re.compile(r'Cannot find source file for module (\w+) imported in module (\w+)')
PARSE_ERROR = 150

# Module names only, to say where a module comes from (none of their text is in this repository).
COMMUNITY_MODULES = frozenset(
    'BagsExt Bitwise Combinatorics CSV DifferentialEquations DyadicRationals FiniteSetsExt Folds '
    'Functions Graphs GraphViz HTML IOUtils Json Relation SequencesExt ShiViz Statistics SVG '
    'UndirectedGraphs VectorClocks'.split()
)
TLAPS_MODULES = frozenset(
    'TLAPS NaturalsInduction WellFoundedInduction SequenceTheorems FiniteSetTheorems '
    'FunctionTheorems BagsTheorems'.split()
)
COMMUNITY_URL = 'https://github.com/tlaplus/CommunityModules/releases/download/<release>/CommunityModules-deps.jar'
COMMUNITY_ENTRY = (
    f'{{"name": "CommunityModules", "url": "{COMMUNITY_URL}", "sha256": "<its sha256>"}}'
)


def imports(text: bytes, module: str) -> list[tuple[int, str, str]]:
    """Where `text` EXTENDS or INSTANCEs `module`: (line, 'EXTENDS' | 'INSTANCE', the line's text)."""
    if module.encode() not in text:
        return []
    lines = text.decode('utf-8', 'replace').splitlines()
    found: list[tuple[int, str, str]] = []
    for name, row, keyword in syntax.imports(text):
        if name == module and not (found and found[-1][0] == row + 1):
            found.append((row + 1, keyword, lines[row].strip() if row < len(lines) else ''))
    return found


def fix(module: str) -> str:
    """What to add to the manifest for `module`."""
    if module in COMMUNITY_MODULES:
        return (
            f'{module} is a CommunityModules module: add the CommunityModules jar to '
            f'"libraries" in manifest.json, "libraries": [{COMMUNITY_ENTRY}] (a versioned release, '
            'not a rolling one; docs/libraries.md)'
        )
    if module in TLAPS_MODULES:
        return (
            f'{module} is a module of the TLA+ Proof System (TLAPS): copy its .tla files from '
            'your TLAPS installation into a folder of the repository and add it to manifest.json, '
            '"libraries": [{"folder": "verification/tlaps"}] (docs/libraries.md)'
        )
    return (
        f'Add the library that holds {module}.tla to manifest.json: a jar, "libraries": '
        '[{"url": "https://.../Lib.jar", "sha256": "<64 hex>"}], or a folder of .tla modules in the '
        'repository, "libraries": [{"folder": "path/from/the/repository/root"}] (docs/libraries.md)'
    )


def explain(
    verdict: Verdict, output: bytes, files: Sequence[tuple[str, bytes]], libraries: Sequence[str]
) -> Verdict:
    """The verdict of a run where SANY could not find a module, with the reason said clearly;
    any other verdict as it is. `files`: the job's modules as (name, bytes), the spec first;
    `libraries`: the names of the model's libraries."""
    if verdict.outcome != 'error' or verdict.exit_code != PARSE_ERROR:
        return verdict
    # The module SANY cannot find, and the module that imports it.
    found = _CANNOT_FIND.search(output.decode('utf-8', 'replace'))
    if found is None:
        return verdict
    module, importer = found.groups()
    places = [
        f'{name}:{line} {"extends" if keyword == "EXTENDS" else "instantiates"} it ({said})'
        for name, text in files
        if Path(name).stem == importer
        for line, keyword, said in imports(text, module)
    ]
    where = '; '.join(places) or f'module {importer} imports it'
    have = (
        f"the model's libraries ({', '.join(libraries)})"
        if libraries
        else 'any library (the manifest names none)'
    )
    reason = (
        f'module {module} cannot be found: {where}; neither the model folder, the TLA+ tools nor '
        f'{have} hold {module}.tla. {fix(module)}'
    )
    return dataclasses.replace(verdict, reason=reason)
