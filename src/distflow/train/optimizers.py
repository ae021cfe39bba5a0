"""GradientDescent, Momentum, Adam, Adagrad and RMSProp, as in TensorFlow 1.x."""

from __future__ import annotations

import numpy as np

from ..ops import array_ops, control_flow_ops, state_ops, training_ops
from .optimizer import Optimizer


class GradientDescentOptimizer(Optimizer):
    """var -= learning_rate * grad."""

    def __init__(self, learning_rate, use_locking=False, name="GradientDescent"):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate

    def _apply_dense(self, grad, var):
        lr = self._hyper(self._learning_rate, var, "learning_rate")
        return training_ops.apply("ApplyGradientDescent", [var._variable, lr, grad], self._use_locking,
                                  "ApplyGradientDescent").op


class MomentumOptimizer(Optimizer):
    """accum = momentum * accum + grad; var -= lr * accum (or the Nesterov form)."""

    def __init__(self, learning_rate, momentum, use_locking=False, name="Momentum", use_nesterov=False):
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = use_nesterov

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "momentum", self._name)

    def _apply_dense(self, grad, var):
        accum = self.get_slot(var, "momentum")
        return training_ops.apply(
            "ApplyMomentum", [var._variable, accum._variable, self._hyper(self._learning_rate, var, "learning_rate"),
                              grad, self._hyper(self._momentum, var, "momentum")],
            self._use_locking, "ApplyMomentum", use_nesterov=self._use_nesterov).op


class AdamOptimizer(Optimizer):
    """Adam (Kingma and Ba), with TF's epsilon placement and beta-power variables."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False,
                 name="Adam"):
        super().__init__(use_locking, name)
        self._lr, self._beta1, self._beta2, self._epsilon = learning_rate, beta1, beta2, epsilon

    def _powers(self, var_list):
        first = min(var_list, key=lambda v: v.name)
        dtype = first.dtype.base_dtype.as_numpy_dtype
        return (self._non_slot_variable("beta1_power", np.array(self._beta1, dtype), first),
                self._non_slot_variable("beta2_power", np.array(self._beta2, dtype), first))

    def _create_slots(self, var_list):
        self._beta_powers = self._powers(var_list)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name + "_1")

    def _apply_dense(self, grad, var):
        b1p, b2p = self._beta_powers
        return training_ops.apply(
            "ApplyAdam", [var._variable, self.get_slot(var, "m")._variable, self.get_slot(var, "v")._variable,
                          self._hyper(b1p.value(), var, "beta1_power"), self._hyper(b2p.value(), var, "beta2_power"),
                          self._hyper(self._lr, var, "learning_rate"), self._hyper(self._beta1, var, "beta1"),
                          self._hyper(self._beta2, var, "beta2"), self._hyper(self._epsilon, var, "epsilon"), grad],
            self._use_locking, "ApplyAdam").op

    def _finish(self, update_ops, name_scope):
        b1p, b2p = self._beta_powers
        graph = b1p.graph
        with graph.control_dependencies(update_ops), graph.colocate_with(b1p.op):
            u1 = state_ops.assign(b1p, b1p.value() * self._beta1, use_locking=self._use_locking)
            u2 = state_ops.assign(b2p, b2p.value() * self._beta2, use_locking=self._use_locking)
        return control_flow_ops.group(*update_ops, u1, u2, name=name_scope)


class AdagradOptimizer(Optimizer):
    """accum += grad^2; var -= lr * grad / sqrt(accum)."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking=False, name="Adagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: {initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial = initial_accumulator_value

    def _create_slots(self, var_list):
        for v in var_list:
            shape = v.shape.as_list()
            self._slot(v, "accumulator", self._name,
                       lambda var: array_ops.fill(shape, array_ops.constant(self._initial, var.dtype.base_dtype)))

    def _apply_dense(self, grad, var):
        return training_ops.apply(
            "ApplyAdagrad", [var._variable, self.get_slot(var, "accumulator")._variable,
                             self._hyper(self._learning_rate, var, "learning_rate"), grad],
            self._use_locking, "ApplyAdagrad").op


class RMSPropOptimizer(Optimizer):
    """ms = rho ms + (1 - rho) g^2; mom = momentum mom + lr g / sqrt(ms + eps); var -= mom."""

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking=False,
                 centered=False, name="RMSProp"):
        super().__init__(use_locking, name)
        self._lr, self._decay, self._momentum, self._epsilon = learning_rate, decay, momentum, epsilon
        self._centered = centered

    def _create_slots(self, var_list):
        for v in var_list:
            shape = v.shape.as_list()
            self._slot(v, "rms", self._name, lambda var: array_ops.ones(shape, var.dtype.base_dtype))
            if self._centered:
                self._zeros_slot(v, "mg", self._name + "_0")
            self._zeros_slot(v, "momentum", self._name + "_1")

    def _apply_dense(self, grad, var):
        hyper = [self._hyper(self._lr, var, "learning_rate"), self._hyper(self._decay, var, "decay"),
                 self._hyper(self._momentum, var, "momentum"), self._hyper(self._epsilon, var, "epsilon"), grad]
        refs = [var._variable]
        if self._centered:
            refs.append(self.get_slot(var, "mg")._variable)
        refs += [self.get_slot(var, "rms")._variable, self.get_slot(var, "momentum")._variable]
        op_type = "ApplyCenteredRMSProp" if self._centered else "ApplyRMSProp"
        return training_ops.apply(op_type, refs + hyper, self._use_locking, op_type).op
