"""The base of the distributions: shapes, sampling shape, and the methods each derives
from the few a family defines; and the registry of KL divergences."""

from __future__ import annotations

from .. import (broadcast_static_shape, concat, convert_to_tensor, exp, name_scope, reshape, shape,
                sqrt)
from ..framework.tensor_shape import TensorShape


class ReparameterizationType:
    """Whether a sample is a differentiable function of the parameters (FULLY_REPARAMETERIZED)
    or not."""

    def __init__(self, rep_type: str):
        self._rep_type = rep_type

    def __repr__(self):
        return f"<Reparameterization Type: {self._rep_type}>"


FULLY_REPARAMETERIZED = ReparameterizationType("FULLY_REPARAMETERIZED")
NOT_REPARAMETERIZED = ReparameterizationType("NOT_REPARAMETERIZED")


class Distribution:
    """A batch of distributions (``batch_shape``) over events of ``event_shape``."""

    def __init__(self, dtype, reparameterization_type, validate_args, allow_nan_stats, parameters=None,
                 graph_parents=None, name=None):
        self._dtype = dtype
        self._reparameterization_type = reparameterization_type
        self._validate_args = validate_args
        self._allow_nan_stats = allow_nan_stats
        self._parameters = dict(parameters or {})
        self._graph_parents = list(graph_parents or [])
        self._name = name or type(self).__name__

    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._name)
    reparameterization_type = property(lambda self: self._reparameterization_type)
    validate_args = property(lambda self: self._validate_args)
    allow_nan_stats = property(lambda self: self._allow_nan_stats)

    @property
    def parameters(self) -> dict:
        return dict(self._parameters)

    # -- shapes -------------------------------------------------------------------------
    def _params(self) -> list:
        """The parameter tensors whose broadcast shape is the batch shape (and event, if any)."""
        raise NotImplementedError

    def _event_ndims(self) -> int:
        return 0

    @property
    def batch_shape(self) -> TensorShape:
        full = TensorShape([])
        for p in self._params():
            full = broadcast_static_shape(full, p.shape)
        n = self._event_ndims()
        return full[:full.ndims - n] if n and full.ndims is not None else full

    @property
    def event_shape(self) -> TensorShape:
        n = self._event_ndims()
        if not n:
            return TensorShape([])
        return self._params()[0].shape[-n:]

    def batch_shape_tensor(self, name="batch_shape_tensor"):
        with name_scope(self.name), name_scope(name):
            total = self._param_sum()
            n = self._event_ndims()
            return shape(total)[:-n] if n else shape(total)

    def event_shape_tensor(self, name="event_shape_tensor"):
        n = self._event_ndims()
        return shape(self._params()[0])[-n:] if n else convert_to_tensor([], dtype="int32")

    def _param_sum(self):
        """A tensor of the parameters' broadcast shape (their sum times zero)."""
        params = self._params()
        total = params[0] * 0
        for p in params[1:]:
            total = total + p * 0
        return total

    def is_scalar_batch(self, name="is_scalar_batch"):
        return self.batch_shape.ndims == 0

    def is_scalar_event(self, name="is_scalar_event"):
        return self._event_ndims() == 0

    # -- what the families give ---------------------------------------------------------
    def sample(self, sample_shape=(), seed=None, name="sample"):
        """Draws of ``sample_shape`` + batch_shape + event_shape."""
        with name_scope(self.name), name_scope(name):
            dims = convert_to_tensor(sample_shape, dtype="int32")
            n = reshape(dims, [-1])
            return self._sample(n, seed)

    def log_prob(self, value, name="log_prob"):
        with name_scope(self.name), name_scope(name):
            return self._log_prob(convert_to_tensor(value, dtype=self._value_dtype()))

    def prob(self, value, name="prob"):
        with name_scope(self.name), name_scope(name):
            return exp(self._log_prob(convert_to_tensor(value, dtype=self._value_dtype())))

    def cdf(self, value, name="cdf"):
        with name_scope(self.name), name_scope(name):
            return self._cdf(convert_to_tensor(value, dtype=self._value_dtype()))

    def log_cdf(self, value, name="log_cdf"):
        from .. import log  # noqa: PLC0415

        return log(self.cdf(value, name))

    def quantile(self, value, name="quantile"):
        with name_scope(self.name), name_scope(name):
            return self._quantile(convert_to_tensor(value, dtype=self._dtype))

    def survival_function(self, value, name="survival_function"):
        return 1.0 - self.cdf(value, name)

    def entropy(self, name="entropy"):
        with name_scope(self.name), name_scope(name):
            return self._entropy()

    def mean(self, name="mean"):
        with name_scope(self.name), name_scope(name):
            return self._mean()

    def mode(self, name="mode"):
        with name_scope(self.name), name_scope(name):
            return self._mode()

    def variance(self, name="variance"):
        with name_scope(self.name), name_scope(name):
            return self._variance()

    def covariance(self, name="covariance"):
        """The covariance of the event's components ([..., k, k]); the variance of a scalar event."""
        with name_scope(self.name), name_scope(name):
            return self._covariance() if self._event_ndims() else self._variance()

    def _covariance(self):
        self._not_defined("covariance")

    def stddev(self, name="stddev"):
        with name_scope(self.name), name_scope(name):
            return sqrt(self._variance())

    def kl_divergence(self, other, name="kl_divergence"):
        return kl_divergence(self, other, name=name)

    def cross_entropy(self, other, name="cross_entropy"):
        with name_scope(self.name), name_scope(name):
            return self.entropy() + kl_divergence(self, other)

    def _value_dtype(self):
        return self._dtype

    def _not_defined(self, what: str):
        raise NotImplementedError(f"{type(self).__name__} has no {what}")

    def _cdf(self, value):
        self._not_defined("cdf")

    def _mode(self):
        self._not_defined("mode")

    def _quantile(self, value):
        self._not_defined("quantile")

    def __repr__(self):
        return (f"<tf.distributions.{type(self).__name__} '{self.name}' batch_shape={self.batch_shape} "
                f"event_shape={self.event_shape} dtype={self.dtype.name}>")


def _sample_shape(n, batch):
    """The shape of ``n`` (a sample shape) followed by ``batch`` (a shape tensor)."""
    return concat([n, batch], 0)


_KL: dict = {}


class RegisterKL:
    """``@RegisterKL(A, B)`` on ``fn(a, b, name=None)``: the KL divergence of an A from a B."""

    def __init__(self, dist_cls_a, dist_cls_b):
        self._key = (dist_cls_a, dist_cls_b)

    def __call__(self, kl_fn):
        if not callable(kl_fn):
            raise TypeError(f"kl_fn must be callable, received: {kl_fn}")
        if self._key in _KL:
            raise ValueError(f"KL({self._key[0].__name__} || {self._key[1].__name__}) has already been registered "
                             f"to: {_KL[self._key]}")
        _KL[self._key] = kl_fn
        return kl_fn


def kl_divergence(distribution_a, distribution_b, allow_nan_stats=True, name=None):
    """KL(a || b), by the function registered for their classes (or their nearest bases)."""
    for cls_a in type(distribution_a).__mro__:
        for cls_b in type(distribution_b).__mro__:
            fn = _KL.get((cls_a, cls_b))
            if fn is not None:
                with name_scope(name or "KullbackLeibler"):
                    return fn(distribution_a, distribution_b, name=name)
    raise NotImplementedError(f"No KLDivergence registered for {type(distribution_a).__name__} and "
                              f"{type(distribution_b).__name__}")
