"""Per-device stateful resources (variables, queues, accumulators, readers).

Resources are keyed by (container, name). They outlive steps and sessions'
graphs: a second graph that names the same variable on the same device finds
the same storage. ``cleanup(container)`` drops one container, as
``Session.reset`` does. A resource made without a container is in its device's job's
("localhost" in a process without a server), as in TF: ``Session.reset(target, ["ps"])``
drops the variables that the ps tasks hold.
"""

from __future__ import annotations

import threading
from typing import Callable

DEFAULT_CONTAINER = "localhost"


def _release(resources) -> None:
    """Lets the resources that hold more than memory (an iterator's threads and files) let go of it."""
    for resource in resources:
        release = getattr(resource, "release", None)
        if callable(release):
            release()


class ResourceMgr:
    def __init__(self, device_name: str = ""):
        self.device_name = device_name
        job = next((part[len("job:"):] for part in device_name.split("/") if part.startswith("job:")), "")
        self.default_container = job or DEFAULT_CONTAINER
        self._lock = threading.Lock()
        self._containers: dict[str, dict[str, object]] = {}

    def lookup_or_create(self, container: str, name: str, create: Callable[[], object]):
        """The resource named ``name`` in ``container``, created by ``create()`` if absent."""
        container = container or self.default_container
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
        return self._containers.get(container or self.default_container, {}).get(name)

    def cleanup(self, container: str) -> None:
        with self._lock:
            dropped = self._containers.pop(container or self.default_container, {})
        _release(dropped.values())

    def clear(self) -> None:
        with self._lock:
            dropped = [r for resources in self._containers.values() for r in resources.values()]
            self._containers.clear()
        _release(dropped)

    def containers(self) -> list[str]:
        return sorted(self._containers)
