"""What a model's libraries need and TLC lacks, said clearly in place of TLC's raw error; the
verdict stays an error (exit 2), with these words as its reason.

A module TLC cannot find (`explain`): SANY says `Cannot find source file for module M imported in
module N.` (TLC 2.15 and 2.19) and TLC exits 150; the reason names the module, the line that
EXTENDS or INSTANCEs it and the `libraries` entry that supplies it (docs/libraries.md).

A library's Java override that cannot run in the TLC in use (`explain_override`,
docs/libraries.md#which-tlc-a-library-needs): a library jar (CommunityModules) ships Java classes
that TLC runs in place of some operators, compiled against one tla2tools.jar; in another TLC a
class or method they need may be missing. TLC 2.15 then says either, when it first applies the
operator, `Attempted to apply the operator overridden by the Java method ..., but it produced the
following error: tlc2/value/impl/Xyz` (the missing class's name), or, when it loads the class,
`The exception was a java.lang.UnsupportedClassVersionError` (or another linkage error), and
calls it "probably caused by an error in the spec or model". Neither is the spec's.
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
    if (found := _CANNOT_FIND.search(output.decode('utf-8', 'replace'))) is None:
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


_LINKAGE = tuple(
    'UnsupportedClassVersionError NoClassDefFoundError NoSuchMethodError NoSuchFieldError '
    'AbstractMethodError IncompatibleClassChangeError ClassFormatError LinkageError '
    'VerifyError'.split()
)
_APPLIED = re.compile(
    r'Attempted to apply the operator overridden by the Java method\s+(.+?),\s*'
    r'but it produced the following error:\s*(\S[^\n]*)',
    re.S,
)
_LOADED = re.compile(
    r'The exception was a java\.lang\.(' + '|'.join(_LINKAGE) + r')\s*:?\s*([^\n]*)'
)
_CLASS_NAME = re.compile(r'[A-Za-z_$][\w$]*(/[A-Za-z_$][\w$]*)+')  # a missing class, by the JVM
_VERSION = re.compile(r'TLC2 Version (\S+)')
ADVICE = (
    'this is not an error of the spec: use a release of the library built for this TLC, or '
    'run the model with the TLC the library needs (docs/libraries.md#which-tlc-a-library-needs)'
)


def explain_override(verdict: Verdict, output: bytes, jars: Sequence[str]) -> Verdict:
    """The verdict of a run where a library jar's Java override could not run, with the reason
    said; any other verdict as it is. `jars`: the names of the model's library jars."""
    if verdict.outcome != 'error' or not jars:
        return verdict
    text = output.decode('utf-8', 'replace')
    version = _VERSION.search(text)
    tlc = f'TLC {version.group(1)}' if version else 'the TLC in use'
    on = f'library jars on the class path: {", ".join(jars)}'
    applied = _APPLIED.search(text)
    loaded = _LOADED.search(text)
    error = applied.group(2).strip() if applied else ''
    if applied and (_CLASS_NAME.fullmatch(error) or any(name in error for name in _LINKAGE)):
        method = ' '.join(applied.group(1).split())
        missing = (
            f'needs {error}, which {tlc} does not have'
            if _CLASS_NAME.fullmatch(error)
            else f'failed: {error}'
        )
        reason = (
            f"a library's Java override cannot run in {tlc}: {method} {missing} (it was built "
            f'for another TLC; {on})'
        )
    elif loaded:
        reason = (
            f"a library's Java override cannot be loaded by {tlc} on this Java: "
            f'{loaded.group(1)}: {loaded.group(2).strip()} ({on})'
        )
    else:
        return verdict
    return dataclasses.replace(verdict, reason=f'{reason}; {ADVICE}')
