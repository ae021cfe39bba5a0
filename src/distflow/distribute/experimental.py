"""``tf.distribute.experimental``: the multi-worker strategies (all-reduce, and ps), and
central storage (variables on one device of the process)."""

from .._namespace import missing
from .strategy import (CentralStorageStrategy, CollectiveAllReduceStrategy, MultiWorkerMirroredStrategy,  # noqa: F401
                       ParameterServerStrategy)


class CollectiveCommunication:
    """How MultiWorkerMirroredStrategy's all-reduces travel: distflow's ring over the data
    ports whichever is asked."""

    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


__getattr__ = missing("tf.distribute.experimental")
