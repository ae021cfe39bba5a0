"""``tf.contrib.tensor_forest``: random forests grown online (``python.tensor_forest``) and the
Estimators over them (``client.random_forest``)."""

from . import client, python  # noqa: F401
