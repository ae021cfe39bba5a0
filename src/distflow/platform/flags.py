"""``tf.app.flags`` (also ``tf.flags``): command-line flags as TensorFlow 1.x programs define them.

TF 1.x wrapped absl's flags; this module implements the part programs use, with absl's
syntax and errors and without the dependency::

    flags = tf.app.flags
    flags.DEFINE_integer("batch_size", 100, "Examples per step.")
    FLAGS = flags.FLAGS
    ...
    FLAGS.batch_size            # parses sys.argv on first access, as TF 1.x did

Accepted on the command line: ``--name=value``, ``--name value``, a single dash instead of
two, ``--flag`` / ``--noflag`` for booleans, ``--`` to end the flags, and arguments that
are not flags anywhere (kept, in order, for the program). ``--help``, ``--helpshort`` and
``--helpfull`` print every flag with its help and default.
"""

from __future__ import annotations

import sys
from typing import Any, Callable


class Error(Exception):
    """Base class of the flag errors (absl's ``flags.Error``)."""


class DuplicateFlagError(Error):
    """A flag name was defined twice."""


class IllegalFlagValueError(Error):
    """A value given for a flag cannot be parsed as its type, or fails its validator."""


class UnrecognizedFlagError(Error):
    """The command line names a flag nobody defined."""

    def __init__(self, flagname: str, flagvalue: str = ""):
        self.flagname = flagname
        self.flagvalue = flagvalue
        super().__init__(f"Unknown command line flag '{flagname}'")


class UnparsedFlagAccessError(Error):
    """A flag was read before the command line was parsed (not raised by ``FLAGS``, which parses)."""


ValidationError = IllegalFlagValueError


_TRUE = {"true", "t", "1", "yes", "y"}
_FALSE = {"false", "f", "0", "no", "n"}


def _parse_bool(text) -> bool:
    if isinstance(text, bool):
        return text
    lowered = str(text).strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ValueError(f"Non-boolean argument to boolean flag: {text!r}")


def _parse_list(text) -> list[str]:
    if isinstance(text, (list, tuple)):
        return [str(v) for v in text]
    text = str(text).strip()
    return [part.strip() for part in text.split(",")] if text else []


class Flag:
    """One defined flag: its name, parser, default, help text and current value."""

    def __init__(self, name: str, default, help_text: str, parser: Callable[[Any], Any], type_name: str,
                 boolean: bool = False, multi: bool = False, enum_values=None, module: str = ""):
        self.name = name
        self.help = help_text or "(no help available)"
        self.parser = parser
        self.type_name = type_name
        self.boolean = boolean
        self.multi = multi
        self.enum_values = enum_values
        self.module = module
        self.present = 0
        self.default = None if default is None else self.parse(default, from_default=True)
        self.value = self.default
        self.validators: list[tuple[Callable, str]] = []

    def parse(self, text, from_default: bool = False):
        if self.multi:
            values = text if isinstance(text, (list, tuple)) else [text]
            return [self._parse_one(v) for v in values]
        return self._parse_one(text)

    def _parse_one(self, text):
        try:
            value = self.parser(text)
        except (TypeError, ValueError) as e:
            raise IllegalFlagValueError(f"flag --{self.name}={text}: {e}") from None
        if self.enum_values is not None and value not in self.enum_values:
            raise IllegalFlagValueError(f"flag --{self.name}={text}: value should be one of "
                                        f"<{'|'.join(self.enum_values)}>")
        return value

    def set_from_command_line(self, text) -> None:
        value = self.parse(text)
        if self.multi and self.present:
            value = list(self.value) + value
        self.value = value
        self.present += 1

    def __str__(self) -> str:
        # TF 1.0-1.4 scripts print ``FLAGS.__flags``' items as "name=value"; so do these.
        return str(self.value)

    def help_line(self) -> str:
        default = self.default
        if isinstance(default, list):
            default = ",".join(str(v) for v in default)
        if self.boolean:
            default = "true" if default else "false"
        prefix = f"  --[no]{self.name}" if self.boolean else f"  --{self.name}"
        enum = f"<{'|'.join(self.enum_values)}>: " if self.enum_values else ""
        return f"{prefix}: {enum}{self.help}\n    (default: {default!r})" if default is not None else \
            f"{prefix}: {enum}{self.help}"


class FlagValues:
    """The registry of defined flags and their values (absl's ``FlagValues``).

    Reading an attribute gives the flag's value; when the command line has not been
    parsed yet, ``sys.argv`` is parsed first (what ``tf.app.flags.FLAGS`` did in TF 1.x).
    """

    def __init__(self):
        object.__setattr__(self, "_flags", {})
        object.__setattr__(self, "_parsed", False)
        object.__setattr__(self, "_program", "")

    # --- defining -----------------------------------------------------------------------

    def _register(self, flag: Flag) -> Flag:
        if flag.name in self._flags:
            raise DuplicateFlagError(
                f"The flag '{flag.name}' is defined twice. First from {self._flags[flag.name].module or '?'}, "
                f"second from {flag.module or '?'}.")
        self._flags[flag.name] = flag
        return flag

    # --- reading and writing ------------------------------------------------------------

    def __getattr__(self, name: str):
        flags = self.__dict__["_flags"]
        if name == "__flags":
            # TF 1.0-1.4's dict of the flags (read after ``_parse_flags()``); its values are the
            # Flag objects of TF 1.5+ (absl), which print as their values.
            if not self.__dict__["_parsed"]:
                self(sys.argv)
            return dict(flags)
        if name not in flags:
            raise AttributeError(f"Flag --{name} is not defined (define it with tf.app.flags.DEFINE_...)")
        if not self.__dict__["_parsed"]:
            self(sys.argv)
        return flags[name].value

    def __setattr__(self, name: str, value) -> None:
        if name not in self._flags:
            raise AttributeError(f"Flag --{name} is not defined (define it with tf.app.flags.DEFINE_...)")
        flag = self._flags[name]
        flag.value = flag.parse(value) if isinstance(value, str) and not flag.type_name == "string" else value
        self._validate(flag)

    def __delattr__(self, name: str) -> None:
        if name not in self._flags:
            raise AttributeError(name)
        del self._flags[name]

    def __contains__(self, name: str) -> bool:
        return name in self._flags

    def __iter__(self):
        return iter(list(self._flags))

    def __len__(self) -> int:
        return len(self._flags)

    def __getitem__(self, name: str) -> Flag:
        return self._flags[name]

    def is_parsed(self) -> bool:
        return self._parsed

    def mark_as_parsed(self) -> None:
        object.__setattr__(self, "_parsed", True)

    def _parse_flags(self, args=None) -> list[str]:
        """TF 1.0-1.4's way to parse the command line: ``args`` (without the program name; default
        ``sys.argv[1:]``). Arguments naming no defined flag are returned, not refused."""
        argv = sys.argv if args is None else [sys.argv[0] if sys.argv else ""] + list(args)
        return self(argv, known_only=True)[1:]

    def unparse_flags(self) -> None:
        for flag in self._flags.values():
            flag.value = flag.default
            flag.present = 0
        object.__setattr__(self, "_parsed", False)

    def flag_values_dict(self) -> dict:
        return {name: flag.value for name, flag in self._flags.items()}

    def get_flag_value(self, name: str, default):
        flag = self._flags.get(name)
        return default if flag is None else flag.value

    def set_default(self, name: str, value) -> None:
        flag = self._flags[name]
        flag.default = flag.parse(value)
        if not flag.present:
            flag.value = flag.default

    # --- parsing -------------------------------------------------------------------------

    def __call__(self, argv, known_only: bool = False) -> list[str]:
        """Parses ``argv`` (program name first); returns the program name and the other arguments.

        Raises:
          UnrecognizedFlagError: an argument names a flag nobody defined (unless ``known_only``).
          IllegalFlagValueError: a value does not parse as its flag's type.
        """
        if isinstance(argv, str):
            raise TypeError("argv should be a tuple/list of strings, not bytes or string")
        argv = list(argv)
        if not argv:
            raise ValueError("argv cannot be an empty list (its first item is the program name)")
        object.__setattr__(self, "_program", argv[0])
        rest = [argv[0]]
        args = argv[1:]
        i = 0
        while i < len(args):
            arg = args[i]
            i += 1
            if arg == "--":
                rest.extend(args[i:])
                break
            if not arg.startswith("-") or arg == "-":
                rest.append(arg)
                continue
            body = arg[2:] if arg.startswith("--") else arg[1:]
            name, has_value, value = body.partition("=")
            if name in ("help", "helpshort", "helpfull", "h", "?") and not has_value and name not in self._flags:
                print(self.help_text())
                sys.exit(0)
            flag = self._flags.get(name)
            if flag is None and name.startswith("no") and not has_value:
                negated = self._flags.get(name[2:])
                if negated is not None and negated.boolean:
                    negated.set_from_command_line(False)
                    continue
            if flag is None:
                if known_only:
                    rest.append(arg)
                    continue
                raise UnrecognizedFlagError(name, value)
            if flag.boolean and not has_value:
                flag.set_from_command_line(True)
                continue
            if not has_value:
                if i >= len(args):
                    raise IllegalFlagValueError(f"Missing value for flag {arg}")
                value = args[i]
                i += 1
            flag.set_from_command_line(value)
        object.__setattr__(self, "_parsed", True)
        for flag in self._flags.values():
            self._validate(flag)
        return rest

    def _validate(self, flag: Flag) -> None:
        for check, message in flag.validators:
            if not check(flag.value):
                raise IllegalFlagValueError(f"flag --{flag.name}={flag.value}: {message}")

    def help_text(self) -> str:
        lines = [f"{self._program or sys.argv[0]}:", "", "flags:"]
        for name in sorted(self._flags):
            lines.append(self._flags[name].help_line())
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.help_text()


FLAGS = FlagValues()


def _caller_module() -> str:
    frame = sys._getframe(3)
    return frame.f_globals.get("__name__", "")


def _define(name, default, help_text, parser, type_name, flag_values=None, **kw) -> Flag:
    return (FLAGS if flag_values is None else flag_values)._register(Flag(name, default, help_text, parser, type_name,
                                                 module=_caller_module(), **kw))


def _str(value) -> str:
    return value if isinstance(value, str) else str(value)


def _int(value) -> int:
    if isinstance(value, bool):
        raise ValueError(f"Expect argument to be an int, got {value!r}")
    if isinstance(value, str):
        return int(value, 0)
    if isinstance(value, float) and not value.is_integer():
        raise ValueError(f"Expect argument to be an int, got {value!r}")
    return int(value)


def DEFINE_string(name, default, help, flag_values=None, **kwargs):  # noqa: A002, N802 - TF's names
    """A flag whose value is a string."""
    return _define(name, default, help, _str, "string", flag_values)


def DEFINE_integer(name, default, help, lower_bound=None, upper_bound=None, flag_values=None,  # noqa: A002, N802
                   **kwargs):
    """A flag whose value is an int (``0x``/``0o`` prefixes accepted), optionally bounded."""
    flag = _define(name, default, help, _int, "int", flag_values)
    _add_bounds(flag, lower_bound, upper_bound)
    return flag


def DEFINE_float(name, default, help, lower_bound=None, upper_bound=None, flag_values=None,  # noqa: A002, N802
                 **kwargs):
    """A flag whose value is a float, optionally bounded."""
    flag = _define(name, default, help, float, "float", flag_values)
    _add_bounds(flag, lower_bound, upper_bound)
    return flag


def DEFINE_boolean(name, default, help, flag_values=None, **kwargs):  # noqa: A002, N802
    """A flag that is true or false: ``--name``, ``--noname``, ``--name=false``."""
    return _define(name, default, help, _parse_bool, "bool", flag_values, boolean=True)


DEFINE_bool = DEFINE_boolean


def DEFINE_list(name, default, help, flag_values=None, **kwargs):  # noqa: A002, N802
    """A flag whose value is a list of strings, written comma-separated."""
    return _define(name, default, help, _parse_list, "list", flag_values)


def DEFINE_enum(name, default, enum_values, help, flag_values=None, **kwargs):  # noqa: A002, N802
    """A string flag whose value must be one of ``enum_values``."""
    return _define(name, default, help, _str, "string enum", flag_values, enum_values=list(enum_values))


def DEFINE_multi_string(name, default, help, flag_values=None, **kwargs):  # noqa: A002, N802
    """A string flag that may be given several times; its value is the list of them."""
    return _define(name, default, help, _str, "multi string", flag_values, multi=True)


def DEFINE_multi_integer(name, default, help, flag_values=None, **kwargs):  # noqa: A002, N802
    """An int flag that may be given several times; its value is the list of them."""
    return _define(name, default, help, _int, "multi int", flag_values, multi=True)


def _add_bounds(flag: Flag, lower, upper) -> None:
    if lower is not None:
        flag.validators.append((lambda v: v is None or v >= lower, f"should be >= {lower}"))
    if upper is not None:
        flag.validators.append((lambda v: v is None or v <= upper, f"should be <= {upper}"))


def register_validator(flag_name: str, checker: Callable, message: str = "Flag validation failed",
                       flag_values=None) -> None:
    """Adds a check run whenever the flag is parsed or set; failing it is IllegalFlagValueError."""
    (FLAGS if flag_values is None else flag_values)[flag_name].validators.append((checker, message))


def mark_flag_as_required(flag_name: str, flag_values=None) -> None:
    """Parsing fails unless the flag has a value (a default of None must be overridden)."""
    register_validator(flag_name, lambda v: v is not None,
                       f"Flag --{flag_name} must have a value other than None.", flag_values)


def mark_flags_as_required(flag_names, flag_values=None) -> None:
    for name in flag_names:
        mark_flag_as_required(name, flag_values)
