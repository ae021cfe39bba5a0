"""``tf.contrib.factorization``: k-means clustering (``KMeans``, the graph, and
``KMeansClustering``, its Estimator: estimator/kmeans.py). The matrix factorizations (WALS)
and the Gaussian mixture model are not built."""

from .._namespace import missing
from ..estimator.kmeans import (COSINE_DISTANCE, KMC2_INIT, KMEANS_PLUS_PLUS_INIT, RANDOM_INIT,  # noqa: F401
                                SQUARED_EUCLIDEAN_DISTANCE, KMeans, KMeansClustering)

__getattr__ = missing("tf.contrib.factorization")
