"""``tf.gfile`` and ``tf.io.gfile``: file access with TensorFlow's names and error classes.

Local paths and ``file://`` URLs are supported; other file systems (``gs://``, ``hdfs://``,
``s3://``) are an ``UnimplementedError`` naming the scheme. Failures are TensorFlow's
classes: a missing file is ``NotFoundError``, an existing one where none may be is
``AlreadyExistsError``, anything else the OS refuses is ``PermissionDeniedError`` or
``UnknownError``, each naming the path.
"""

from __future__ import annotations

import contextlib
import errno
import glob as _glob
import os
import shutil

from ..framework import errors

__all__ = ["GFile", "FastGFile", "Open", "Copy", "DeleteRecursively", "Exists", "Glob", "IsDirectory",
           "ListDirectory", "MakeDirs", "MkDir", "Remove", "Rename", "Stat", "Walk"]


def _local(path) -> str:
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = path.decode()
    scheme, sep, rest = path.partition("://")
    if sep and "/" not in scheme:
        if scheme != "file":
            raise errors.UnimplementedError(None, None, f"File system scheme '{scheme}://' is not implemented "
                                                        f"(distflow reads local files only): {path}")
        return rest
    return path


@contextlib.contextmanager
def os_errors(path):
    """Turns an OSError about ``path`` into TensorFlow's error class for it."""
    try:
        yield
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    except FileExistsError:
        raise errors.AlreadyExistsError(None, None, f"{path}; File exists") from None
    except PermissionError:
        raise errors.PermissionDeniedError(None, None, f"{path}; Permission denied") from None
    except IsADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Is a directory") from None
    except NotADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{path}; Not a directory") from None
    except OSError as e:
        if e.errno == errno.ENOTEMPTY:
            raise errors.FailedPreconditionError(None, None, f"{path}; Directory not empty") from None
        raise errors.UnknownError(None, None, f"{path}; {e.strerror or e}") from None


class GFile:
    """A file, opened when first read or written (a missing file is NotFoundError then).

    Modes are Python's: ``"r"``/``"w"``/``"a"`` give and take ``str``, with ``"b"`` bytes.
    """

    def __init__(self, name, mode: str = "r"):
        self.name = _local(name)
        self._path = name
        if mode not in ("r", "rb", "w", "wb", "a", "ab", "r+", "rb+", "w+", "wb+", "a+", "ab+"):
            raise errors.InvalidArgumentError(None, None, f"mode '{mode}' is not one of r, w, a (with b, +)")
        self.mode = mode
        self._file = None

    def _f(self):
        if self._file is None:
            with os_errors(self._path):
                self._file = open(self.name, self.mode, **({} if "b" in self.mode else {"encoding": "utf-8"}))
        return self._file

    def read(self, n: int = -1):
        with os_errors(self._path):
            return self._f().read(n)

    def readline(self):
        with os_errors(self._path):
            return self._f().readline()

    def readlines(self):
        with os_errors(self._path):
            return self._f().readlines()

    def __iter__(self):
        return iter(self._f())

    def __next__(self):
        return next(self._f())

    next = __next__

    def write(self, data) -> None:
        """Writes ``data``: a str as UTF-8; bytes as they are, in any mode (TF's GFile writes a
        text-mode file's bytes unchanged: a PNG written with mode "w", say)."""
        if "b" in self.mode and isinstance(data, str):
            data = data.encode()
        with os_errors(self._path):
            f = self._f()
            if "b" not in self.mode and isinstance(data, (bytes, bytearray, memoryview)):
                f.flush()
                f.buffer.write(data)
            else:
                f.write(data)

    def seek(self, offset=None, whence: int = 0, position=None) -> None:
        """Moves to ``offset`` (from ``whence``); returns None, as TF's GFile does."""
        offset = position if offset is None else offset
        self._f().seek(offset, whence)

    def tell(self) -> int:
        return self._f().tell()

    def size(self) -> int:
        with os_errors(self._path):
            return os.stat(self.name).st_size

    def seekable(self) -> bool:
        return True

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


FastGFile = GFile
Open = GFile


def Exists(filename) -> bool:  # noqa: N802 - TF's names
    return os.path.exists(_local(filename))


def IsDirectory(dirname) -> bool:  # noqa: N802
    return os.path.isdir(_local(dirname))


def MakeDirs(dirname) -> None:  # noqa: N802
    """Creates ``dirname`` and its parents; an existing directory is fine."""
    with os_errors(dirname):
        os.makedirs(_local(dirname), exist_ok=True)


def MkDir(dirname) -> None:  # noqa: N802
    """Creates one directory; AlreadyExistsError if it exists, NotFoundError if its parent does not."""
    with os_errors(dirname):
        os.mkdir(_local(dirname))


def ListDirectory(dirname) -> list[str]:  # noqa: N802
    """The names in ``dirname`` (not paths), NotFoundError if it is not a directory."""
    if not IsDirectory(dirname):
        raise errors.NotFoundError(None, None, f"Could not find directory {dirname}")
    with os_errors(dirname):
        return os.listdir(_local(dirname))


def Glob(filename) -> list[str]:  # noqa: N802
    patterns = filename if isinstance(filename, (list, tuple)) else [filename]
    out = []
    for pattern in patterns:
        out.extend(sorted(_glob.glob(_local(pattern))))
    return out


def Remove(filename) -> None:  # noqa: N802
    with os_errors(filename):
        os.remove(_local(filename))


def DeleteRecursively(dirname) -> None:  # noqa: N802
    path = _local(dirname)
    with os_errors(dirname):
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)


def Rename(oldname, newname, overwrite: bool = False) -> None:  # noqa: N802
    """Renames a file; AlreadyExistsError if ``newname`` exists and ``overwrite`` is False."""
    new = _local(newname)
    if not overwrite and os.path.exists(new):
        raise errors.AlreadyExistsError(None, None, f"{newname}; File already exists")
    with os_errors(oldname):
        os.replace(_local(oldname), new)


def Copy(oldpath, newpath, overwrite: bool = False) -> None:  # noqa: N802
    new = _local(newpath)
    if not overwrite and os.path.exists(new):
        raise errors.AlreadyExistsError(None, None, f"{newpath}; File already exists")
    with os_errors(oldpath):
        shutil.copyfile(_local(oldpath), new)


class FileStatistics:
    """What ``Stat`` returns: ``length``, ``mtime_nsec`` and ``is_directory``."""

    def __init__(self, length: int, mtime_nsec: int, is_directory: bool):
        self.length = length
        self.mtime_nsec = mtime_nsec
        self.is_directory = is_directory


def Stat(filename) -> FileStatistics:  # noqa: N802
    with os_errors(filename):
        st = os.stat(_local(filename))
    return FileStatistics(st.st_size, st.st_mtime_ns, os.path.isdir(_local(filename)))


def Walk(top, in_order: bool = True):  # noqa: N802
    """Yields ``(dirname, subdirs, files)`` as ``os.walk`` (top-down when ``in_order``)."""
    yield from os.walk(_local(top), topdown=in_order)


# tf.io.gfile's lower-case names (TF 1.14 and later).
exists = Exists
isdir = IsDirectory
makedirs = MakeDirs
mkdir = MkDir
listdir = ListDirectory
glob = Glob
remove = Remove
rmtree = DeleteRecursively
rename = Rename
copy = Copy
stat = Stat
walk = Walk
