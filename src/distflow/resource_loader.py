"""``tf.resource_loader``: files shipped next to a program's code."""

from __future__ import annotations

import inspect
import os

from ._namespace import missing


def get_data_files_path() -> str:
    """The directory of the calling module's file."""
    return os.path.dirname(os.path.abspath(inspect.stack()[1].filename))


def get_root_dir_with_all_resources() -> str:
    return os.path.dirname(os.path.abspath(inspect.stack()[1].filename))


def get_path_to_datafile(path) -> str:
    """``path`` relative to the calling module's directory."""
    return os.path.join(os.path.dirname(os.path.abspath(inspect.stack()[1].filename)), path)


def load_resource(path) -> bytes:
    with open(path if os.path.isabs(path) else os.path.join(
            os.path.dirname(os.path.abspath(inspect.stack()[1].filename)), path), "rb") as f:
        return f.read()


def readahead_file_path(path, readahead="128M") -> str:
    return path


__getattr__ = missing("tf.resource_loader")
