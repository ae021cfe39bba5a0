"""``tf.contrib.distribute`` (TF 1.12-1.13): the strategies before they moved to
``tf.distribute``, with their ``num_gpus`` arguments."""

import collections

from .._namespace import missing
from ..distribute import (CrossDeviceOps, HierarchicalCopyAllReduce, NcclAllReduce, OneDeviceStrategy,  # noqa: F401
                          ReductionToOneDevice)
from ..distribute import MirroredStrategy as _MirroredStrategy
from ..distribute.experimental import (CollectiveAllReduceStrategy as _Collective,  # noqa: F401
                                       ParameterServerStrategy as _ParameterServer)
from ..distribute.strategy import _default_devices


class MirroredStrategy(_MirroredStrategy):
    """``tf.contrib.distribute.MirroredStrategy``: ``num_gpus`` GPUs (simulated ones where the
    host has none), or ``devices``."""

    def __init__(self, devices=None, num_gpus=None, num_gpus_per_worker=None, cross_device_ops=None,
                 auto_shard_dataset=False, cross_tower_ops=None):
        if devices is not None and (num_gpus is not None or num_gpus_per_worker is not None):
            raise ValueError("Must only specify one of `devices` and `num_gpus`.")
        count = num_gpus if num_gpus is not None else num_gpus_per_worker
        if devices is None and count is not None:
            devices = _default_devices(count)
        super().__init__(devices, cross_device_ops if cross_device_ops is not None else cross_tower_ops)


class CollectiveAllReduceStrategy(_Collective):
    def __init__(self, num_gpus_per_worker=0):
        super().__init__(num_gpus_per_worker=num_gpus_per_worker)


class ParameterServerStrategy(_ParameterServer):
    def __init__(self, num_gpus_per_worker=0):
        super().__init__(num_gpus_per_worker=num_gpus_per_worker)


class DistributeConfig(collections.namedtuple("DistributeConfig", ["train_distribute", "eval_distribute",
                                                                    "remote_cluster"])):
    """The strategies of an Estimator's training and evaluation, given to
    ``RunConfig(experimental_distribute=...)``. ``remote_cluster`` (TF's standalone-client
    mode) is not supported: each task runs its program with TF_CONFIG."""

    def __new__(cls, train_distribute=None, eval_distribute=None, remote_cluster=None):
        return super().__new__(cls, train_distribute, eval_distribute, remote_cluster)


__getattr__ = missing("tf.contrib.distribute")
