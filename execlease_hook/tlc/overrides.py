"""A library's Java override that cannot run in the TLC in use, told apart from an error of the
spec (docs/libraries.md#which-tlc-a-library-needs).

A library jar (CommunityModules) ships, beside its modules, Java classes that TLC runs in place
of some operators' TLA+ definitions. They are compiled against one tla2tools.jar; in another TLC
a class or method they need may be missing. TLC 2.15 then says either, when it first applies
the operator, `Attempted to apply the operator overridden by the Java method ..., but it
produced the following error: tlc2/value/impl/Xyz` (the missing class's name), or, when it loads
the class, `The exception was a java.lang.UnsupportedClassVersionError` (or another linkage
error), and calls it "probably caused by an error in the spec or model". Neither is the spec's:
the verdict stays an error (exit 2), with a reason that says so and what to do.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from execlease_hook.tlc.output import Verdict

_LINKAGE = tuple(
    'UnsupportedClassVersionError NoClassDefFoundError NoSuchMethodError NoSuchFieldError '
    'AbstractMethodError IncompatibleClassChangeError ClassFormatError LinkageError VerifyError'.split()
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


def explain(verdict: Verdict, output: bytes, jars: Sequence[str]) -> Verdict:
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
