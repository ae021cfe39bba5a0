"""``tf.contrib.opt``: Adam with decoupled weight decay (AdamW, and the decay added to any
optimizer), and LazyAdam, whose sparse updates touch only the rows their gradient names."""

from __future__ import annotations

from .._namespace import missing
from ..framework import ops
from ..ops import control_flow_ops, math_ops, slicing_ops, unary_ops
from ..ops import scatter_ops, state_ops
from ..ops.indexed_slices import deduplicated
from ..train.optimizer import Optimizer
from ..train.optimizers import AdamOptimizer, MomentumOptimizer


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


__getattr__ = missing("tf.contrib.opt")
