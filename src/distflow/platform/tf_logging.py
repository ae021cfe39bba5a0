"""``tf.logging``: TensorFlow 1.x's logging functions on the ``distflow`` logger.

Every message of distflow itself (hooks, checkpoints, sessions waiting for peers) goes
to the same logger, so ``tf.logging.set_verbosity(tf.logging.INFO)`` shows them as it
did in TF 1.x. Messages go to stderr with the level letter, time and source line. The
threshold: INFO for a program run from a terminal (its stderr is one) that has not
configured Python logging itself, so that training progress, checkpoints and waits for
other tasks show as TF 1.x programs printed them; WARN otherwise (a pipe, a log file, a
test), until the program says.
"""

from __future__ import annotations

import logging as _logging
import sys
import threading
import time

DEBUG = _logging.DEBUG
INFO = _logging.INFO
WARN = _logging.WARN
ERROR = _logging.ERROR
FATAL = _logging.FATAL

_logger_lock = threading.Lock()
_handler = None


class _Formatter(_logging.Formatter):
    """``I1203 12:41:41.123456 module.py:42] message``, as TensorFlow's C++ and Python logs look."""

    def format(self, record):
        letter = record.levelname[:1]
        t = time.localtime(record.created)
        micros = int((record.created % 1) * 1e6)
        head = (f"{letter}{t.tm_mon:02d}{t.tm_mday:02d} {t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d}"
                f".{micros:06d} {record.filename}:{record.lineno}]")
        message = record.getMessage()
        if record.exc_info:
            message += "\n" + self.formatException(record.exc_info)
        return f"{head} {message}"


def get_logger() -> _logging.Logger:
    """The ``distflow`` logger, with a stderr handler the first time it is asked for."""
    global _handler
    logger = _logging.getLogger("distflow")
    with _logger_lock:
        if _handler is None:
            if not logger.handlers and not _logging.getLogger().handlers:
                _handler = _logging.StreamHandler(sys.stderr)
                _handler.setFormatter(_Formatter())
                logger.addHandler(_handler)
                logger.propagate = False
            else:
                _handler = False  # the program configured logging itself: leave it alone
            if logger.level == _logging.NOTSET:
                logger.setLevel(WARN)
    return logger


def show_info_on_terminal(stream=None) -> bool:
    """At import: INFO as the threshold if ``stream`` (stderr) is a terminal and nothing
    configured logging yet (the module docstring); whether it did."""
    stream = sys.stderr if stream is None else stream
    logger = _logging.getLogger("distflow")
    interactive = getattr(stream, "isatty", lambda: False)()
    if not interactive or logger.level != _logging.NOTSET or logger.handlers or _logging.getLogger().handlers:
        return False
    logger.setLevel(INFO)
    get_logger()
    return True


def log(level: int, msg, *args, **kwargs) -> None:
    get_logger().log(level, msg, *args, stacklevel=2, **kwargs)


def debug(msg, *args, **kwargs) -> None:
    get_logger().debug(msg, *args, stacklevel=2, **kwargs)


def info(msg, *args, **kwargs) -> None:
    get_logger().info(msg, *args, stacklevel=2, **kwargs)


def warning(msg, *args, **kwargs) -> None:
    get_logger().warning(msg, *args, stacklevel=2, **kwargs)


warn = warning


def error(msg, *args, **kwargs) -> None:
    get_logger().error(msg, *args, stacklevel=2, **kwargs)


def fatal(msg, *args, **kwargs) -> None:
    get_logger().critical(msg, *args, stacklevel=2, **kwargs)


def vlog(level: int, msg, *args, **kwargs) -> None:
    get_logger().log(level, msg, *args, stacklevel=2, **kwargs)


_counts: dict = {}
_counts_lock = threading.Lock()


def _count(key) -> int:
    with _counts_lock:
        n = _counts.get(key, 0)
        _counts[key] = n + 1
        return n


def log_every_n(level: int, msg, n: int, *args) -> None:
    """Logs the 1st, (n+1)th, (2n+1)th... call from this source line."""
    caller = sys._getframe(1)
    if _count(("every", caller.f_code.co_filename, caller.f_lineno)) % max(int(n), 1) == 0:
        get_logger().log(level, msg, *args, stacklevel=2)


def log_first_n(level: int, msg, n: int, *args) -> None:
    """Logs only the first ``n`` calls from this source line."""
    caller = sys._getframe(1)
    if _count(("first", caller.f_code.co_filename, caller.f_lineno)) < n:
        get_logger().log(level, msg, *args, stacklevel=2)


def log_if(level: int, msg, condition, *args) -> None:
    if condition:
        get_logger().log(level, msg, *args, stacklevel=2)


def set_verbosity(v: int) -> None:
    """Shows messages at level ``v`` and above (``tf.logging.INFO`` shows training progress)."""
    get_logger().setLevel(v)


def get_verbosity() -> int:
    return get_logger().getEffectiveLevel()


def flush() -> None:
    for handler in get_logger().handlers:
        handler.flush()


class TaskLevelStatusMessage:
    """Accepted for compatibility; TF 1.x used it to label a task's status line."""

    def __init__(self, msg):
        self._msg = msg

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
