"""``tf.distributions``: probability distributions as graph ops (TF 1.x's, the ancestor of
TensorFlow Probability): ``Normal``, ``Uniform``, ``Bernoulli``, ``Categorical``,
``Exponential``, ``Laplace``, ``Gamma``, ``Beta`` and ``Dirichlet``, each with ``sample``,
``log_prob``, ``prob``, ``entropy``, ``mean``, ``stddev``, ``variance`` (and ``cdf``,
``mode`` and ``quantile`` where it has them), ``StudentT`` and ``Multinomial``, and
``DirichletMultinomial``, with ``covariance`` for the ones over vectors, and
``kl_divergence`` between two of a kind (``RegisterKL`` adds a pair); ``bijectors``' base
class and ``Identity``.
"""

from .._namespace import missing
from . import bijectors  # noqa: F401
from .distribution import (FULLY_REPARAMETERIZED, NOT_REPARAMETERIZED, Distribution,  # noqa: F401
                           RegisterKL, ReparameterizationType, kl_divergence)
from .families import (Bernoulli, Beta, Categorical, Dirichlet, DirichletMultinomial, Exponential,  # noqa: F401
                       Gamma, Laplace, Multinomial, Normal, StudentT, Uniform)

__getattr__ = missing("tf.distributions")
