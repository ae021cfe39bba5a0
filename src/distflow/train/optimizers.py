"""GradientDescent, Momentum, Adam, Adagrad, RMSProp, Adadelta, Ftrl and the proximal optimizers,
as in TensorFlow 1.x."""

from __future__ import annotations

import numpy as np

from ..framework import dtypes, ops
from ..ops import array_ops, control_flow_ops, math_ops, scatter_ops, state_ops, training_ops
from ..ops.indexed_slices import deduplicated
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

    def _apply_sparse(self, grad, var):
        lr = self._hyper(self._learning_rate, var, "learning_rate")
        return scatter_ops.scatter_sub(var, grad.indices, grad.values * lr, use_locking=self._use_locking).op


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

    def _apply_sparse(self, grad, var):
        rows, values = deduplicated(grad)
        return training_ops.apply(
            "SparseApplyMomentum", [var._variable, self.get_slot(var, "momentum")._variable,
                                    self._hyper(self._learning_rate, var, "learning_rate"), values, rows,
                                    self._hyper(self._momentum, var, "momentum")],
            self._use_locking, "SparseApplyMomentum", use_nesterov=self._use_nesterov).op


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

    def _get_beta_accumulators(self):
        """(beta1_power, beta2_power): the variables Adam keeps beta1^t and beta2^t in (TF's)."""
        return self._beta_powers

    _use_nesterov = False  # (Nadam's step: beta1 m + (1 - beta1) g)

    def _apply_dense(self, grad, var):
        b1p, b2p = self._beta_powers
        return training_ops.apply(
            "ApplyAdam", [var._variable, self.get_slot(var, "m")._variable, self.get_slot(var, "v")._variable,
                          self._hyper(b1p.value(), var, "beta1_power"), self._hyper(b2p.value(), var, "beta2_power"),
                          self._hyper(self._lr, var, "learning_rate"), self._hyper(self._beta1, var, "beta1"),
                          self._hyper(self._beta2, var, "beta2"), self._hyper(self._epsilon, var, "epsilon"), grad],
            self._use_locking, "ApplyAdam", **({"use_nesterov": True} if self._use_nesterov else {})).op

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
            self._constant_slot(v, "accumulator", self._name, self._initial)

    def _apply_dense(self, grad, var):
        return training_ops.apply(
            "ApplyAdagrad", [var._variable, self.get_slot(var, "accumulator")._variable,
                             self._hyper(self._learning_rate, var, "learning_rate"), grad],
            self._use_locking, "ApplyAdagrad").op

    def _apply_sparse(self, grad, var):
        rows, values = deduplicated(grad)
        return training_ops.apply(
            "SparseApplyAdagrad", [var._variable, self.get_slot(var, "accumulator")._variable,
                                   self._hyper(self._learning_rate, var, "learning_rate"), values, rows],
            self._use_locking, "SparseApplyAdagrad").op


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

    def _apply_sparse(self, grad, var):
        """Updates the gradient's rows only (centered too, as TF's SparseApplyCenteredRMSProp)."""
        rows, values = deduplicated(grad)
        refs = [var._variable]
        if self._centered:
            refs.append(self.get_slot(var, "mg")._variable)
        refs += [self.get_slot(var, "rms")._variable, self.get_slot(var, "momentum")._variable]
        hyper = [self._hyper(self._lr, var, "learning_rate"), self._hyper(self._decay, var, "decay"),
                 self._hyper(self._momentum, var, "momentum"), self._hyper(self._epsilon, var, "epsilon")]
        op_type = "SparseApplyCenteredRMSProp" if self._centered else "SparseApplyRMSProp"
        return training_ops.apply(op_type, refs + hyper + [values, rows], self._use_locking, op_type).op


class _RowUpdates(Optimizer):
    """An optimizer whose one ``_update(var, grad, rows=None)`` makes its dense op, or with
    ``rows`` its SparseApply op: a sparse gradient (duplicate rows summed) moves only those
    rows and their slots, as TF's sparse kernels do."""

    def _apply_dense(self, grad, var):
        return self._update(var, grad)

    def _apply_sparse(self, grad, var):
        rows, values = deduplicated(grad)
        return self._update(var, values, rows)

    def _update(self, var, grad, rows=None):
        raise NotImplementedError


class AdadeltaOptimizer(_RowUpdates):
    """Adadelta (Zeiler): per-coordinate steps from running averages of squared gradients and updates."""

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking=False, name="Adadelta"):
        super().__init__(use_locking, name)
        self._lr, self._rho, self._epsilon = learning_rate, rho, epsilon

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "accum", self._name)
            self._zeros_slot(v, "accum_update", self._name + "_1")

    def _update(self, var, grad, rows=None):
        op_type = "ApplyAdadelta" if rows is None else "SparseApplyAdadelta"
        return training_ops.apply(
            op_type, [var._variable, self.get_slot(var, "accum")._variable,
                      self.get_slot(var, "accum_update")._variable,
                      self._hyper(self._lr, var, "lr"), self._hyper(self._rho, var, "rho"),
                      self._hyper(self._epsilon, var, "epsilon"), grad] + ([] if rows is None else [rows]),
            self._use_locking, op_type).op


class ProximalGradientDescentOptimizer(_RowUpdates):
    """Gradient descent followed by the L1/L2 proximal step."""

    def __init__(self, learning_rate, l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking=False, name="ProximalGradientDescent"):
        super().__init__(use_locking, name)
        self._lr, self._l1, self._l2 = learning_rate, l1_regularization_strength, l2_regularization_strength

    def _update(self, var, grad, rows=None):
        op_type = "ApplyProximalGradientDescent" if rows is None else "SparseApplyProximalGradientDescent"
        return training_ops.apply(
            op_type, [var._variable, self._hyper(self._lr, var, "learning_rate"), self._hyper(self._l1, var, "l1"),
                      self._hyper(self._l2, var, "l2"), grad] + ([] if rows is None else [rows]),
            self._use_locking, op_type).op


class ProximalAdagradOptimizer(_RowUpdates):
    """Adagrad followed by the L1/L2 proximal step."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, use_locking=False, name="ProximalAdagrad"):
        if initial_accumulator_value <= 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: {initial_accumulator_value}")
        super().__init__(use_locking, name)
        self._lr, self._initial = learning_rate, initial_accumulator_value
        self._l1, self._l2 = l1_regularization_strength, l2_regularization_strength

    def _create_slots(self, var_list):
        for v in var_list:
            self._constant_slot(v, "accumulator", self._name, self._initial)

    def _update(self, var, grad, rows=None):
        op_type = "ApplyProximalAdagrad" if rows is None else "SparseApplyProximalAdagrad"
        return training_ops.apply(
            op_type, [var._variable, self.get_slot(var, "accumulator")._variable,
                      self._hyper(self._lr, var, "learning_rate"), self._hyper(self._l1, var, "l1"),
                      self._hyper(self._l2, var, "l2"), grad] + ([] if rows is None else [rows]),
            self._use_locking, op_type).op


class AdagradDAOptimizer(_RowUpdates):
    """Adagrad dual averaging (Duchi et al. 2011), for sparse linear models with L1 and L2
    regularization: ``global_step`` (an int64 tensor, the training step) scales both."""

    def __init__(self, learning_rate, global_step, initial_gradient_squared_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0, use_locking=False,
                 name="AdagradDA"):
        if initial_gradient_squared_accumulator_value <= 0.0:
            raise ValueError(f"initial_gradient_squared_accumulator_value must be positive: "
                             f"{initial_gradient_squared_accumulator_value}")
        super().__init__(use_locking, name)
        self._lr, self._global_step = learning_rate, global_step
        self._initial = initial_gradient_squared_accumulator_value
        self._l1, self._l2 = l1_regularization_strength, l2_regularization_strength

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "gradient_accumulator", self._name)
            self._constant_slot(v, "gradient_squared_accumulator", self._name + "_1", self._initial)

    def _update(self, var, grad, rows=None):
        op_type = "ApplyAdagradDA" if rows is None else "SparseApplyAdagradDA"
        # (the step being taken: the global step before this update, plus one, as TF's)
        step = math_ops.cast(ops.convert_to_tensor(self._global_step), dtypes.int64) + 1
        inputs = [var._variable, self.get_slot(var, "gradient_accumulator")._variable,
                  self.get_slot(var, "gradient_squared_accumulator")._variable, grad]
        return training_ops.apply(
            op_type, inputs + ([] if rows is None else [rows]) + [
                self._hyper(self._lr, var, "learning_rate"), self._hyper(self._l1, var, "l1"),
                self._hyper(self._l2, var, "l2"), step], self._use_locking, op_type).op


class FtrlOptimizer(_RowUpdates):
    """FTRL-Proximal (McMahan et al.), with TF's learning_rate_power and L2 shrinkage."""

    def __init__(self, learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0, use_locking=False, name="Ftrl",
                 accum_name=None, linear_name=None, l2_shrinkage_regularization_strength=0.0):
        if learning_rate_power > 0.0:
            raise ValueError(f"learning_rate_power ({learning_rate_power}) must be a non-positive number")
        if initial_accumulator_value < 0.0:
            raise ValueError(f"initial_accumulator_value ({initial_accumulator_value}) must be non-negative")
        super().__init__(use_locking, name)
        self._lr, self._lr_power, self._initial = learning_rate, learning_rate_power, initial_accumulator_value
        self._l1, self._l2 = l1_regularization_strength, l2_regularization_strength
        self._l2_shrinkage = l2_shrinkage_regularization_strength
        self._accum_name, self._linear_name = accum_name, linear_name

    def _create_slots(self, var_list):
        for v in var_list:
            self._constant_slot(v, "accum", self._accum_name or self._name, self._initial)
            self._zeros_slot(v, "linear", self._linear_name or self._name + "_1")

    def _update(self, var, grad, rows=None):
        op_type = "ApplyFtrlV2" if rows is None else "SparseApplyFtrlV2"
        return training_ops.apply(
            op_type,
            [var._variable, self.get_slot(var, "accum")._variable, self.get_slot(var, "linear")._variable, grad]
            + ([] if rows is None else [rows])
            + [self._hyper(self._lr, var, "learning_rate"), self._hyper(self._l1, var, "l1"),
               self._hyper(self._l2, var, "l2"), self._hyper(self._l2_shrinkage, var, "l2_shrinkage"),
               self._hyper(self._lr_power, var, "lr_power")], self._use_locking, op_type).op
