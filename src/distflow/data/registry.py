"""The input pipelines of this process, by token: iterator ops name their dataset by one.

A pipeline runs only in the process that built it; its ops carry a token that this
registry turns back into the Dataset (held weakly: a dataset no graph keeps goes).
"""

from __future__ import annotations

import itertools
import threading
import weakref

from ..framework import errors

# The datasets that iterator ops name, by token (weakly: a dataset no graph holds goes).
_DATASETS: "weakref.WeakValueDictionary[str, object]" = weakref.WeakValueDictionary()
_tokens = itertools.count()
_registry_lock = threading.Lock()


def register(dataset) -> str:
    with _registry_lock:
        token = f"dataset_{next(_tokens)}"
        _DATASETS[token] = dataset
        return token


def lookup(token: str):
    dataset = _DATASETS.get(token)
    if dataset is None:
        raise errors.InvalidArgumentError(None, None, f"Dataset '{token}' is not in this process: an input "
                                                      "pipeline runs only in the process that built it")
    return dataset


class RunState:
    """What one initialization of an iterator keeps for its pipeline: each traced function's
    session and each shuffle's seeds, keyed by the stage that owns them."""

    def __init__(self):
        self.stages: dict = {}

    def close(self) -> None:
        for value in self.stages.values():
            close = getattr(value, "close", None)
            if close is not None:
                close()
        self.stages.clear()
