"""The Optimizer base class: compute_gradients, apply_gradients, minimize and slots."""

from __future__ import annotations

from ..framework import distribute_context, ops
from ..framework.ops import GraphKeys
from ..ops import array_ops, control_flow_ops, gradients_impl, math_ops, state_ops, variable_scope
from ..ops.indexed_slices import IndexedSlices, to_dense
from ..ops.partitioned_variables import SaveSliceInfo
from ..ops.state_ops import Variable


class Optimizer:
    """Base class: subclasses create slots and build one update op per variable.

    Subclasses implement ``_create_slots(var_list)``, ``_prepare()`` (turn
    hyper-parameters into tensors) and ``_apply_dense(grad, var)``; ``_finish`` may add
    work after all updates (Adam's beta powers).
    """

    GATE_NONE, GATE_OP, GATE_GRAPH = 0, 1, 2

    def __init__(self, use_locking: bool, name: str):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        self._slots: dict[str, dict[Variable, Variable]] = {}
        self._non_slot: dict[tuple[str, ops.Graph], Variable] = {}

    def get_name(self) -> str:
        return self._name

    # -- the public API ---------------------------------------------------------------
    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=GATE_OP,
                 aggregation_method=None, colocate_gradients_with_ops=False, name=None, grad_loss=None):
        """compute_gradients then apply_gradients; returns the training op."""
        grads_and_vars = self.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients, aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        if not any(g is not None for g, _ in grads_and_vars):
            raise ValueError(f"No gradients provided for any variable, check your graph for ops that do not "
                             f"support gradients, between variables {[v.name for _, v in grads_and_vars]} "
                             f"and loss {loss}.")
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None) -> list:
        """A list of (gradient, variable) pairs; the gradient is None where loss does not depend on it."""
        if callable(loss):
            raise NotImplementedError("eager-style callable losses are not supported")
        loss = ops.convert_to_tensor(loss)
        if var_list is None:
            var_list = ops.get_collection(GraphKeys.TRAINABLE_VARIABLES)
        var_list = list(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = gradients_impl.gradients(loss, var_list, grad_ys=grad_loss,
                                         colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gate_gradients == self.GATE_GRAPH:
            grads = control_flow_ops.tuple(grads)
        return list(zip(grads, var_list))

    def apply_gradients(self, grads_and_vars, global_step=None, name=None) -> ops.Operation:
        """One update per (gradient, variable) with a gradient, then global_step += 1 if given."""
        pairs = [(g, v) for g, v in grads_and_vars]
        if not pairs:
            raise ValueError("No variables provided.")
        replica = distribute_context.replica_context()  # (a tf.distribute replica: gradients all-reduced first)
        if replica is not None:
            pairs = replica.strategy._aggregate_gradients(replica, pairs)
            if not replica.strategy._applies_updates(replica):  # (another replica applies them)
                return control_flow_ops.group(*[g for g, _ in pairs if g is not None], name=name)
        for g, v in pairs:
            if not isinstance(v, Variable):
                raise TypeError(f"Can not apply gradients to {v!r}: not a Variable")
        live = [(g if isinstance(g, IndexedSlices) else ops.convert_to_tensor(g), v) for g, v in pairs
                if g is not None]
        if not live:
            raise ValueError(f"No gradients provided for any variable: {[v.name for _, v in pairs]}.")
        graph = live[0][1].graph
        with graph.as_default():
            with ops.control_dependencies(None):
                self._create_slots([v for _, v in live])
            updates = []
            with ops.name_scope(name, self._name) as scope:
                self._prepare()
                for grad, var in live:
                    with ops.name_scope("update_" + var.op.name), graph.colocate_with(var.op):
                        if isinstance(grad, IndexedSlices):
                            update = self._apply_sparse(grad, var)
                        else:
                            update = self._apply_dense(grad, var)
                        if var.constraint is not None:  # projected after its update, as in TF
                            with ops.control_dependencies([update]):
                                update = var.assign(var.constraint(var.read_value())).op
                        updates.append(update)
                if global_step is None or (replica is not None and
                                           not replica.strategy._increments_global_step(replica, global_step)):
                    train_op = self._finish(updates, scope)
                else:
                    with ops.control_dependencies([self._finish(updates, "update")]), \
                            graph.colocate_with(_as_variable(global_step).op):
                        train_op = state_ops.assign_add(global_step, 1, name=scope).op
            train_ops = graph.get_collection_ref(GraphKeys.TRAIN_OP)
            if train_op not in train_ops:
                train_ops.append(train_op)
            return train_op

    def _finish(self, update_ops, name_scope):
        return control_flow_ops.group(*update_ops, name=name_scope)

    # -- slots ------------------------------------------------------------------------
    def get_slot_names(self) -> list[str]:
        return sorted(self._slots)

    def get_slot(self, var, name):
        return self._slots.get(name, {}).get(var)

    def variables(self) -> list:
        """The optimizer's own variables (slots, Adam's beta powers) in the default graph, by name."""
        graph = ops.get_default_graph()
        out = [v for v in self._non_slot.values() if v.graph is graph]
        for slots in self._slots.values():
            out.extend(v for v in slots.values() if v.graph is graph)
        return sorted(out, key=lambda v: v.name)

    def _slot(self, var: Variable, slot_name: str, op_name: str, initial) -> Variable:
        """The slot ``slot_name`` of ``var`` (created once, on var's device, untrainable), named
        ``<current variable scope>/<var>/<op_name>`` as TF names slots."""
        slots = self._slots.setdefault(slot_name, {})
        if var not in slots:
            graph = var.graph
            with graph.as_default():
                scope = variable_scope.get_variable_scope().name
                with ops.name_scope(None), graph.colocate_with(var.op):
                    value = initial(var) if callable(initial) else initial
                    primary = getattr(var, "components", (var,))[0]  # (a mirrored variable: its first copy's name)
                    name = f"{primary.op.name}/{op_name}"
                    slot = slots[var] = Variable(value, name=f"{scope}/{name}" if scope else name, trainable=False)
                info = getattr(var, "_save_slice_info", None)
                if info is not None and slot.shape.as_list() == info.var_shape:
                    # (a part of a partitioned variable: its slot is the same part of the whole
                    # variable's slot, saved with the other parts' under "<full name>/<op_name>")
                    whole = f"{info.full_name}/{op_name}"
                    slot._save_slice_info = SaveSliceInfo(f"{scope}/{whole}" if scope else whole, info.full_shape,
                                                          info.var_offset, info.var_shape)
        return slots[var]

    def _constant_slot(self, var, slot_name, op_name, value) -> Variable:
        """A slot of ``var``'s shape filled with ``value`` (Adagrad's and Ftrl's accumulators)."""
        shape = var.shape.as_list()
        return self._slot(var, slot_name, op_name,
                          lambda v: array_ops.fill(shape, array_ops.constant(value, v.dtype.base_dtype)))

    def _zeros_slot(self, var, slot_name, op_name) -> Variable:
        shape = var.shape.as_list()
        return self._slot(var, slot_name, op_name,
                          lambda v: array_ops.zeros(shape, dtype=v.dtype.base_dtype))

    def _non_slot_variable(self, name: str, initial_value, colocate_with: Variable) -> Variable:
        """One variable of the optimizer per graph (Adam's beta powers), named in the name scope
        of the first ``minimize`` (as TF)."""
        key = (name, colocate_with.graph)
        if key not in self._non_slot:
            graph = colocate_with.graph
            with graph.as_default(), graph.colocate_with(colocate_with.op):
                self._non_slot[key] = Variable(initial_value, name=name, trainable=False)
        return self._non_slot[key]

    # -- hooks for subclasses ------------------------------------------------------------
    def _create_slots(self, var_list) -> None:
        pass

    def _prepare(self) -> None:
        pass

    def _apply_dense(self, grad, var):
        raise NotImplementedError

    def _apply_sparse(self, grad, var):
        """An IndexedSlices gradient; by default applied dense (right for optimizers whose slots all
        decay every step, such as Adam). Subclasses whose TF kernels touch only the named rows
        override it."""
        return self._apply_dense(to_dense(grad), var)

    def _hyper(self, value, var, name):
        """A hyper-parameter as a tensor of var's dtype (cast if it is a tensor); a callable
        (a learning rate given as a function, as TF 1.x allows) is called first."""
        if callable(value) and not isinstance(value, (ops.Tensor, Variable)):
            value = value()
        if isinstance(value, (ops.Tensor, Variable)):  # (a float32 learning-rate variable, a float64 model)
            return math_ops.cast(ops.convert_to_tensor(value), var.dtype.base_dtype)
        return ops.convert_to_tensor(value, dtype=var.dtype.base_dtype, name=name)


def _as_variable(v):
    return v._variable if isinstance(v, Variable) else v
