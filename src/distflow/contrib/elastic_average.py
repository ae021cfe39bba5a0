"""Elastic averaging SGD (Zhang, Choromanska and LeCun, 2015) for between-graph replication:
``tf.contrib.opt.ElasticAverageOptimizer`` and its ``ElasticAverageCustomGetter``.

Each worker trains variables of its own (on its worker device, in LOCAL_VARIABLES) with an
optimizer of its choice, pulled toward a center: the loss gets ``rho * l2_loss(var -
local_center)``. Every ``communication_period`` local steps the worker reads the global
center (on the ps, in GLOBAL_VARIABLES, what a Saver saves), and moves both by ``moving_rate``
times their difference: the worker toward the center, the center toward the worker. The
global step counts those exchanges. Before training, ``make_session_run_hook`` sets every
worker's variables and local centers to the global centers, and waits for all workers to
have done so (a barrier of queues on the first center's device). Unlike TensorFlow's, a
worker reads the center at every step (distflow's conds take their inputs before they run),
so a longer communication period changes the arithmetic, not the traffic.
"""

from __future__ import annotations

from ..framework import dtypes, ops
from ..ops import array_ops, control_flow_ops, data_flow_ops, math_ops, nn_ops, state_ops
from ..ops import variable_scope as vs
from ..train.optimizer import Optimizer
from ..train.session_run_hook import SessionRunHook

LOCAL_VARIABLE_NAME = "local_center_variable"
GLOBAL_VARIABLE_NAME = "global_center_variable"


class ElasticAverageCustomGetter:
    """A variable scope's custom getter (with ``tf.train.replica_device_setter``, and
    ``tf.get_variable``): a trainable variable is made on ``worker_device`` as a local
    variable of the worker, with a global center (placed by the device setter: the ps) and
    a local copy of the center beside it, both starting at its initial value."""

    def __init__(self, worker_device):
        self._worker_device = worker_device
        self._local_map: dict = {}
        self._global_map: dict = {}

    def __call__(self, getter, name, *args, **kwargs):
        if not kwargs.get("trainable", True):
            return getter(name, *args, **kwargs)
        kwargs["collections"] = [ops.GraphKeys.LOCAL_VARIABLES]
        with ops.device(self._worker_device):
            local_var = getter(name, *args, **kwargs)
        global_center = state_ops.Variable(local_var.initialized_value(), name=f"{GLOBAL_VARIABLE_NAME}/{name}",
                                           trainable=False, collections=[ops.GraphKeys.GLOBAL_VARIABLES])
        with ops.device(self._worker_device):
            local_center = state_ops.Variable(local_var.initialized_value(), name=f"{LOCAL_VARIABLE_NAME}/{name}",
                                              trainable=False, collections=[ops.GraphKeys.LOCAL_VARIABLES])
        self._local_map[local_var] = local_center
        self._global_map[local_var] = global_center
        return local_var


class ElasticAverageOptimizer(Optimizer):
    """``opt`` on the worker's own variables, with the elastic exchange with the center
    every ``communication_period`` steps. ``moving_rate`` defaults to 0.9 /
    communication_period / num_worker, ``rho`` to moving_rate / opt's learning rate."""

    BETA = 0.9

    def __init__(self, opt, num_worker, ea_custom_getter, communication_period=10, moving_rate=None, rho=None,
                 use_locking=True, name="ElasticAverageOptimizer"):
        super().__init__(use_locking, name)
        self._opt, self._num_worker, self._period = opt, num_worker, communication_period
        self._local_map, self._global_map = ea_custom_getter._local_map, ea_custom_getter._global_map
        self._moving_rate = self.BETA / communication_period / num_worker if moving_rate is None else moving_rate
        if rho is None:
            learning_rate = getattr(opt, "_learning_rate", None)
            if not isinstance(learning_rate, (int, float)):
                raise ValueError("ElasticAverageOptimizer: give rho, or an optimizer with a number for its "
                                 f"learning rate (got {learning_rate!r})")
            rho = self._moving_rate / learning_rate
        self._rho = rho
        self._local_step = vs.get_variable("local_step", initializer=0, trainable=False,
                                           collections=[ops.GraphKeys.LOCAL_VARIABLES])

    def compute_gradients(self, loss, var_list=None, gate_gradients=Optimizer.GATE_OP, aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None):
        """``opt``'s gradients of ``loss + rho * sum(l2_loss(var - local_center))``."""
        var_list = list(var_list) if var_list else state_ops.trainable_variables()
        distance = math_ops.add_n([nn_ops.l2_loss(v.value() - self._local_map[v].value()) for v in var_list])
        return self._opt.compute_gradients(loss + self._rho * distance, var_list, gate_gradients,
                                           aggregation_method, colocate_gradients_with_ops, grad_loss)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """``opt``'s update, then, every ``communication_period`` local steps, the exchange
        with the center (and ``global_step`` += 1)."""
        grads_and_vars = list(grads_and_vars)
        update = self._opt.apply_gradients(grads_and_vars)
        with ops.control_dependencies([update]):
            counted = state_ops.assign_add(self._local_step, 1, name="local_step_update")

        # The exchange, every period: written without a cond, each value masked by whether
        # the period is up, because a cond's branch runs on one task and this updates the
        # worker's variables and the ps's centers (distflow's conds take their inputs before
        # they run: the center is read every step either way).
        with ops.control_dependencies([counted]):
            due = math_ops.equal(math_ops.floormod(self._local_step.read_value(), self._period), 0)
            updates = []
            for g, var in grads_and_vars:
                if g is None:
                    continue
                local_center, center = self._local_map[var], self._global_map[var]
                with ops.device(var.device):  # (fresh reads: after this step's update)
                    pulled = math_ops.where(due, center.read_value(), local_center.read_value())
                    difference = math_ops.cast(due, var.dtype.base_dtype) * self._moving_rate * (
                        var.read_value() - pulled)
                updates += [state_ops.assign(local_center, pulled).op, state_ops.assign_sub(var, difference).op]
                with ops.device(center.device):
                    updates.append(state_ops.assign_add(center, difference).op)
            if global_step is not None:
                with ops.colocate_with(global_step.op):
                    updates.append(state_ops.assign_add(
                        global_step, math_ops.cast(due, global_step.dtype.base_dtype)).op)
            return control_flow_ops.group(*updates, name=name)

    def get_init_op(self, task_index):
        """Every worker variable and local center set to the global center, then a barrier:
        each worker waits for the others to have done so."""
        local_vars = state_ops.trainable_variables()
        if not local_vars or any(v not in self._global_map for v in local_vars):
            raise ValueError("The lists of local_variables, global_center_variables, local_center_variables "
                             "should not be empty: make the variables under ElasticAverageCustomGetter")
        copies = []
        for var in local_vars:
            center = self._global_map[var].read_value()
            copies += [state_ops.assign(var, center).op, state_ops.assign(self._local_map[var], center).op]
        if self._num_worker == 1:
            return control_flow_ops.group(*copies)
        with ops.device(self._global_map[local_vars[0]].device):  # (shared: on the center's task)
            queues = [data_flow_ops.FIFOQueue(self._num_worker, [dtypes.bool], shapes=[[]],
                                              shared_name=f"variable_init_sync_queue{i}")
                      for i in range(self._num_worker)]
            with ops.control_dependencies(copies):
                told = [q.enqueue(array_ops.identity(False)) for i, q in enumerate(queues) if i != task_index]
            with ops.control_dependencies(told):
                waited = queues[task_index].dequeue_many(self._num_worker - 1)
        return control_flow_ops.group(waited, *told)

    def make_session_run_hook(self, is_chief, task_index):
        """The hook that sets the worker's variables from the centers once its session exists."""
        return _ElasticAverageOptimizerHook(self, is_chief, task_index)


class _ElasticAverageOptimizerHook(SessionRunHook):
    def __init__(self, ea_optimizer, is_chief, task_index):
        self._ea_optimizer, self._is_chief, self._task_index = ea_optimizer, is_chief, task_index

    def begin(self):
        self._variable_init_op = self._ea_optimizer.get_init_op(self._task_index)

    def after_create_session(self, session, coord):
        session.run(self._variable_init_op)
