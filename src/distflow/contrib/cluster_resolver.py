"""``tf.contrib.cluster_resolver`` (and TF 1.14's ``tf.distribute.cluster_resolver``): where a
TF 1.x program finds its cluster: TF_CONFIG, Slurm, a cluster given (``SimpleClusterResolver``)
or several together (``UnionResolver``); ``TPUClusterResolver`` finds no TPU here. Not the
resolvers that ask cloud services (GCE, Kubernetes): distflow reaches no outside network."""

from __future__ import annotations

from .._namespace import missing
from ..distributed.cluster_resolver import (ClusterResolver, SimpleClusterResolver,  # noqa: F401
                                            SlurmClusterResolver, TFConfigClusterResolver, UnionResolver)
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
