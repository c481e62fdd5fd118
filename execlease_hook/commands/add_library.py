"""What `execlease add --library` and `--tools` (and `init --library`) put in a manifest: a TLA+
library (docs/libraries.md) or the model's own TLA+ tools (docs/how-to/tla-tools.md), each made
ready exactly as `verify` will use it before anything is written (a jar fetched and its sha256
checked, a folder read and scanned). A jar URL given without a sha256 is downloaded once, only to
say its digest: execlease never pins a digest it was not given, since only the person who checked
the jar against its publisher's digest can say it is the one to trust. What the library supplies
is said against what the model's modules import, so a library that supplies nothing the model
uses is noticed at once.
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
from pathlib import Path

from execlease_hook.core import paths, term
from execlease_hook.core.errors import CannotRun
from execlease_hook.core.settings import Settings
from execlease_hook.manifest import read
from execlease_hook.manifest.model import Library, Manifest, ToolsPin, folder_prefix
from execlease_hook.spec import scan, syntax
from execlease_hook.spec.modules import Module
from execlease_hook.tlc import jar, libraries, library_modules, pin
from execlease_hook.tlc.java import find_java
from execlease_hook.tlc.libraries import Libraries

FRAGMENT = '#sha256='


def _digest(text: str, what: str) -> str:
    if not read.SHA256.match(text.lower()):
        raise CannotRun(
            f"{what} {text}: expected the jar's sha256, 64 hex digits (sha256sum FILE.jar)"
        )
    return text.lower()


def library_entry(
    root: Path,
    value: str,
    sha256: str | None = None,
    name: str | None = None,
    what: str = '--library',
    *,
    settings: Settings,
) -> Library:
    """The manifest entry `value` names: an http(s) URL is a jar (its sha256 from `sha256` or a
    `#sha256=HEX` fragment, as pip pins a URL), anything else a folder in the repository (a path
    from here). Refused (exit 2) with the option's name and what to give."""
    if '://' not in value:
        if sha256 is not None or name is not None:
            raise CannotRun(
                f'{what} {value}: a folder library takes no --sha256 or --name; it is named '
                "and trusted by its path and its modules' bytes"
            )
        rel = paths.rel(root, Path(value).absolute())
        if rel == '..' or rel.startswith('../'):
            raise CannotRun(
                f'{what} {value}: outside the repository {root}; a folder library is part '
                'of the model and lives in the repository (a jar is named by its URL)'
            )
        if not (root / rel).is_dir():
            raise CannotRun(
                f'{what} {value}: no such folder; give a folder of .tla modules in the '
                'repository, or the http(s) URL of a jar'
            )
        return Library(folder=rel)
    url, hash_sign, fragment = value.partition('#')
    if hash_sign:
        if not fragment.startswith(FRAGMENT[1:]):
            raise CannotRun(f'{what} {value}: the only fragment a URL may carry is {FRAGMENT}HEX')
        pinned = _digest(fragment[len(FRAGMENT) - 1 :], f'{what} ...{FRAGMENT}')
        if sha256 is not None and _digest(sha256, '--sha256') != pinned:
            raise CannotRun(
                f'{what} {value}: its {FRAGMENT} and --sha256 {sha256} differ; give one'
            )
        sha256 = pinned
    if not read.JAR_URL.match(url):
        raise CannotRun(
            f'{what} {url}: not an http(s) URL of a jar; for a jar on this machine set '
            'EXECLEASE_LIBRARY_PATH and pin its download URL (docs/libraries.md)'
        )
    if url.startswith('http:'):
        term.to_stderr(
            f'execlease: warning: {what} {url}: a plain http: URL, which anyone on the '
            'way can read and answer for; a jar of another sha256 is refused, so the '
            'download would fail rather than mislead, but prefer the https: URL'
        )
    if sha256 is None and settings.tla_offline:
        raise CannotRun(
            f'{what} {url}: give --sha256 HEX, the sha256 of the jar you checked '
            '(sha256sum FILE.jar); downloads are off (EXECLEASE_TLA_OFFLINE=1), so it '
            'cannot be shown here'
        )
    if sha256 is None:
        # What the url serves now: downloaded to a temp folder, digested, deleted.
        with tempfile.TemporaryDirectory(prefix='execlease-digest-') as folder:
            try:
                target, bound = Path(folder) / 'served.jar', libraries.bound(url, settings)
                digest = jar.download(url, target, bound, settings, lambda digest: None)
            except jar.DownloadFailed as e:
                raise CannotRun(f'{what} {url}: {e}; check the url, or give --sha256 HEX') from None
        raise CannotRun(
            f"{what} {url}: give the jar's sha256. What the url serves now has sha256 {digest}; "
            'compare it with the digest its publisher gives (a release page, a signed checksum '
            f'file), and only then pin it: add --sha256 {digest}'
        )
    return Library(url=url, sha256=_digest(sha256, '--sha256'), name=name)


def ready(root: Path, lib: Library, settings: Settings) -> list[str]:
    """The library made ready as `verify` makes it (a jar fetched and verified, a folder read):
    the modules it supplies. Raises CannotRun."""
    libs = libraries.one(root, lib, f'--library {lib.label}', settings, 'the sha256 given is')
    if libs.folders:
        return [Path(name).stem for name, _ in libs.modules()]
    # The modules a library jar offers TLC: the .tla files at its root.
    modules = [name.removesuffix('.tla') for name in library_modules.jar_modules(libs.jars[0].path)]
    if not modules:
        raise CannotRun(
            f'{lib.url}: the jar holds no .tla module at its root, where TLC looks for '
            'modules; is it the library jar (CommunityModules-deps.jar, not a sources jar)?'
        )
    return modules


def read_by_model(m: Manifest, libs: Libraries, settings: Settings) -> tuple[list[Module], Path]:
    """The modules the model's spec reads with these libraries, found where TLC looks (its
    folder, the library folders, the jars), and the tla2tools.jar whose standard modules count
    (one that is not on this machine yet has none)."""
    spec = m.folder / m.spec
    try:
        text = spec.read_bytes()
    except OSError as e:
        raise CannotRun(
            f'{spec}: cannot read the spec ({e.strerror or e}); give the spec the model checks'
        ) from None
    tools_jar = jar.present_jar(m.root, settings) or Path('tla2tools.jar')
    beside = paths.modules_beside(m.root, spec)
    read = library_modules.read_by((m.spec, text), beside, libs, tools_jar, folder_prefix(m))
    return read, tools_jar


def unsupplied(read: list[Module], standard: frozenset[str]) -> dict[str, list[Module]]:
    """Each module that a module the model reads imports and nothing supplies (not its folder,
    a library, or TLC), with the modules that import it."""
    found = {mod.name for mod in read}
    out: dict[str, list[Module]] = {}
    for mod in read:
        for name, _, _ in syntax.imports(mod.text):
            if name not in found and name not in standard and mod not in out.get(name, []):
                out.setdefault(name, []).append(mod)
    return out


def supplies(
    m: Manifest, lib: Library, modules: list[str], libs: Libraries, settings: Settings
) -> list[str]:
    """What a library offers, said against what the model reads; the modules of it the model
    reads scanned as `verify` scans them (a module no root imports is never judged); a standard
    module it shadows and a module its own modules need that nothing supplies, named."""
    read, jar = read_by_model(m, libs, settings)
    scan.refuse([(mod.path, mod.text) for mod in read if mod.library is not None])
    used = sorted({mod.name for mod in read if mod.library == lib.label})
    more = f' and {len(modules) - 12} more' if len(modules) > 12 else ''
    said = (
        f'{len(modules)} module{"" if len(modules) == 1 else "s"} ({", ".join(modules[:12])}{more})'
    )
    lines = [
        f'{said}; the model imports {", ".join(used)}'
        if used
        else f'{said}; no module of {paths.rel(m.root, m.folder)} imports any of them yet (a '
        'module that EXTENDS one of them will find it)'
    ]
    lines += library_modules.shadowing([mod for mod in read if mod.library == lib.label], jar)
    for name, readers in sorted(unsupplied(read, library_modules.standard_modules(jar)).items()):
        own = [r for r in readers if r.library == lib.label]
        if own:
            lines.append(
                f'{", ".join(r.path for r in own)} import{"s" if len(own) == 1 else ""} '
                f'{name}, which nothing supplies (not the model folder, a library, or TLC): '
                f'add the library that holds {name} (docs/libraries.md), or TLC will stop there'
            )
    return lines


def add_library(
    m: Manifest, options: argparse.Namespace, settings: Settings
) -> tuple[Manifest, list[str]]:
    lib = library_entry(m.root, options.library, options.sha256, options.name, settings=settings)
    for i, old in enumerate(m.libraries):
        if (lib.folder is not None and old.folder == lib.folder) or (
            lib.sha256 is not None and (old.sha256 == lib.sha256 or old.url == lib.url)
        ):
            raise CannotRun(
                f'{options.library}: the manifest has it already, libraries[{i}] ({old.label})'
            )
    if lib.folder is not None and (m.root / lib.folder).resolve() == m.folder.resolve():
        raise CannotRun(
            f'--library {options.library}: the model folder itself, whose modules TLC finds '
            'without a library entry'
        )

    modules = ready(m.root, lib, settings)
    new = dataclasses.replace(m, libraries=(*m.libraries, lib))
    said = supplies(new, lib, modules, libraries.of(new, settings), settings)
    kind = 'folder' if lib.folder is not None else f'jar, sha256 {lib.sha256}'
    return new, [f'added library {lib.label} ({kind}): {said[0]}', *said[1:]]


def add_tools(
    m: Manifest, options: argparse.Namespace, settings: Settings
) -> tuple[Manifest, list[str]]:
    """The model's own TLA+ tools and/or its lowest TLC, checked by fetching the jar and asking
    its TLC for its version, as `verify` will."""
    old = m.tools or ToolsPin()
    url, sha256 = old.url, old.sha256
    if options.tools is not None:
        entry = library_entry(
            m.root, options.tools, options.sha256, None, '--tools', settings=settings
        )
        if entry.url is None:
            raise CannotRun(
                f'--tools {options.tools}: give the http(s) URL of a tla2tools.jar; for a '
                'jar on this machine set EXECLEASE_TLA_JAR (docs/how-to/tla-tools.md)'
            )
        url, sha256 = entry.url, entry.sha256
    least = options.min_tlc if options.min_tlc is not None else old.min_tlc
    if least is not None and not read.TLC_VERSION.match(least):
        raise CannotRun(
            f'--min-tlc {least}: give a TLC version as TLC prints it, MAJOR.MINOR (e.g. 2.19)'
        )
    new = dataclasses.replace(m, tools=ToolsPin(url=url, sha256=sha256, min_tlc=least))
    # The default tools, else (a model pinning its own jar) the model's own, as `verify` has them.
    default, t = pin.default_tools(m.root, [new], find_java(settings), settings)
    pinned = t.jar if default is None else pin.jar_for(new, default, t.java, settings)
    said = []
    if options.tools is not None:
        said.append(f'added tools {url}: sha256 {sha256}, {pinned.tlc_version} ({pinned.source})')
    if options.min_tlc is not None:
        said.append(f"added tools.minTlc {least}: the model's jar is {pinned.tlc_version}")
    return new, said
