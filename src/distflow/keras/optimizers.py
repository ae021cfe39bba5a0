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


class Optimizer:
    """A Keras optimizer: hyperparameters as Keras names them, applied by a ``tf.train`` optimizer."""

    _defaults: dict = {}

    def __init__(self, learning_rate=None, lr=None, decay=0.0, clipnorm=None, clipvalue=None, name=None, **kwargs):
        rate = learning_rate if learning_rate is not None else lr
        self._hyper = {**self._defaults, **kwargs}
        self._initial_lr = float(rate if rate is not None else self._defaults_lr)
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
        return self._variables()

    learning_rate = lr

    def _make(self, rate):
        raise NotImplementedError

    def minimize(self, loss, var_list):
        """The op that takes one step on ``loss`` over ``var_list`` (and counts ``iterations``)."""
        from .. import assign_add, cast, clip_by_norm, clip_by_value, control_dependencies, group  # noqa: PLC0415
        rate = self._variables()
        if self.initial_decay:
            rate = rate / (1.0 + self.initial_decay * cast(self.iterations, "float32"))
        optimizer = self._make(rate)
        pairs = optimizer.compute_gradients(loss, var_list=var_list)
        self._applied.append((optimizer, [v for g, v in pairs if g is not None]))
        if self.clipnorm is not None:
            pairs = [(clip_by_norm(g, self.clipnorm) if g is not None else g, v) for g, v in pairs]
        if self.clipvalue is not None:
            pairs = [(clip_by_value(g, -self.clipvalue, self.clipvalue) if g is not None else g, v) for g, v in pairs]
        apply = optimizer.apply_gradients([(g, v) for g, v in pairs if g is not None])
        with control_dependencies([apply]):
            return group(apply, assign_add(self.iterations, 1))

    def get_config(self) -> dict:
        return {"learning_rate": self._initial_lr, "decay": self.initial_decay, **self._hyper}

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
        apply = self.optimizer.minimize(loss, var_list=var_list)
        with control_dependencies([apply]):
            return group(apply, assign_add(self.iterations, 1))


sgd, adam, rmsprop, adagrad, adadelta = SGD, Adam, RMSprop, Adagrad, Adadelta
_BY_NAME = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop, "adagrad": Adagrad, "adadelta": Adadelta}


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
        return _BY_NAME[identifier["class_name"].lower()](**identifier.get("config", {}))
    raise ValueError(f"Could not interpret optimizer identifier: {identifier!r}")
