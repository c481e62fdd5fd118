"""The one list of report formats: a name and the module of its writer in this folder
(`render(report) -> str`). A new format is one module here and one line below. A writer is
imported only when asked for, so that the command line can offer the names without loading one."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module
from types import ModuleType

WRITERS: dict[str, Callable[[], ModuleType]] = {
    'json': lambda: import_module('execlease_hook.formats.report'),  # the Report's own JSON
    'sarif': lambda: import_module('execlease_hook.formats.sarif'),
    'github': lambda: import_module('execlease_hook.formats.github'),
    'junit': lambda: import_module('execlease_hook.formats.junit'),
}
FORMATS = ('text', *WRITERS)
