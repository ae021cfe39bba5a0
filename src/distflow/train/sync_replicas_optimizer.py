"""``tf.train.SyncReplicasOptimizer``: synchronous data parallelism with optional backup workers.

How a step works (as in TensorFlow 1.x):

- every variable gets a ConditionalAccumulator on its own device, shared by name
  (``<var name>/grad_accum``) between all workers' graphs;
- a worker's train op pushes its gradients into the accumulators, tagged with its local
  step (the global step its parameters were read at), then takes a token from the
  shared queue ``sync_token_q`` and makes the token its new local step;
- the chief runs, in a queue-runner thread, the sync op: take the average of
  ``replicas_to_aggregate`` gradients from each accumulator (a gradient older than
  the accumulator's global step is dropped as stale), apply it with the wrapped
  optimizer, which increments global_step once, and put ``max(total_num_replicas,
  replicas_to_aggregate)`` tokens carrying the new global step into the queue; then, given
  ``variable_averages`` (an ExponentialMovingAverage), it updates the moving averages of
  ``variables_to_average`` from the new values.

With more workers than ``replicas_to_aggregate`` the extra ones are backup workers:
the update never waits for the slowest, and the slow worker's late gradients are
dropped. global_step counts updates, not worker steps.
"""

from __future__ import annotations

from ..framework import ops
from ..framework.ops import GraphKeys
from ..ops import accumulator_ops, array_ops, control_flow_ops, data_flow_ops, state_ops
from ..ops.indexed_slices import IndexedSlices
from .optimizer import Optimizer
from .queue_runner import QueueRunner
from .session_run_hook import SessionRunHook
from .session_manager import check_ready


class SyncReplicasOptimizer(Optimizer):
    def __init__(self, opt: Optimizer, replicas_to_aggregate: int, total_num_replicas: int | None = None,
                 variable_averages=None, variables_to_average=None, use_locking=False, name="sync_replicas"):
        if total_num_replicas is None:
            total_num_replicas = replicas_to_aggregate
        if replicas_to_aggregate < 1 or total_num_replicas < 1:
            raise ValueError(f"replicas_to_aggregate ({replicas_to_aggregate}) and total_num_replicas "
                             f"({total_num_replicas}) must be at least 1")
        super().__init__(use_locking, name)
        self._variable_averages = variable_averages
        self._variables_to_average = variables_to_average
        self._opt = opt
        self._replicas_to_aggregate = replicas_to_aggregate
        self._total_num_replicas = total_num_replicas
        self._tokens_per_step = max(total_num_replicas, replicas_to_aggregate)
        self._gradients_applied = False
        self._global_step = None
        self._sync_token_queue = None
        self._chief_queue_runner = None
        self._accumulator_list: list = []
        self.local_step_init_op = None
        self.chief_init_op = None
        self.ready_for_local_init_op = None

    def compute_gradients(self, *args, **kwargs):
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """The worker's train op: push gradients, wait for a token, take it as the local step."""
        grads_and_vars = list(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        self._global_step = global_step
        step_dtype = global_step.dtype.base_dtype

        # The local step lives on this worker: an anchor op placed by the worker's device scope.
        local_anchor = control_flow_ops.no_op(name="local_anchor")
        with ops.colocate_with(local_anchor):
            self._local_step = state_ops.Variable(0, trainable=False, collections=[GraphKeys.LOCAL_VARIABLES],
                                                  dtype=step_dtype, name="sync_rep_local_step")
        self.local_step_init_op = state_ops.assign(self._local_step, global_step)
        chief_init_ops = [self.local_step_init_op]
        self.ready_for_local_init_op = state_ops.report_uninitialized_variables(state_ops.global_variables())

        train_ops, aggregated, var_list = [], [], []
        with ops.name_scope(None, self._name):
            for grad, var in grads_and_vars:
                var_list.append(var)
                with ops.device(var.device):
                    if grad is None:
                        aggregated.append(None)
                        continue
                    if isinstance(grad, IndexedSlices):  # (an embedding's rows: summed by row, as TF's)
                        accumulator = accumulator_ops.SparseConditionalAccumulator(
                            grad.dtype, shape=var.get_shape(), shared_name=var.name + "/grad_accum")
                        train_ops.append(accumulator.apply_indexed_slices_grad(grad, local_step=self._local_step))
                        aggregated.append(accumulator.take_indexed_slices_grad(self._replicas_to_aggregate))
                    else:
                        grad = ops.convert_to_tensor(grad)
                        accumulator = accumulator_ops.ConditionalAccumulator(
                            grad.dtype, shape=var.get_shape(), shared_name=var.name + "/grad_accum")
                        train_ops.append(accumulator.apply_grad(grad, local_step=self._local_step))
                        aggregated.append(accumulator.take_grad(self._replicas_to_aggregate))
                    self._accumulator_list.append((accumulator, var.device))

            with ops.device(global_step.device), ops.name_scope(""):
                update_op = self._opt.apply_gradients(list(zip(aggregated, var_list)), global_step)
                self._sync_token_queue = data_flow_ops.FIFOQueue(-1, step_dtype, shapes=(), name="sync_token_q",
                                                                 shared_name="sync_token_q")
                with ops.control_dependencies(train_ops):
                    token = self._sync_token_queue.dequeue()
                train_op = state_ops.assign(self._local_step, token)
                with ops.control_dependencies([update_op]):
                    tokens = array_ops.fill([self._tokens_per_step], global_step)
                    sync_op = self._sync_token_queue.enqueue_many((tokens,))
                if self._variable_averages is not None:  # (the averages trail each update, on the chief)
                    with ops.control_dependencies([sync_op]), ops.name_scope(""):
                        sync_op = self._variable_averages.apply(self._variables_to_average)
                self._chief_queue_runner = QueueRunner(self._sync_token_queue, [sync_op])

            for accumulator, device in self._accumulator_list:
                with ops.device(device):
                    chief_init_ops.append(accumulator.set_global_step(global_step, name="SetGlobalStep"))
            self.chief_init_op = control_flow_ops.group(*chief_init_ops)
        self._gradients_applied = True
        return train_op

    def get_chief_queue_runner(self) -> QueueRunner:
        if not self._gradients_applied:
            raise ValueError("Should be called after apply_gradients().")
        return self._chief_queue_runner

    def get_slot(self, *args, **kwargs):
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args, **kwargs):
        return self._opt.get_slot_names(*args, **kwargs)

    def variables(self):
        return self._opt.variables() if hasattr(self._opt, "variables") else []

    def get_init_tokens_op(self, num_tokens=-1):
        """The chief's op that fills the token queue at the start (``replicas_to_aggregate`` tokens by default)."""
        if not self._gradients_applied:
            raise ValueError("get_init_tokens_op() should be called after apply_gradients().")
        tokens_needed = self._replicas_to_aggregate - self._total_num_replicas
        if num_tokens == -1:
            num_tokens = self._replicas_to_aggregate
        elif num_tokens < tokens_needed:
            raise ValueError(f"Too few tokens to finish the first step: {num_tokens} (given) vs {tokens_needed} "
                             "(needed)")
        if num_tokens > 0:
            with ops.device(self._global_step.device), ops.name_scope(""):
                tokens = array_ops.fill([num_tokens], self._global_step)
                return self._sync_token_queue.enqueue_many((tokens,))
        return control_flow_ops.no_op(name="no_init_tokens")

    def make_session_run_hook(self, is_chief: bool, num_tokens: int = -1) -> SessionRunHook:
        """The hook that runs the local and chief init ops, the initial tokens and the chief's queue runner."""
        return _SyncReplicasOptimizerHook(self, is_chief, num_tokens)


class _SyncReplicasOptimizerHook(SessionRunHook):
    def __init__(self, sync_optimizer: SyncReplicasOptimizer, is_chief: bool, num_tokens: int):
        self._sync_optimizer = sync_optimizer
        self._is_chief = is_chief
        self._num_tokens = num_tokens

    def begin(self):
        opt = self._sync_optimizer
        if not opt._gradients_applied:
            raise ValueError("SyncReplicasOptimizer.apply_gradient should be called before using the hook.")
        self._ready_for_local_init_op = opt.ready_for_local_init_op
        if self._is_chief:
            self._local_init_op = opt.chief_init_op
            self._q_runner = opt.get_chief_queue_runner()
            self._init_tokens_op = opt.get_init_tokens_op(self._num_tokens)
        else:
            self._local_init_op = opt.local_step_init_op
            self._q_runner = None
            self._init_tokens_op = None

    def after_create_session(self, session, coord):
        ok, msg = check_ready(self._ready_for_local_init_op, session, "Model not ready for SyncReplicasOptimizer")
        if not ok:
            raise RuntimeError(f"Model is not ready for SyncReplicasOptimizer local init: {msg}")
        session.run(self._local_init_op)
        if self._init_tokens_op is not None:
            session.run(self._init_tokens_op)
        if self._q_runner is not None:
            self._q_runner.create_threads(session, coord=coord, daemon=True, start=True)
