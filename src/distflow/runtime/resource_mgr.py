"""Per-device stateful resources (variables, queues, accumulators, readers).

Resources are keyed by (container, name). They outlive steps and sessions'
graphs: a second graph that names the same variable on the same device finds
the same storage. ``cleanup(container)`` drops one container, as
``Session.reset`` does.
"""

from __future__ import annotations

import threading
from typing import Callable

DEFAULT_CONTAINER = "localhost"


class ResourceMgr:
    def __init__(self, device_name: str = ""):
        self.device_name = device_name
        self._lock = threading.Lock()
        self._containers: dict[str, dict[str, object]] = {}

    def lookup_or_create(self, container: str, name: str, create: Callable[[], object]):
        """The resource named ``name`` in ``container``, created by ``create()`` if absent."""
        container = container or DEFAULT_CONTAINER
        resources = self._containers.get(container)
        if resources is not None:
            found = resources.get(name)
            if found is not None:
                return found
        with self._lock:
            resources = self._containers.setdefault(container, {})
            found = resources.get(name)
            if found is None:
                found = resources[name] = create()
            return found

    def lookup(self, container: str, name: str):
        """The resource, or None."""
        return self._containers.get(container or DEFAULT_CONTAINER, {}).get(name)

    def cleanup(self, container: str) -> None:
        with self._lock:
            self._containers.pop(container or DEFAULT_CONTAINER, None)

    def clear(self) -> None:
        with self._lock:
            self._containers.clear()

    def containers(self) -> list[str]:
        return sorted(self._containers)
