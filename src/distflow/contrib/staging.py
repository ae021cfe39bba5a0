"""``tf.contrib.staging``: the StagingArea of TF 1.x's GPU input pipelines (ops/staging_ops.py)."""

from ..ops.staging_ops import StagingArea  # noqa: F401

from .._namespace import missing  # noqa: E402

__getattr__ = missing("tf.contrib.staging")
