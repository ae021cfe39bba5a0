"""The op a SavedModel's loader runs after restoring its variables."""

from __future__ import annotations

from ..framework import ops
from ..ops import control_flow_ops, control_flow_v2, state_ops


def main_op():
    """Initializes the global variables not yet initialized, the local variables and the
    tables (``tf.saved_model.main_op.main_op``). TensorFlow's initialized every global
    variable, so that a loader running it after restoring a SavedModel's checkpoint put the
    variables back to their initial values; here a variable the checkpoint restored keeps
    its value, and one nothing set (a fresh graph's) is initialized, as TF's would be."""
    with ops.name_scope("main_op"):
        globals_ = [_initialize_if_not(v) for v in state_ops.global_variables()]
    return control_flow_ops.group(*globals_, state_ops.local_variables_initializer(),
                                  state_ops.tables_initializer())


def _initialize_if_not(variable):
    """``variable``'s initializer, run only if the variable holds no value yet."""
    initial = variable.initial_value
    return control_flow_v2.cond(state_ops.is_variable_initialized(variable), control_flow_ops.no_op,
                                lambda: state_ops.assign(variable, initial).op)


def main_op_with_restore(restore_op_name):
    """:func:`main_op`, run after the op named ``restore_op_name`` (a Saver's restore op)."""
    with ops.control_dependencies([ops.get_default_graph().get_operation_by_name(restore_op_name)]):
        return main_op()
