"""``tf.distribute.experimental``: the multi-worker strategies (all-reduce, and ps)."""

from .._namespace import missing
from .strategy import CollectiveAllReduceStrategy, MultiWorkerMirroredStrategy, ParameterServerStrategy  # noqa: F401


class CollectiveCommunication:
    """How MultiWorkerMirroredStrategy's all-reduces travel: distflow's ring over the data
    ports whichever is asked."""

    AUTO = "AUTO"
    RING = "RING"
    NCCL = "NCCL"


__getattr__ = missing("tf.distribute.experimental")
