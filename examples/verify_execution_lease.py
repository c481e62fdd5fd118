"""`python -m examples.verify_execution_lease [OPTIONS]`, in a clone of execlease: the shipped
model's verification under the name it had before execlease (`pnpm verify:execution-lease`),
the same as `execlease verify --model verification/execution-lease [OPTIONS]`."""
from __future__ import annotations

import sys
from collections.abc import Sequence

from execlease_hook.cli.main import main as execlease

MODEL = 'verification/execution-lease'


def main(argv: Sequence[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    return execlease(['verify', '--model', MODEL, *args])


if __name__ == '__main__':
    raise SystemExit(main())
