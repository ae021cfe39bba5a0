"""``tf.contrib.cluster_resolver``: where a TF 1.x program finds its cluster (the resolvers of
tf.train's distribution code), and ``TPUClusterResolver``, which finds no TPU here."""

from __future__ import annotations

from .._namespace import missing
from ..distributed.cluster_resolver import (ClusterResolver, SlurmClusterResolver,  # noqa: F401
                                            TFConfigClusterResolver)
from ..framework import errors


class TPUClusterResolver(ClusterResolver):
    """A TPU's cluster: distflow has no TPUs, so making one is an UnimplementedError that says
    how to run the program without (``use_tpu=False``)."""

    def __init__(self, tpu=None, zone=None, project=None, job_name="worker", coordinator_name=None,
                 coordinator_address=None, credentials="default", service=None, discovery_url=None):
        raise errors.UnimplementedError(None, None, f"TPUClusterResolver(tpu={tpu!r}): distflow has no TPUs (they "
                                        "are out of its scope); run the program on CPUs and GPUs without a TPU "
                                        "name (TPUEstimator(use_tpu=False))")


__getattr__ = missing("tf.contrib.cluster_resolver")
