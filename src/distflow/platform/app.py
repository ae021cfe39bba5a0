"""``tf.app``: ``run`` parses the command-line flags and calls the program's ``main``."""

from __future__ import annotations

import sys
from typing import Callable

from . import flags

__all__ = ["flags", "run"]


def run(main: Callable | None = None, argv: list[str] | None = None) -> None:
    """Parses ``argv`` (default ``sys.argv``) into ``tf.app.flags.FLAGS``, then exits with ``main(rest)``.

    ``rest`` is the program name followed by the arguments that are not flags. A flag
    nobody defined, or a value of the wrong type, prints the error to stderr and exits
    with status 1, as TF 1.x (absl) did. Without ``main``, the ``main`` function of the
    ``__main__`` module runs.
    """
    argv = list(sys.argv if argv is None else argv)
    try:
        rest = flags.FLAGS(argv)
    except flags.Error as e:
        sys.stderr.write(f"FATAL Flags parsing error: {e}\n"
                         "Pass --helpshort or --helpfull to see help on flags.\n")
        sys.exit(1)
    if main is None:
        main = sys.modules["__main__"].main
    sys.exit(main(rest))
