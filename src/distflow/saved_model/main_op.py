"""The op a SavedModel's loader runs after restoring its variables."""

from __future__ import annotations

from ..framework import ops
from ..ops import control_flow_ops, state_ops


def main_op():
    """Initializes the local variables and the tables (``tf.saved_model.main_op.main_op``)."""
    return control_flow_ops.group(state_ops.local_variables_initializer(), state_ops.tables_initializer())


def main_op_with_restore(restore_op_name):
    """:func:`main_op`, run after the op named ``restore_op_name`` (a Saver's restore op)."""
    with ops.control_dependencies([ops.get_default_graph().get_operation_by_name(restore_op_name)]):
        return main_op()
