"""``tf.keras.optimizers``: Keras's optimizers, each a ``tf.train`` optimizer whose learning
rate is a variable (``model.optimizer.lr``), so that callbacks can change it between steps.
``compile`` also takes a ``tf.train`` optimizer itself, as TF 1.x's Keras did.

The defaults are TF 1.15's ``tf.keras`` ones (learning rate 0.01 for SGD, 0.001 for the
others, epsilon 1e-7); programs written for standalone Keras 2.2, whose Adadelta started at
1.0 and Adagrad at 0.01, pass those rates explicitly."""

from __future__ import annotations

import numpy as np

from .. import train
from ..framework import ops
from ..ops.variable_scope import variable_scope
from . import backend as K
from . import schedules
from .object_registry import deserialize_with, lookup


class Optimizer:
    """A Keras optimizer: hyperparameters as Keras names them, applied by a ``tf.train`` optimizer."""

    _defaults: dict = {}

    def __init__(self, learning_rate=None, lr=None, decay=0.0, clipnorm=None, clipvalue=None, name=None, **kwargs):
        rate = learning_rate if learning_rate is not None else lr
        if isinstance(rate, dict):  # (a schedule's config, from a saved model's training config)
            rate = schedules.deserialize(rate)
        # (a schedule gives the rate of each step from ``iterations``; else the rate is a variable)
        self._schedule = rate if isinstance(rate, schedules.LearningRateSchedule) else None
        self._hyper = {**self._defaults, **kwargs}
        self._initial_lr = float(rate if rate is not None and self._schedule is None else self._defaults_lr)
        self.initial_decay = float(decay)
        self.clipnorm, self.clipvalue = clipnorm, clipvalue
        self._name = name or type(self).__name__
        self._lr = None
        self.iterations = None
        self._graph = None
        self._applied: list = []  # (tf.train optimizer, var_list) of each training step built

    _defaults_lr = 0.01

    def _variables(self):
        graph = ops.get_default_graph()
        if self._lr is None or self._graph is not graph:
            with ops.name_scope(None), variable_scope(self._name):
                from .. import Variable  # noqa: PLC0415
                self._lr = Variable(self._initial_lr, name="learning_rate", trainable=False, dtype="float32")
                self.iterations = Variable(0, name="iterations", trainable=False, dtype="int64")
            self._graph = graph
        return self._lr

    @property
    def lr(self):
        """The learning rate: its variable, or the schedule the optimizer was given."""
        return self._schedule if self._schedule is not None else self._variables()

    learning_rate = lr

    def _make(self, rate):
        raise NotImplementedError

    def minimize(self, loss, var_list):
        """The op that takes one step on ``loss`` over ``var_list`` (and counts ``iterations``)."""
        from .. import assign_add, cast, clip_by_norm, clip_by_value, control_dependencies, group  # noqa: PLC0415
        rate = self._variables()
        if self._schedule is not None:
            rate = self._schedule(self.iterations)
        if self.initial_decay:
            rate = rate / (1.0 + self.initial_decay * cast(self.iterations, "float32"))
        optimizer = self._make(rate)
        # (each gradient on its forward op's device, as Keras's K.gradients has it: a model
        # replicated on several devices computes each replica's backward pass where it ran)
        pairs = optimizer.compute_gradients(loss, var_list=var_list, colocate_gradients_with_ops=True)
        self._applied.append((optimizer, [v for g, v in pairs if g is not None]))
        if self.clipnorm is not None:
            pairs = [(clip_by_norm(g, self.clipnorm) if g is not None else g, v) for g, v in pairs]
        if self.clipvalue is not None:
            pairs = [(clip_by_value(g, -self.clipvalue, self.clipvalue) if g is not None else g, v) for g, v in pairs]
        apply = optimizer.apply_gradients([(g, v) for g, v in pairs if g is not None])
        with control_dependencies([apply]):
            return group(apply, assign_add(self.iterations, 1))

    def get_gradients(self, loss, params) -> list:
        """The gradients of ``loss`` with respect to ``params``, clipped as ``clipnorm`` and
        ``clipvalue`` say (Keras's custom training loops take them to apply themselves)."""
        from .. import clip_by_norm, clip_by_value, gradients  # noqa: PLC0415
        grads = gradients(loss, list(params))
        missing = [p.name for p, g in zip(params, grads) if g is None]
        if missing:
            raise ValueError(f"An operation has `None` for gradient: {missing} do not affect the loss. Please make "
                             "sure that all of your ops have a gradient defined (i.e. are differentiable).")
        if self.clipnorm is not None:
            grads = [clip_by_norm(g, self.clipnorm) for g in grads]
        if self.clipvalue is not None:
            grads = [clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
        return grads

    def get_updates(self, loss, params) -> list:
        """The update ops of one step on ``loss`` over ``params`` (for ``K.function(...,
        updates=...)``, Keras's custom training loops): the step, with ``iterations`` counted."""
        return [self.minimize(loss, list(params))]

    def get_config(self) -> dict:
        rate = schedules.serialize(self._schedule) if self._schedule is not None else self._initial_lr
        return {"learning_rate": rate, "decay": self.initial_decay, **self._hyper}

    def _state_slots(self) -> list:
        """The (tf.train) slots that hold its state, in the order TF 1.15's Keras lists them."""
        return []

    @property
    def weights(self) -> list:
        """Its state in TF 1.15's Keras order, as ``model.save`` writes it: ``iterations``, then
        each slot (Adam's ``m``, then ``v``) of every trained variable in the model's order; so
        a file's ``optimizer_weights`` pass between distflow and TensorFlow. Empty until a
        training step is built (``fit``, ``train_on_batch``, ``load_model``)."""
        if self.iterations is None or not self._applied:
            return []
        out, seen = [self.iterations], set()
        for slot in self._state_slots():
            for applier, var_list in self._applied:
                for var in var_list:
                    value = applier.get_slot(var, slot)
                    if value is not None and id(value) not in seen:
                        seen.add(id(value))
                        out.append(value)
        return out

    def get_weights(self) -> list:
        return K.batch_get_value(self.weights)

    def set_weights(self, weights) -> None:
        """Sets its state from a ``get_weights`` list (of a model of the same architecture,
        trained by the same optimizer, in distflow or TensorFlow)."""
        params = self.weights
        if len(params) != len(weights):
            raise ValueError(f"Length of the specified weight list ({len(weights)}) does not match the number of "
                             f"weights of the optimizer ({len(params)})")
        for var, value in zip(params, weights):
            if tuple(var.shape.as_list()) != np.shape(value):
                raise ValueError(f"Optimizer weight shape {tuple(var.shape.as_list())} of {var.name} is not "
                                 f"compatible with the provided weight shape {np.shape(value)}")
        K.batch_set_value(list(zip(params, weights)) + self._derived_state(int(np.asarray(weights[0]))))

    def _derived_state(self, iterations: int) -> list:
        """(variable, value) of state that tf.train keeps and Keras computes from ``iterations``."""
        return []

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class SGD(Optimizer):
    _defaults = {"momentum": 0.0, "nesterov": False}
    _defaults_lr = 0.01

    def _state_slots(self):
        return ["momentum"] if self._hyper["momentum"] else []

    def _make(self, rate):
        if self._hyper["momentum"]:
            return train.MomentumOptimizer(rate, self._hyper["momentum"], use_nesterov=self._hyper["nesterov"])
        return train.GradientDescentOptimizer(rate)


class Adam(Optimizer):
    _defaults = {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7, "amsgrad": False}
    _defaults_lr = 0.001

    def __init__(self, learning_rate=None, beta_1=0.9, beta_2=0.999, epsilon=None, amsgrad=False, **kwargs):
        super().__init__(learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon or K.epsilon(),
                         amsgrad=amsgrad, **kwargs)
        if amsgrad:
            raise NotImplementedError("Adam(amsgrad=True) is not supported")

    def _make(self, rate):
        h = self._hyper
        return train.AdamOptimizer(rate, h["beta_1"], h["beta_2"], h["epsilon"])

    def _state_slots(self):
        return ["m", "v"]

    def _derived_state(self, iterations):
        # tf.train's beta powers are beta ** (steps taken + 1); Keras raises beta to the step.
        pairs = []
        for applier, _ in self._applied:
            b1, b2 = applier._beta_powers
            pairs += [(b1, self._hyper["beta_1"] ** (iterations + 1)), (b2, self._hyper["beta_2"] ** (iterations + 1))]
        return pairs


class RMSprop(Optimizer):
    _defaults = {"rho": 0.9, "momentum": 0.0, "epsilon": 1e-7, "centered": False}
    _defaults_lr = 0.001

    def __init__(self, learning_rate=None, rho=0.9, momentum=0.0, epsilon=None, centered=False, **kwargs):
        super().__init__(learning_rate, rho=rho, momentum=momentum, epsilon=epsilon or K.epsilon(),
                         centered=centered, **kwargs)

    def _state_slots(self):
        return ["rms"] + (["momentum"] if self._hyper["momentum"] else []) + (["mg"] if self._hyper["centered"] else [])

    def _make(self, rate):
        h = self._hyper
        return _ZeroStartRMSProp(rate, decay=h["rho"], momentum=h["momentum"], epsilon=h["epsilon"],
                                 centered=h["centered"])


class _ZeroStartRMSProp(train.RMSPropOptimizer):
    """tf.train's RMSProp with its mean square starting at zero, as Keras's does (tf.train's
    starts at one, which makes the first hundred steps far shorter). Without momentum,
    Keras's update adds epsilon outside the root, var -= lr g / (sqrt(ms) + eps), where
    tf.train's kernel (which Keras uses with momentum) adds it inside."""

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "rms", self._name)
            if self._centered:
                self._zeros_slot(v, "mg", self._name + "_0")
            self._zeros_slot(v, "momentum", self._name + "_1")

    def _keras_step(self, var, grad, rows=None):
        from .. import cast, control_dependencies, convert_to_tensor, gather, scatter_add, scatter_sub, sqrt, \
            square  # noqa: PLC0415
        from ..ops import state_ops  # noqa: PLC0415
        dtype = var.dtype.base_dtype
        lr, rho, eps = (cast(convert_to_tensor(h), dtype) for h in (self._lr, self._decay, self._epsilon))
        rms = self.get_slot(var, "rms")
        # (the mean square decays everywhere; the gradient's rows add their squares, as Keras's)
        decayed = state_ops.assign(rms, rms * rho, use_locking=self._use_locking)
        with control_dependencies([decayed]):
            if rows is None:
                rms_t = state_ops.assign_add(rms, square(grad) * (1.0 - rho), use_locking=self._use_locking)
            else:
                rms_t = gather(scatter_add(rms, rows, square(grad) * (1.0 - rho), use_locking=self._use_locking),
                               rows)
        denominator = rms_t
        updates = []
        if self._centered:
            mg = self.get_slot(var, "mg")
            mg_decayed = state_ops.assign(mg, mg * rho, use_locking=self._use_locking)
            with control_dependencies([mg_decayed]):
                if rows is None:
                    mg_t = state_ops.assign_add(mg, grad * (1.0 - rho), use_locking=self._use_locking)
                else:
                    mg_t = gather(scatter_add(mg, rows, grad * (1.0 - rho), use_locking=self._use_locking), rows)
            denominator = rms_t - square(mg_t)
        step = lr * grad / (sqrt(denominator) + eps)
        if rows is None:
            updates.append(state_ops.assign_sub(var, step, use_locking=self._use_locking))
        else:
            updates.append(scatter_sub(var, rows, step, use_locking=self._use_locking))
        return updates[0].op

    def _apply_dense(self, grad, var):
        if self._momentum:
            return super()._apply_dense(grad, var)
        return self._keras_step(var, grad)

    def _apply_sparse(self, grad, var):
        if self._momentum:
            return super()._apply_sparse(grad, var)
        from ..ops.indexed_slices import deduplicated  # noqa: PLC0415
        rows, values = deduplicated(grad)
        return self._keras_step(var, values, rows)


class Adagrad(Optimizer):
    _defaults = {"initial_accumulator_value": 0.1, "epsilon": 1e-7}
    _defaults_lr = 0.001

    def _make(self, rate):
        return train.AdagradOptimizer(rate, self._hyper["initial_accumulator_value"])

    def _state_slots(self):
        return ["accumulator"]


class Adadelta(Optimizer):
    _defaults = {"rho": 0.95, "epsilon": 1e-7}
    _defaults_lr = 0.001

    def _make(self, rate):
        return train.AdadeltaOptimizer(rate, self._hyper["rho"], self._hyper["epsilon"])

    def _state_slots(self):
        return ["accum", "accum_update"]  # (Keras's accum_grad and accum_var)


class Ftrl(Optimizer):
    """Follow-the-regularized-leader (tf.train's FtrlOptimizer, with its shrinkage)."""
    _defaults = {"learning_rate_power": -0.5, "initial_accumulator_value": 0.1, "l1_regularization_strength": 0.0,
                 "l2_regularization_strength": 0.0, "l2_shrinkage_regularization_strength": 0.0}
    _defaults_lr = 0.001

    def _make(self, rate):
        h = self._hyper
        return train.FtrlOptimizer(rate, learning_rate_power=h["learning_rate_power"],
                                   initial_accumulator_value=h["initial_accumulator_value"],
                                   l1_regularization_strength=h["l1_regularization_strength"],
                                   l2_regularization_strength=h["l2_regularization_strength"],
                                   l2_shrinkage_regularization_strength=h["l2_shrinkage_regularization_strength"])

    def _state_slots(self):
        return ["accum", "linear"]


def _as(value, var):
    """A hyper-parameter (a number, tensor or variable) as a tensor of ``var``'s dtype."""
    from .. import cast, convert_to_tensor  # noqa: PLC0415
    return cast(convert_to_tensor(value), var.dtype.base_dtype)


class _StepOptimizer(train.Optimizer):
    """A tf.train optimizer written with graph ops, for Keras's updates that no tf.train
    kernel makes; ``step`` is the Keras optimizer's ``iterations`` + 1, the step being taken."""

    def __init__(self, rate, iterations, hyper, name):
        super().__init__(False, name)
        self._lr, self._iterations, self._h = rate, iterations, hyper

    def _step(self):
        from .. import cast  # noqa: PLC0415
        return cast(self._iterations, "float32") + 1.0

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name + "_1")

    def _apply_dense(self, grad, var):
        return self._update(var, grad)

    def _apply_sparse(self, grad, var):
        from ..ops.indexed_slices import deduplicated  # noqa: PLC0415
        rows, values = deduplicated(grad)
        return self._update(var, values, rows)

    def _slots_rows(self, var, rows):
        from .. import gather  # noqa: PLC0415
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        if rows is None:
            return m, v, m.value(), v.value()
        return m, v, gather(m, rows), gather(v, rows)

    @staticmethod
    def _write(slot, rows, value):
        from .. import scatter_update  # noqa: PLC0415
        from ..ops import state_ops  # noqa: PLC0415
        return state_ops.assign(slot, value) if rows is None else scatter_update(slot, rows, value)

    @staticmethod
    def _move(var, rows, delta):
        """var += delta (on ``rows``)."""
        from .. import scatter_add  # noqa: PLC0415
        from ..ops import state_ops  # noqa: PLC0415
        return (state_ops.assign_add(var, delta) if rows is None else scatter_add(var, rows, delta)).op


class _AdamaxUpdates(_StepOptimizer):
    """Adam with the infinity norm (Kingma and Ba, section 7): m = b1 m + (1 - b1) g,
    v = max(b2 v, |g|), var -= lr / (1 - b1^t) m / (v + eps)."""

    def _update(self, var, grad, rows=None):
        from .. import abs as abs_, control_dependencies, maximum, pow as pow_  # noqa: PLC0415
        b1, b2, eps, lr = (_as(x, var) for x in (self._h["beta_1"], self._h["beta_2"], self._h["epsilon"], self._lr))
        m, v, m_old, v_old = self._slots_rows(var, rows)
        m_new = m_old * b1 + grad * (1.0 - b1)
        v_new = maximum(v_old * b2, abs_(grad))
        writes = [self._write(m, rows, m_new), self._write(v, rows, v_new)]
        with control_dependencies(writes):
            power = pow_(b1, _as(self._step(), var))
            return self._move(var, rows, -lr / (1.0 - power) * (m_new / (v_new + eps)))


class _NadamUpdates(_StepOptimizer):
    """Adam with Nesterov momentum (Dozat 2016), TF's Keras schedule: the momentum at step t,
    b1 (1 - 0.5 * 0.96^(0.004 t)), multiplied into a running product kept between steps."""

    def __init__(self, rate, iterations, hyper, name, cache):
        super().__init__(rate, iterations, hyper, name)
        self._cache = cache

    def _prepare(self):
        from .. import pow as pow_  # noqa: PLC0415
        from ..ops import state_ops  # noqa: PLC0415
        b1 = self._h["beta_1"]
        t = self._step()
        self._m_t = b1 * (1.0 - 0.5 * pow_(0.96, 0.004 * t))
        self._m_t_next = b1 * (1.0 - 0.5 * pow_(0.96, 0.004 * (t + 1.0)))
        # (the product of the momenta so far: written once a step, before any variable's update)
        self._schedule = state_ops.assign(self._cache, self._cache * self._m_t)

    def _update(self, var, grad, rows=None):
        from .. import control_dependencies, pow as pow_, sqrt  # noqa: PLC0415
        b2, eps, lr = (_as(x, var) for x in (self._h["beta_2"], self._h["epsilon"], self._lr))
        b1 = _as(self._h["beta_1"], var)
        schedule, m_t, m_t_next = (_as(x, var) for x in (self._schedule, self._m_t, self._m_t_next))
        g_prime = grad / (1.0 - schedule)
        if rows is None:
            m, v, m_old, v_old = self._slots_rows(var, rows)
            m_new = b1 * m_old + (1.0 - b1) * grad
            v_new = b2 * v_old + (1.0 - b2) * grad * grad
            writes = [self._write(m, rows, m_new), self._write(v, rows, v_new)]
        else:  # (TF's Keras decays every row's moments, then adds the gradient's rows)
            m_new, m_write = self._decay_then_add(self.get_slot(var, "m"), rows, b1, (1.0 - b1) * grad)
            v_new, v_write = self._decay_then_add(self.get_slot(var, "v"), rows, b2, (1.0 - b2) * grad * grad)
            writes = [m_write, v_write]
        m_prime = m_new / (1.0 - schedule * m_t_next)
        v_prime = v_new / (1.0 - pow_(b2, _as(self._step(), var)))
        m_bar = (1.0 - m_t) * g_prime + m_t_next * m_prime
        with control_dependencies(writes):
            return self._move(var, rows, -lr * m_bar / (sqrt(v_prime) + eps))

    @staticmethod
    def _decay_then_add(slot, rows, decay, added):
        """slot *= decay everywhere, then slot[rows] += added: (the new rows, the write)."""
        from .. import control_dependencies, gather, scatter_add  # noqa: PLC0415
        from ..ops import state_ops  # noqa: PLC0415
        decayed = state_ops.assign(slot, slot * decay)
        with control_dependencies([decayed]):
            written = scatter_add(slot, rows, added)
        return gather(written, rows), written


class Adamax(Optimizer):
    _defaults = {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7}
    _defaults_lr = 0.001

    def __init__(self, learning_rate=None, beta_1=0.9, beta_2=0.999, epsilon=None, **kwargs):
        super().__init__(learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon or K.epsilon(), **kwargs)

    def _make(self, rate):
        return _AdamaxUpdates(rate, self.iterations, self._hyper, "Adamax")

    def _state_slots(self):
        return ["m", "v"]


class Nadam(Optimizer):
    _defaults = {"beta_1": 0.9, "beta_2": 0.999, "epsilon": 1e-7}
    _defaults_lr = 0.001

    def __init__(self, learning_rate=None, beta_1=0.9, beta_2=0.999, epsilon=None, **kwargs):
        super().__init__(learning_rate, beta_1=beta_1, beta_2=beta_2, epsilon=epsilon or K.epsilon(), **kwargs)
        self._cache = None

    def _make(self, rate):
        from .. import Variable  # noqa: PLC0415
        if self._cache is None or self._cache.graph is not ops.get_default_graph():
            with ops.name_scope(None), variable_scope(self._name):
                self._cache = Variable(1.0, name="momentum_cache", trainable=False, dtype="float32")
        return _NadamUpdates(rate, self.iterations, self._hyper, "Nadam", self._cache)

    def _state_slots(self):
        return ["m", "v"]


class TFOptimizer(Optimizer):
    """A ``tf.train`` optimizer as given to ``compile``. Its state is not saved with the model
    (``weights`` is empty), as in TF 1.x."""

    def __init__(self, optimizer):
        super().__init__(getattr(optimizer, "_learning_rate", 0.0) if isinstance(
            getattr(optimizer, "_learning_rate", None), float) else 0.0)
        self.optimizer = optimizer

    def minimize(self, loss, var_list):
        from .. import assign_add, control_dependencies, group  # noqa: PLC0415
        self._variables()
        apply = self.optimizer.minimize(loss, var_list=var_list, colocate_gradients_with_ops=True)
        with control_dependencies([apply]):
            return group(apply, assign_add(self.iterations, 1))


sgd, adam, rmsprop, adagrad, adadelta, adamax, nadam = SGD, Adam, RMSprop, Adagrad, Adadelta, Adamax, Nadam
_BY_NAME = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop, "adagrad": Adagrad, "adadelta": Adadelta, "adamax": Adamax,
            "nadam": Nadam, "ftrl": Ftrl}


def get(identifier) -> Optimizer:
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, train.Optimizer):
        return TFOptimizer(identifier)
    if isinstance(identifier, str):
        key = identifier.lower()
        if key not in _BY_NAME:
            raise ValueError(f"Unknown optimizer: {identifier} (one of {sorted(_BY_NAME)})")
        return _BY_NAME[key]()
    if isinstance(identifier, dict):
        return deserialize(identifier)
    raise ValueError(f"Could not interpret optimizer identifier: {identifier!r}")


def serialize(optimizer) -> dict:
    """``{"class_name", "config"}``, as a model's training config holds its optimizer."""
    return {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}


def deserialize(config, custom_objects=None):
    """The optimizer ``serialize`` described (``custom_objects``: classes by name)."""
    return deserialize_with(lambda c: lookup(_BY_NAME, c["class_name"].lower(), "optimizer").from_config(
        c.get("config", {})), config, custom_objects, "optimizer")
