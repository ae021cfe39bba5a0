"""Device names: ``/job:worker/replica:0/task:2/device:GPU:1`` and their short forms."""

from __future__ import annotations


class DeviceSpec:
    """A (possibly partial) device name, as in TensorFlow 1.x.

    Five optional fields: ``job`` (str), ``replica`` (int), ``task`` (int),
    ``device_type`` (str, e.g. "CPU") and ``device_index`` (int, None meaning any).
    """

    __slots__ = ("job", "replica", "task", "device_type", "device_index")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self.job = job or None
        self.replica = None if replica is None else int(replica)
        self.task = None if task is None else int(task)
        self.device_type = (device_type.upper() if device_type and device_type.upper() in ("CPU", "GPU")
                            else device_type) or None
        self.device_index = None if device_index is None else int(device_index)

    @classmethod
    def from_string(cls, spec: str | None) -> "DeviceSpec":
        """Parses a device string (see the module docstring for the accepted forms).

        Raises:
          ValueError: two device types, an unknown field, or a non-integer index.
        """
        out = cls()
        if not spec:
            return out
        if not isinstance(spec, str):
            raise TypeError(f"A device string must be a str, got {type(spec).__name__}: {spec!r}")
        for part in spec.split("/"):
            fields = part.split(":")
            key, n = fields[0], len(fields)
            if n == 2 and key == "job":
                out.job = fields[1] or None
            elif n == 2 and key in ("replica", "task"):
                setattr(out, key, _index(fields[1], part, spec))
            elif (n in (1, 2) and key.upper() in ("CPU", "GPU")) or (n == 3 and key == "device"):
                if out.device_type is not None:
                    raise ValueError(f"Cannot specify multiple device types: {spec}")
                dev_type, index = (key, fields[1:]) if n < 3 else (fields[1], fields[2:])
                out.device_type = dev_type.upper() if dev_type.upper() in ("CPU", "GPU") else dev_type
                if index and index[0] != "*":
                    out.device_index = _index(index[0], part, spec)
            elif key != "":
                raise ValueError(f"Unknown attribute: '{key}' in '{spec}'")
        return out

    def parse_from_string(self, spec: str | None) -> "DeviceSpec":
        """Sets every field from the device string ``spec`` (TF 1.x's DeviceSpec method); returns self."""
        parsed = DeviceSpec.from_string(spec)
        for field in self.__slots__:
            setattr(self, field, getattr(parsed, field))
        return self

    def to_string(self) -> str:
        out = []
        if self.job is not None:
            out.append(f"/job:{self.job}")
        if self.replica is not None:
            out.append(f"/replica:{self.replica}")
        if self.task is not None:
            out.append(f"/task:{self.task}")
        if self.device_type is not None:
            index = "*" if self.device_index is None else str(self.device_index)
            out.append(f"/device:{self.device_type}:{index}")
        return "".join(out)

    def merge_from(self, dev: "DeviceSpec") -> None:
        """Every field set in ``dev`` overrides this spec's (in place, as TF 1.x)."""
        for field in self.__slots__:
            value = getattr(dev, field)
            if value is not None:
                setattr(self, field, value)

    def make_merged_spec(self, dev: "DeviceSpec") -> "DeviceSpec":
        merged = self.copy()
        merged.merge_from(dev)
        return merged

    def replace(self, **kwargs) -> "DeviceSpec":
        merged = self.copy()
        for key, value in kwargs.items():
            setattr(merged, key, value)
        return merged

    def copy(self) -> "DeviceSpec":
        return DeviceSpec(self.job, self.replica, self.task, self.device_type, self.device_index)

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self.to_string() == other.to_string()

    def __hash__(self):
        return hash(self.to_string())

    def __repr__(self):
        return f"DeviceSpec({self.to_string()!r})"


def _index(text: str, part: str, spec: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"Invalid device string '{spec}': '{part}' needs an integer "
                         f"index (or '*' for a device)") from None


def canonical_name(device) -> str:
    """The canonical string of a device string, DeviceSpec or None."""
    if device is None:
        return ""
    if isinstance(device, DeviceSpec):
        return device.to_string()
    return DeviceSpec.from_string(device).to_string()


def merge_device(spec: "str | DeviceSpec"):
    """A device function that fills the op's unset fields from ``spec``.

    This is what a ``with tf.device("...")`` string scope does: fields the op
    already has (set by inner scopes) win.
    """
    base = spec if isinstance(spec, DeviceSpec) else DeviceSpec.from_string(spec)

    def _merge(current: str) -> str:
        merged = base.copy()
        if current:
            merged.merge_from(DeviceSpec.from_string(current))
        return merged.to_string()

    return _merge
