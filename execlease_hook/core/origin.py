"""Where this execlease was installed from: the record pip keeps of a direct install (the
`direct_url.json` of the distribution, PEP 610), read when `--version` or `init` asks.

A git install (`pip install 'execlease @ git+URL@REV'`) records the repository's URL and the
commit it resolved REV to: the `repo` and `rev` that `init` writes into the hooks, so that
pre-commit builds the same execlease the command line runs. A folder or a wheel records its
path only, which no other machine has.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from urllib.parse import unquote, urlparse

DISTRIBUTION = 'execlease'
# The extras a run of execlease uses (the TLA+ tools, a JRE), not those of its development.
RUNTIME_EXTRAS = ('bundled-tlc', 'java')


@dataclass(frozen=True)
class Origin:
    version: str | None  # None: not installed (run from a source tree)
    url: str | None = None  # as pip recorded it; a git URL without its `git+`
    commit: str | None = None  # the commit of a git install
    editable: bool = False

    @property
    def pip_spec(self) -> str | None:
        """How the install is named to pip, or None when pip recorded nothing."""
        if self.url is None:
            return None
        if self.commit is not None:
            return f'git+{self.url}@{self.commit}'
        return f'{self.url} (editable)' if self.editable else self.url


def installed() -> Origin:
    # Lazy, here and below: importlib.metadata (and the email package it loads) cost 13.7 ms of
    # a guard run with one covered file staged (python -X importtime), which reads no metadata.
    from importlib import metadata

    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return Origin(None)
    return from_record(dist.version, dist.read_text('direct_url.json'))


def extras_requirements() -> tuple[str, ...]:
    """The requirements of the runtime extras this execlease was installed with (every package of
    the extra present), for an environment that must find what the command line finds."""
    from importlib import metadata

    try:
        requires = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        return ()
    found: list[str] = []
    for extra in RUNTIME_EXTRAS:
        wanted = [
            r.split(';')[0].strip()
            for r in requires
            if re.search(rf';.*\bextra\s*==\s*[\'"]{re.escape(extra)}[\'"]', r)
        ]
        if wanted and all(_present(r) for r in wanted):
            found.extend(wanted)
    return tuple(found)


def _present(requirement: str) -> bool:
    from importlib import metadata

    name = re.match(r'[A-Za-z0-9._-]+', requirement)
    try:
        return name is not None and bool(metadata.version(name.group()))
    except metadata.PackageNotFoundError:
        return False


def from_record(version: str, text: str | None) -> Origin:
    """The origin a `direct_url.json` records (None: installed from an index, no record)."""
    try:
        data = json.loads(text or 'null')
    except ValueError:
        data = None
    if not isinstance(data, dict) or not isinstance(data.get('url'), str):
        return Origin(version)
    vcs = data.get('vcs_info')
    if isinstance(vcs, dict) and vcs.get('vcs') == 'git' and isinstance(vcs.get('commit_id'), str):
        return Origin(version, data['url'], vcs['commit_id'])
    editable = isinstance(data.get('dir_info'), dict) and data['dir_info'].get('editable') is True
    return Origin(version, data['url'], editable=editable)


def extra_install(extra: str) -> str:
    """The pip command that adds `extra` to this install, spelled as it was installed: a hint
    naming `execlease[java]` alone would look for execlease on a package index."""
    found = installed()
    if found.url is not None and found.commit is not None:
        return f"pip install 'execlease[{extra}] @ git+{found.url}@{found.commit}'"
    if found.url is not None and found.url.startswith('file://'):
        path = unquote(urlparse(found.url).path)
        return f"pip install {'-e ' if found.editable else ''}'{path}[{extra}]'"
    return f"pip install 'execlease[{extra}]'"


def describe(origin: Origin) -> str:
    """`execlease --version`: the version and, for a direct install, where it came from."""
    if origin.version is None:
        return 'execlease (not installed: version unknown)'
    spec = origin.pip_spec
    return f'execlease {origin.version}' + (f' from {spec}' if spec else '')
