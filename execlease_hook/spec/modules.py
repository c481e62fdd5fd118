"""The modules a model reads: the EXTENDS and INSTANCE closure of its root modules, found where
TLC looks (docs/architecture.md, the model side): `M.tla` in the root module's own folder, else in
each library folder in order, else TLC's own or a jar's, which is not the repository's to record
(tlc/missing.py explains the ones TLC cannot find). A module of those folders that nothing reads
(a draft beside the spec) is no part of the model. Each level is read in one batch.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from execlease_hook.git.blobs import Source, WorktreeSource
from execlease_hook.manifest.model import Manifest, folder_prefix, library_folders
from execlease_hook.spec import index, syntax


@dataclass(frozen=True)
class Module:
    name: str  # the module's name, as EXTENDS and INSTANCE say it
    key: str  # its key in the model record: from the model folder ('Lib.tla'), or
    # from the repository root for a library folder's ('verification/lib/Ops.tla')
    path: str  # from the repository root
    text: bytes
    library: str | None = None  # the library folder (or jar) that holds it; None: the root's folder
    reader: str = ''  # the key of the first module found reading it ('' for a root module)
    keyword: str = ''  # how that module reads it: 'EXTENDS' or 'INSTANCE'
    line: int = 0  # 1-based line of that EXTENDS or INSTANCE in the reader

    @property
    def root(self) -> bool:
        return not self.reader

    def via(self) -> str:
        """How a message says where the module comes from: `EXTENDS in Lock.tla:2`."""
        if self.root:
            return 'root module'
        where = f', library folder {self.library}' if self.library is not None else ''
        return f'{self.keyword} in {self.reader}:{self.line}{where}'


def closure(
    m: Manifest, source: Source, roots: Mapping[str, bytes], probed: list[str] | None = None
) -> list[Module]:
    """The root modules (`roots`: record key -> bytes, keys from the model folder) and every
    module they read, breadth first, each once: roots first, then in the order they are met.
    `probed`, when given, receives every path looked at, found or not."""
    prefix = folder_prefix(m)
    folders = library_folders(m)

    def where(name: str) -> list[tuple[str, str, str | None]]:
        """Where TLC looks for module `name`, in its order: (key, path, library folder)."""
        own: list[tuple[str, str, str | None]] = [(f'{name}.tla', f'{prefix}{name}.tla', None)]
        return own + [(f'{f}/{name}.tla', f'{f}/{name}.tla', f) for f in folders]

    def read(paths: list[str]) -> Callable[[str], bytes | None]:
        if probed is not None:
            probed.extend(paths)
        source.prefetch(paths)
        return source.read

    first = [
        Module(key.rsplit('/', 1)[-1].removesuffix('.tla'), key, prefix + key, text)
        for key, text in roots.items()
    ]
    return _walk(first, where, read)


def in_memory(
    root: tuple[str, bytes], places: Sequence[tuple[str | None, str, Mapping[str, bytes]]]
) -> list[Module]:
    """The closure of one root module (file name, bytes) over modules already read, in TLC's
    order: each place is (its library label, or None for the root's own folder; the prefix its
    paths are shown with; its modules by file name). What TLC reads for a job (tlc/job.py)."""
    files = {
        f'{prefix}{name}': text for _, prefix, modules in places for name, text in modules.items()
    }

    def where(name: str) -> list[tuple[str, str, str | None]]:
        return [
            (f'{prefix}{name}.tla', f'{prefix}{name}.tla', label)
            for label, prefix, modules in places
            if f'{name}.tla' in modules
        ]

    def read(paths: list[str]) -> Callable[[str], bytes | None]:
        return files.get

    name, text = root
    own = next((prefix for label, prefix, _ in places if label is None), '')
    return _walk([Module(name.removesuffix('.tla'), name, own + name, text)], where, read)


def _walk(
    roots: list[Module],
    where: Callable[[str], list[tuple[str, str, str | None]]],
    read: Callable[[list[str]], Callable[[str], bytes | None]],
) -> list[Module]:
    """Breadth first from `roots`: each level's imports looked up where TLC would (`where`: a
    module name's candidate (key, path, library), in order), read in one batch (`read`)."""
    found: dict[str, Module] = {module.key: module for module in roots}
    names = {module.name for module in roots}
    level = list(roots)
    while level:
        wanted: list[tuple[str, Module, int, str]] = []  # (name, reader, line, keyword)
        for reader in level:
            nested = _nested_modules(reader.text)
            for name, row, keyword in syntax.imports(reader.text):
                if name not in names and name not in nested:
                    names.add(name)
                    wanted.append((name, reader, row + 1, keyword))
        places = {name: where(name) for name, _, _, _ in wanted}
        texts = read([path for found_at in places.values() for _, path, _ in found_at])
        level = []
        for name, reader, line, keyword in wanted:
            for key, path, library in places[name]:
                content = texts(path)
                if content is not None:
                    module = Module(name, key, path, content, library, reader.key, keyword, line)
                    found[key] = module
                    level.append(module)
                    break
    return list(found.values())


def likely_paths(m: Manifest) -> list[str]:
    """The paths the closure of the spec looks at in the working tree: for a source (the index, a
    commit) that mostly holds the same files, to read in the batch it reads anyway, so that
    the closure there starts no `git cat-file` of its own."""
    spec = m.folder / m.spec
    try:
        text = spec.read_bytes()
    except OSError:
        return []
    probed: list[str] = []
    with contextlib.suppress(OSError):  # a guess only: the closure on the real source decides
        closure(m, WorktreeSource(m.root), {m.spec: text}, probed)
    return probed


def _nested_modules(text: bytes) -> set[str]:
    """Modules defined inside this file (`---- MODULE Inner ----` within it): an INSTANCE of
    one reads no file."""
    top = next((c for c in syntax.parse(text).root_node.children if c.type == 'module'), None)
    inner = (
        [c.child_by_field_name('name') for c in top.children if c.type == 'module'] if top else []
    )
    return {
        name.text.decode('utf-8', 'replace') for name in inner if name is not None and name.text
    }


def listing(modules: Iterable[Module]) -> list[dict[str, object]]:
    """The modules as a JSON report lists them."""
    return [
        {
            'module': mod.name,
            'key': mod.key,
            'path': mod.path,
            'library': mod.library,
            'readBy': None
            if mod.root
            else {'module': mod.reader, 'line': mod.line, 'keyword': mod.keyword},
        }
        for mod in modules
    ]


def merged_index(indexes: Sequence[index.SpecIndex]) -> index.SpecIndex:
    """One index of a root module and the modules it reads, as TLC sees its definitions: the
    root's units, then every definition of the others that the root does not define itself (TLC
    refuses a redefinition, so the first one met is the only one), each unit keeping its own file;
    a named instance `I == INSTANCE M` adds M's definitions as `I!Op`. For the map and messages,
    never for the model record (its digests are per module)."""
    first, *others = indexes
    by_module = {i.module: i for i in indexes}
    units = list(first.units)
    seen = {u.key for u in units if u.definition}

    def add(found: Iterable[index.Unit], prefix: str = '') -> None:
        for unit in found:
            if unit.definition and prefix + unit.key not in seen:
                seen.add(prefix + unit.key)
                units.append(replace(unit, key=prefix + unit.key) if prefix else unit)

    for other in others:
        add(other.units)
    for unit in list(units):
        instanced = _instanced(unit) if unit.definition else None
        target = None if instanced is None else by_module.get(instanced)
        if target is not None:
            add(target.units, f'{unit.key}!')
    return index.SpecIndex(first.name, first.module, tuple(units))


def _instanced(unit: index.Unit) -> str | None:
    """`M` for a unit `I == INSTANCE M ...` (parameterless), else None."""
    if unit.node.type != 'module_definition':
        return None
    if any(c.type == 'identifier' for c in unit.node.named_children[1:]):
        return None  # I(x) == INSTANCE M: its operators need the parameter, not resolved here
    instance = next((c for c in unit.node.named_children if c.type == 'instance'), None)
    name = (
        None
        if instance is None
        else next((c for c in instance.named_children if c.type == 'identifier_ref'), None)
    )
    return None if name is None or name.text is None else name.text.decode('utf-8')
