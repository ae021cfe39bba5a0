"""``tf.contrib.opt``: Adam with decoupled weight decay (AdamW, and the decay added to any
optimizer); LazyAdam, whose sparse updates touch only the rows their gradient names; Nadam
(Adam with Nesterov's momentum) and AdaMax; the sign-based AddSign and PowerSign with their
sign decays (``sign_decay``); and the wrappers that clip variables after each update
(VariableClipping), drop gradients computed too many steps ago (DropStaleGradient, for
asynchronous training), skip the update of a variable whose gradient is all zeros
(MultitaskOptimizerWrapper), or keep moving averages of the variables that a checkpoint
can hold in their place (MovingAverageOptimizer); layer-wise adaptive rate scaling (LARS);
and SciPy's optimizers over a graph's loss (ScipyOptimizerInterface, external_optimizer.py).
Elastic averaging SGD for between-graph replication (ElasticAverageOptimizer) is in
elastic_average.py."""

from __future__ import annotations

import math
import types

import numpy as np

from .._namespace import missing
from ..framework import dtypes, ops
from ..ops import array_ops, clip_ops, control_flow_ops, control_flow_v2, init_ops, math_ops, reduction_ops
from ..ops import scatter_ops, slicing_ops, state_ops, training_ops, unary_ops
from ..ops import variable_scope as vs
from ..ops.indexed_slices import IndexedSlices, deduplicated
from ..train import training_util
from ..train.optimizer import Optimizer
from ..train.optimizers import AdamOptimizer, MomentumOptimizer
from .elastic_average import ElasticAverageCustomGetter, ElasticAverageOptimizer  # noqa: F401
from .external_optimizer import ExternalOptimizerInterface, ScipyOptimizerInterface  # noqa: F401


class DecoupledWeightDecayExtension:
    """Mixed in before an optimizer: each variable first decays, ``var -= weight_decay * var``
    (rows named by a sparse gradient only), then takes the optimizer's update (Loshchilov and
    Hutter). ``decay_var_list`` (to ``minimize`` or ``apply_gradients``) limits the decay to
    those variables. The decay is not scaled by the learning rate, as TensorFlow's."""

    def __init__(self, weight_decay, **kwargs):
        self._weight_decay = weight_decay
        self._decay_var_list = None
        super().__init__(**kwargs)

    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=Optimizer.GATE_OP,
                 aggregation_method=None, colocate_gradients_with_ops=False, name=None, grad_loss=None,
                 decay_var_list=None):
        self._decay_var_list = None if decay_var_list is None else {id(v) for v in decay_var_list}
        return super().minimize(loss, global_step, var_list, gate_gradients, aggregation_method,
                                colocate_gradients_with_ops, name, grad_loss)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None, decay_var_list=None):
        if decay_var_list is not None:
            self._decay_var_list = {id(v) for v in decay_var_list}
        return super().apply_gradients(grads_and_vars, global_step, name)

    def _decays(self, var) -> bool:
        return self._decay_var_list is None or id(var) in self._decay_var_list

    def _apply_dense(self, grad, var):
        if not self._decays(var):
            return super()._apply_dense(grad, var)
        decay = self._hyper(self._weight_decay, var, "weight_decay")
        with ops.control_dependencies([state_ops.assign_sub(var, decay * var.value(), use_locking=self._use_locking)]):
            return super()._apply_dense(grad, var)

    def _apply_sparse(self, grad, var):
        if not self._decays(var):
            return super()._apply_sparse(grad, var)
        decay = self._hyper(self._weight_decay, var, "weight_decay")
        rows = grad.indices
        decayed = scatter_ops.scatter_add(var, rows, -decay * slicing_ops.gather(var.value(), rows),
                                          use_locking=self._use_locking)
        with ops.control_dependencies([decayed]):
            return super()._apply_sparse(grad, var)


def extend_with_decoupled_weight_decay(base_optimizer):
    """``base_optimizer`` (a class) with decoupled weight decay: the new class takes
    ``weight_decay`` first, then the base's arguments."""
    class OptimizerWithDecoupledWeightDecay(DecoupledWeightDecayExtension, base_optimizer):
        def __init__(self, weight_decay, *args, **kwargs):
            base_optimizer.__init__(self, *args, **kwargs)
            self._weight_decay, self._decay_var_list = weight_decay, None

    OptimizerWithDecoupledWeightDecay.__name__ = f"{base_optimizer.__name__}WithDecoupledWeightDecay"
    return OptimizerWithDecoupledWeightDecay


class AdamWOptimizer(DecoupledWeightDecayExtension, AdamOptimizer):
    def __init__(self, weight_decay, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False,
                 name="AdamW"):
        super().__init__(weight_decay, learning_rate=learning_rate, beta1=beta1, beta2=beta2, epsilon=epsilon,
                         use_locking=use_locking, name=name)


class MomentumWOptimizer(DecoupledWeightDecayExtension, MomentumOptimizer):
    def __init__(self, weight_decay, learning_rate, momentum, use_locking=False, name="MomentumW",
                 use_nesterov=False):
        super().__init__(weight_decay, learning_rate=learning_rate, momentum=momentum, use_locking=use_locking,
                         name=name, use_nesterov=use_nesterov)


class LazyAdamOptimizer(AdamOptimizer):
    """Adam, except that a sparse gradient (an embedding's) updates only the rows it names:
    their moments and their values; the other rows keep theirs (TensorFlow's LazyAdam)."""

    def _apply_sparse(self, grad, var):
        rows, values = deduplicated(grad)
        b1p, b2p = self._beta_powers
        beta1 = self._hyper(self._beta1, var, "beta1")
        beta2 = self._hyper(self._beta2, var, "beta2")
        epsilon = self._hyper(self._epsilon, var, "epsilon")
        lr = self._hyper(self._lr, var, "learning_rate") * unary_ops.sqrt(
            1.0 - self._hyper(b2p.value(), var, "beta2_power")) / (1.0 - self._hyper(b1p.value(), var, "beta1_power"))
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_rows = beta1 * slicing_ops.gather(m.value(), rows) + (1.0 - beta1) * values
        v_rows = beta2 * slicing_ops.gather(v.value(), rows) + (1.0 - beta2) * math_ops.multiply(values, values)
        m_t = scatter_ops.scatter_update(m, rows, m_rows, use_locking=self._use_locking)
        v_t = scatter_ops.scatter_update(v, rows, v_rows, use_locking=self._use_locking)
        step = scatter_ops.scatter_sub(var, rows, lr * m_rows / (unary_ops.sqrt(v_rows) + epsilon),
                                       use_locking=self._use_locking)
        return control_flow_ops.group(step, m_t, v_t)


class NadamOptimizer(AdamOptimizer):
    """Adam with Nesterov's momentum (Dozat): the step uses ``beta1 m + (1 - beta1) g``."""

    _use_nesterov = True


class AdaMaxOptimizer(AdamOptimizer):
    """AdaMax (Kingma and Ba): Adam with the infinity norm, ``v = max(beta2 v, |g|)``,
    ``var -= lr / (1 - beta1^t) m / (v + epsilon)``. A sparse gradient moves its rows' ``v``
    and values only, as TensorFlow's."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking=False,
                 name="AdaMax"):
        super().__init__(learning_rate, beta1, beta2, epsilon, use_locking, name)

    def _create_slots(self, var_list):
        first = min(var_list, key=lambda v: v.name)
        self._beta1_power = self._non_slot_variable(
            "beta1_power", np.array(self._beta1, first.dtype.base_dtype.as_numpy_dtype), first)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name + "_1")

    def _apply_dense(self, grad, var):
        return training_ops.apply(
            "ApplyAdaMax", [var._variable, self.get_slot(var, "m")._variable, self.get_slot(var, "v")._variable,
                            self._hyper(self._beta1_power.value(), var, "beta1_power"),
                            self._hyper(self._lr, var, "learning_rate"), self._hyper(self._beta1, var, "beta1"),
                            self._hyper(self._beta2, var, "beta2"), self._hyper(self._epsilon, var, "epsilon"), grad],
            self._use_locking, "ApplyAdaMax").op

    def _apply_sparse(self, grad, var):
        rows, values = deduplicated(grad)
        beta1, beta2 = self._hyper(self._beta1, var, "beta1"), self._hyper(self._beta2, var, "beta2")
        lr = self._hyper(self._lr, var, "learning_rate") / (1.0 - self._hyper(self._beta1_power.value(), var,
                                                                              "beta1_power"))
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        m_t = state_ops.assign(m, m.value() * beta1, use_locking=self._use_locking)
        with ops.control_dependencies([m_t]):
            m_t = scatter_ops.scatter_add(m, rows, values * (1.0 - beta1), use_locking=self._use_locking)
        v_rows = math_ops.maximum(beta2 * slicing_ops.gather(v.value(), rows), unary_ops.abs(values))
        v_t = scatter_ops.scatter_update(v, rows, v_rows, use_locking=self._use_locking)
        step = lr * slicing_ops.gather(m_t, rows) / (v_rows + self._hyper(self._epsilon, var, "epsilon"))
        return control_flow_ops.group(scatter_ops.scatter_sub(var, rows, step, use_locking=self._use_locking),
                                      m_t, v_t)

    def _finish(self, update_ops, name_scope):
        b1p = self._beta1_power
        with ops.control_dependencies(update_ops), ops.colocate_with(b1p.op):
            update = state_ops.assign(b1p, b1p.value() * self._beta1, use_locking=self._use_locking)
        return control_flow_ops.group(*update_ops, update, name=name_scope)


class _SignOptimizer(Optimizer):
    """AddSign's and PowerSign's shared machinery: the moving average ``m`` and the sign decay,
    ``sign_decay_fn(global_step)`` (the step before the update), 1 without one."""

    def __init__(self, learning_rate, beta, sign_decay_fn, use_locking, name):
        super().__init__(use_locking, name)
        self._lr, self._beta, self._sign_decay_fn = learning_rate, beta, sign_decay_fn
        self._sign_decay_t = None

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        if self._sign_decay_fn is not None:
            self._sign_decay_t = ops.convert_to_tensor(self._sign_decay_fn(global_step), name="sign_decay")
        return super().apply_gradients(grads_and_vars, global_step, name)

    def _create_slots(self, var_list):
        for v in var_list:
            self._zeros_slot(v, "m", self._name)

    def _sign_decay(self, var):
        return self._hyper(1.0 if self._sign_decay_t is None else self._sign_decay_t, var, "sign_decay")

    def _apply_sign_update(self, op_type, grad, var, shape_value, shape_name):
        """The kernel ``op_type`` (ApplyAddSign or ApplyPowerSign), whose one own hyperparameter,
        after the learning rate, is ``shape_name``."""
        return training_ops.apply(
            op_type, [var._variable, self.get_slot(var, "m")._variable, self._hyper(self._lr, var, "learning_rate"),
                      self._hyper(shape_value, var, shape_name), self._sign_decay(var),
                      self._hyper(self._beta, var, "beta"), grad],
            self._use_locking, op_type).op


class AddSignOptimizer(_SignOptimizer):
    """AddSign (Bello et al., 2017): ``m = beta m + (1 - beta) g``,
    ``var -= lr (alpha + sign_decay sign(g) sign(m)) g``."""

    def __init__(self, learning_rate=0.1, alpha=1.0, beta=0.9, sign_decay_fn=None, use_locking=False,
                 name="AddSignOptimizer"):
        super().__init__(learning_rate, beta, sign_decay_fn, use_locking, name)
        self._alpha = alpha

    def _apply_dense(self, grad, var):
        return self._apply_sign_update("ApplyAddSign", grad, var, self._alpha, "alpha")


class PowerSignOptimizer(_SignOptimizer):
    """PowerSign (Bello et al., 2017): ``m = beta m + (1 - beta) g``,
    ``var -= lr base^(sign_decay sign(g) sign(m)) g``."""

    def __init__(self, learning_rate=0.1, base=math.e, beta=0.9, sign_decay_fn=None, use_locking=False,
                 name="PowerSignOptimizer"):
        super().__init__(learning_rate, beta, sign_decay_fn, use_locking, name)
        self._logbase = math.log(base)

    def _apply_dense(self, grad, var):
        return self._apply_sign_update("ApplyPowerSign", grad, var, self._logbase, "logbase")


def _decay_steps_fraction(global_step, decay_steps, scale=1.0):
    step = math_ops.cast(math_ops.minimum(ops.convert_to_tensor(global_step), decay_steps), dtypes.float32)
    return step * scale / float(decay_steps), step


def get_linear_decay_fn(decay_steps):
    """A sign decay falling linearly from 1 at step 0 to 0 at ``decay_steps`` (and after)."""
    def linear_decay_fn(global_step):
        fraction, _ = _decay_steps_fraction(global_step, decay_steps)
        return 1.0 - fraction
    return linear_decay_fn


def get_cosine_decay_fn(decay_steps, num_periods=0.5, zero_after=None):
    """A sign decay ``0.5 (1 + cos(pi 2 num_periods step / decay_steps))`` (the step capped at
    ``decay_steps``), 0 once that fraction reaches ``2 zero_after``."""
    def cosine_decay_fn(global_step):
        fraction, _ = _decay_steps_fraction(global_step, decay_steps, 2.0 * num_periods)
        decayed = 0.5 * (1.0 + unary_ops.cos(math.pi * fraction))
        if zero_after is not None:
            decayed = math_ops.where(fraction >= 2.0 * zero_after, array_ops.zeros_like(decayed), decayed)
        return decayed
    return cosine_decay_fn


def get_restart_decay_fn(decay_steps, num_periods=1, zero_after=None):
    """A cosine sign decay that restarts ``num_periods`` times over ``decay_steps``, 0 once
    ``num_periods step / decay_steps`` reaches ``zero_after``."""
    def restart_decay_fn(global_step):
        periods, step = _decay_steps_fraction(global_step, decay_steps, float(num_periods))
        fraction = math_ops.floormod(num_periods * step, float(decay_steps)) / float(decay_steps)
        decayed = 0.5 * (1.0 + unary_ops.cos(math.pi * fraction))
        if zero_after is not None:
            decayed = math_ops.where(periods >= zero_after, array_ops.zeros_like(decayed), decayed)
        return decayed
    return restart_decay_fn


sign_decay = types.SimpleNamespace(get_linear_decay_fn=get_linear_decay_fn, get_cosine_decay_fn=get_cosine_decay_fn,
                                   get_restart_decay_fn=get_restart_decay_fn)


class _Wrapping(Optimizer):
    """An optimizer around another: gradients are the wrapped one's, its slots too."""

    def __init__(self, opt, use_locking, name):
        super().__init__(use_locking, name)
        self._opt = opt

    def compute_gradients(self, *args, **kwargs):
        return self._opt.compute_gradients(*args, **kwargs)

    def get_slot(self, *args, **kwargs):
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._opt.get_slot_names(*args, **kwargs)

    def variables(self):
        return self._opt.variables()


class VariableClippingOptimizer(_Wrapping):
    """``opt``'s update, then each variable of ``vars_to_clip_dims`` ({variable: dims})
    clipped to norm ``max_norm`` over those dims (an embedding's rows, over dim 1); with
    ``colocate_clip_ops_with_vars`` the clipping runs where the variable is."""

    def __init__(self, opt, vars_to_clip_dims, max_norm, use_locking=False, colocate_clip_ops_with_vars=False,
                 name="VariableClipping"):
        super().__init__(opt, use_locking, name)
        self._vars_to_clip_dims = {id(v): (v, list(dims)) for v, dims in vars_to_clip_dims.items()}
        self._max_norm, self._colocate = max_norm, colocate_clip_ops_with_vars

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = list(grads_and_vars)
        with ops.name_scope(name, self._name):
            update = self._opt.apply_gradients(grads_and_vars, global_step=global_step)
            clips = []
            with ops.control_dependencies([update]):
                for grad, var in grads_and_vars:
                    if grad is not None and id(var) in self._vars_to_clip_dims:
                        clips.append(self._clip(grad, var, self._vars_to_clip_dims[id(var)][1]))
            return control_flow_ops.group(update, *clips)

    def _clip(self, grad, var, dims):
        """The variable clipped; for a sparse gradient, only the rows it named, unless the norm
        runs across rows (dim 0): then all of it (as TF's)."""
        with ops.colocate_with(var.op) if self._colocate else ops.name_scope(None, "clip"):
            def clipped(value):
                norms = unary_ops.sqrt(reduction_ops.reduce_sum(value * value, dims, keepdims=True))
                return value * math_ops.minimum(1.0, self._max_norm / math_ops.maximum(norms, 1e-12))

            if not isinstance(grad, IndexedSlices) or 0 in dims:
                return state_ops.assign(var, clipped(var.read_value()), use_locking=self._use_locking)
            rows, _ = deduplicated(grad)
            return scatter_ops.scatter_update(var, rows, clipped(slicing_ops.gather(var.read_value(), rows)),
                                              use_locking=self._use_locking)


class DropStaleGradientOptimizer(_Wrapping):
    """``opt``'s update, made only when the global step moved by no more than ``staleness``
    since the gradients were computed (asynchronous training: a slow worker's old gradients
    are dropped). ``apply_gradients`` returns the count of dropped updates (the variable
    ``stale_counter``), incremented when it drops one, and a summary of the share dropped
    ("Gradient staleness percentage"), as TensorFlow's."""

    def __init__(self, opt, staleness, use_locking=False, name="DropStaleGradient"):
        super().__init__(opt, use_locking, name)
        self._staleness = staleness
        self._local_step = None

    def compute_gradients(self, loss, *args, **kwargs):
        with ops.colocate_with(loss.op if hasattr(loss, "op") else None):
            self._local_step = array_ops.identity(training_util.get_global_step().value(), name="local_step")
        with ops.control_dependencies([self._local_step]):  # (the step read before the gradients)
            loss = array_ops.identity(loss)
        return self._opt.compute_gradients(loss, *args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        if self._local_step is None:
            raise ValueError("DropStaleGradientOptimizer: call compute_gradients (or minimize) before "
                             "apply_gradients: the staleness is counted from when the gradients were computed")
        global_step = global_step if global_step is not None else training_util.get_global_step()
        grads_and_vars = list(grads_and_vars)
        with ops.colocate_with(global_step.op):
            stale_counter = vs.get_variable("stale_counter", [], initializer=init_ops.zeros_initializer(),
                                            trainable=False)
        grads = [g.values if isinstance(g, IndexedSlices) else g for g, _ in grads_and_vars if g is not None]
        with ops.control_dependencies(grads), ops.colocate_with(global_step.op):
            staleness = array_ops.reshape(global_step.value() - self._local_step, [])

        def accept():
            with ops.control_dependencies([self._opt.apply_gradients(grads_and_vars, global_step, name)]):
                return array_ops.identity(0.0)

        dropped = control_flow_v2.cond(staleness <= self._staleness, accept, lambda: array_ops.identity(1.0))
        counted = state_ops.assign_add(stale_counter, dropped)
        from ..summary import scalar  # noqa: PLC0415 - (summary builds on train: imported when used)

        scalar("Gradient staleness percentage",
               stale_counter.value() / math_ops.cast(global_step.value() + 1, dtypes.float32))
        return counted


class MultitaskOptimizerWrapper:
    """``opt``, except that a variable whose gradient is all zeros is not updated (nor are
    its slots): in multitask training, a task's step leaves the other tasks' heads alone.
    Everything else is ``opt``'s (its per-variable updates are wrapped, as TF's wrapper does)."""

    def __init__(self, opt):
        self._opt = opt
        for method in ("_apply_dense", "_apply_sparse"):
            setattr(opt, method, self._unless_all_zeros(getattr(opt, method)))

    @staticmethod
    def _unless_all_zeros(update):
        def wrapped(grad, var):
            values = grad.values if isinstance(grad, IndexedSlices) else grad
            nonzero = reduction_ops.reduce_any(math_ops.not_equal(values, 0))
            return control_flow_v2.cond(nonzero, lambda: update(grad, var), control_flow_ops.no_op)
        return wrapped

    def __getattr__(self, name):
        return getattr(self._opt, name)


class MovingAverageOptimizer(_Wrapping):
    """``opt``'s update, then (after it, with ``sequential_update``) an exponential moving
    average of each updated variable (``tf.train.ExponentialMovingAverage(average_decay,
    num_updates)``). ``swapping_saver()`` saves each average under its variable's name and
    restores it into the variable: a program evaluates or serves the averaged weights by
    restoring that checkpoint."""

    def __init__(self, opt, average_decay=0.9999, num_updates=None, sequential_update=True):
        super().__init__(opt, opt._use_locking, opt._name)
        from ..train.moving_averages import ExponentialMovingAverage  # noqa: PLC0415

        self._ema = ExponentialMovingAverage(average_decay, num_updates=num_updates)
        self._variable_map = None
        self._sequential_update = sequential_update

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        grads_and_vars = list(grads_and_vars)
        train_op = self._opt.apply_gradients(grads_and_vars, global_step=global_step, name=name)
        var_list = [v for g, v in grads_and_vars if g is not None]
        with ops.control_dependencies([train_op] if self._sequential_update else []):
            average_op = self._ema.apply(var_list)
        self._variable_map = {}
        for v in var_list:
            average = self._ema.average(v)
            self._variable_map[v.op.name] = average
            self._variable_map[average.op.name] = v
        return control_flow_ops.group(train_op, average_op, name="train_with_avg")

    def swapping_saver(self, var_list=None, name="swapping_saver", **kwargs):
        """A Saver whose checkpoint holds each variable's average under the variable's name
        (and the variable under its average's): restoring it puts the averages in the variables."""
        from ..train.saver import Saver  # noqa: PLC0415

        if self._variable_map is None:
            raise RuntimeError("Must call apply_gradients or minimize before creating the swapping_saver")
        if var_list is None:
            var_list = state_ops.global_variables()
        if not isinstance(var_list, dict):
            var_list = {v.op.name: v for v in var_list}
        swapped = {key: self._variable_map.get(v.op.name, v) for key, v in var_list.items()}
        return Saver(swapped, name=name, **kwargs)


class LARSOptimizer(MomentumOptimizer):
    """Layer-wise adaptive rate scaling (You, Gitman and Ginsburg), as TF 1.x's: each
    variable's learning rate is scaled by its trust ratio ``eeta * |w| / (|g| + weight_decay
    * |w| + epsilon)`` (1 where either norm is zero), weight decay is added to its gradient,
    and the result goes through momentum. Variables whose names contain a string of
    ``skip_list`` take neither (the biases and batch norms of the model garden's ResNet). A
    sparse gradient takes plain momentum, as TF's does."""

    def __init__(self, learning_rate, momentum=0.9, weight_decay=0.0001, eeta=0.001, epsilon=0.0,
                 name="LARSOptimizer", skip_list=None, use_nesterov=False):
        if learning_rate < 0.0:
            raise ValueError(f"Invalid learning_rate value: {learning_rate}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if eeta < 0.0:
            raise ValueError(f"Invalid eeta value: {eeta}")
        if epsilon < 0.0:
            raise ValueError(f"Invalid epsilon value: {epsilon}")
        super().__init__(learning_rate, momentum, False, name, use_nesterov)
        self._weight_decay, self._eeta, self._epsilon = weight_decay, eeta, epsilon
        self._skip_list = skip_list

    def compute_lr(self, grad, var):
        """The variable's scaled learning rate, and its gradient with the weight decay added."""
        lr = self._hyper(self._learning_rate, var, "learning_rate")
        if self._skip_list is not None and any(name in var.name for name in self._skip_list):
            return lr, grad
        w_norm = math_ops.sqrt(reduction_ops.reduce_sum(math_ops.square(var.value())))
        g_norm = math_ops.sqrt(reduction_ops.reduce_sum(math_ops.square(grad)))
        decay = self._hyper(self._weight_decay, var, "weight_decay")
        one = array_ops.ones_like(w_norm)
        ratio = math_ops.where(
            math_ops.greater(w_norm, 0),
            math_ops.where(math_ops.greater(g_norm, 0),
                            self._hyper(self._eeta, var, "eeta") * w_norm
                            / (g_norm + decay * w_norm + self._hyper(self._epsilon, var, "epsilon")), one),
            one)
        return lr * ratio, grad + decay * var.value()

    def _apply_dense(self, grad, var):
        scaled_lr, grad = self.compute_lr(grad, var)
        return training_ops.apply(
            "ApplyMomentum", [var._variable, self.get_slot(var, "momentum")._variable,
                              array_ops.ones_like(scaled_lr), grad * scaled_lr,
                              self._hyper(self._momentum, var, "momentum")],
            self._use_locking, "ApplyMomentum", use_nesterov=self._use_nesterov).op


def clip_gradients_by_global_norm(gradients_variables, clip_norm=20.0):
    """(gradient, variable) pairs with the gradients clipped by their global norm, and that
    norm (``tf.clip_by_global_norm`` over the pairs' gradients)."""
    gradients, variables = zip(*gradients_variables)
    clipped, norm = clip_ops.clip_by_global_norm(list(gradients), clip_norm)
    return list(zip(clipped, variables)), norm


__getattr__ = missing("tf.contrib.opt")
