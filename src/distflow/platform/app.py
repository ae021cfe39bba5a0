"""``tf.app``: ``run`` parses the command-line flags and calls the program's ``main``."""

from __future__ import annotations

import difflib
import sys
from typing import Callable

from . import flags

__all__ = ["flags", "run"]


def run(main: Callable | None = None, argv: list[str] | None = None) -> None:
    """Parses ``argv`` (default ``sys.argv``) into ``tf.app.flags.FLAGS``, then exits with ``main(rest)``.

    ``rest`` is the program name followed by the arguments that are not defined flags. As
    in TF 1.x, a flag nobody defined is passed on to ``main`` in ``rest`` (programs that
    parse their own options with argparse rely on it); if its name is close to a defined
    flag's, a warning names both, since it is then more likely a typo. A value of the
    wrong type for a defined flag prints the error to stderr and exits with status 1, as
    TF 1.x (absl) did. Without ``main``, the ``main`` function of the ``__main__`` module runs.
    """
    argv = list(sys.argv if argv is None else argv)
    try:
        rest = flags.FLAGS(argv, known_only=True)
    except flags.Error as e:
        sys.stderr.write(f"FATAL Flags parsing error: {e}\n"
                         "Pass --helpshort or --helpfull to see help on flags.\n")
        sys.exit(1)
    _warn_of_likely_typos(rest[1:])
    if main is None:
        main = sys.modules["__main__"].main
    sys.exit(main(rest))


def _warn_of_likely_typos(args: list[str]) -> None:
    defined = list(flags.FLAGS)
    for arg in args:
        if not arg.startswith("-") or arg in ("-", "--"):
            continue
        name = arg.lstrip("-").partition("=")[0]
        close = difflib.get_close_matches(name, defined, n=1, cutoff=0.8)
        if close:
            sys.stderr.write(f"WARNING: --{name} is not a defined flag, so it is passed on to main; "
                             f"did you mean --{close[0]}?\n")
