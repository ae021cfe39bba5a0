"""``tf.train.ExponentialMovingAverage``: shadow copies of variables that trail their values."""

from __future__ import annotations

from ..framework import dtypes
from ..framework import ops
from ..framework.ops import GraphKeys
from ..ops import array_ops, control_flow_ops, init_ops, math_ops, state_ops
from ..ops import variable_scope as vs


def assign_moving_average(variable, value, decay, zero_debias=True, name=None):
    """``variable -= (1 - decay) * (variable - value)``; returns the updated variable's value.

    With ``zero_debias`` (the default, as TF's) the variable becomes the average of the values
    so far without the pull toward its start: ``biased`` keeps the plain average (from 0) and
    ``local_step`` counts the updates t (both variables of the current variable scope, under
    the variable's name; ``biased_1``... for a second average of the same variable), and the
    variable is set to ``biased / (1 - decay ** t)``.
    """
    with ops.name_scope(name, "AssignMovingAvg", [variable, value, decay]):
        dtype = variable.dtype.base_dtype
        rate = 1.0 - math_ops.cast(ops.convert_to_tensor(decay, name="decay"), dtype)
        value = ops.convert_to_tensor(value, dtype=dtype)
        if not zero_debias:
            return state_ops.assign_sub(variable, (variable.value() - value) * rate)
        biased, local_step = _debias_variables(variable)
        new_biased = state_ops.assign_sub(biased, (biased.value() - value) * rate)
        step = state_ops.assign_add(local_step, array_ops.ones([], dtype=dtype))
        return state_ops.assign(variable, new_biased / (1 - math_ops.pow(1 - rate, step)))


def _debias_variables(average):
    """The ``biased`` and ``local_step`` variables of a zero-debiased average, in the variable
    scope ``<current scope>/<average's name>`` (as TF names them), numbered when taken."""
    with vs.variable_scope(average.op.name) as scope, ops.colocate_with(average.op):
        taken = {v.op.name for v in state_ops.global_variables()}

        def unique(name):
            if scope.reuse or f"{scope.name}/{name}" not in taken:
                return name
            i = 1
            while f"{scope.name}/{name}_{i}" in taken:
                i += 1
            return f"{name}_{i}"

        dtype = average.dtype.base_dtype
        return (vs.get_variable(unique("biased"), average.get_shape(), dtype,
                                initializer=init_ops.zeros_initializer(), trainable=False),
                vs.get_variable(unique("local_step"), [], dtype, initializer=init_ops.zeros_initializer(),
                                trainable=False))


class ExponentialMovingAverage:
    """``shadow -= (1 - decay) * (shadow - value)`` for each variable given to ``apply``.

    With ``num_updates`` the decay starts lower: ``min(decay, (1 + n) / (10 + n))``. The shadow
    of a variable starts at its value and is named ``<variable>/<name>`` (in the
    MOVING_AVERAGE_VARIABLES collection), so a Saver given ``variables_to_restore()`` loads
    the averages into the model's variables for evaluation, as in TF 1.x.

    The shadow of a tensor (a loss, say) starts at zero. With ``zero_debias`` it is the
    average without that start's pull toward zero (Kingma and Ba's correction, as TF's):
    ``<shadow>/biased`` keeps the plain average, ``<shadow>/local_step`` counts the updates
    t, and the shadow is ``biased / (1 - decay ** t)``.
    """

    def __init__(self, decay, num_updates=None, zero_debias=False, name="ExponentialMovingAverage"):
        self._decay = decay
        self._zero_debias = zero_debias
        self._num_updates = num_updates
        self._name = name
        self._averages: dict = {}
        self._debiased: dict = {}  # (a tensor's key: its shadow's (biased, local_step) variables)

    @property
    def name(self) -> str:
        return self._name

    def apply(self, var_list=None) -> ops.Operation:
        """Creates the shadows (once) and returns the op that updates them all.

        A shadow is named as TF names it: ``<current variable scope>/<var>/<name>``; only
        Variables join the MOVING_AVERAGE_VARIABLES collection."""
        if var_list is None:
            var_list = state_ops.trainable_variables()
        var_list = list(var_list)
        for var in var_list:
            if var.dtype.base_dtype not in (dtypes.float16, dtypes.float32, dtypes.float64):
                raise TypeError(f"The variables must be half, float, or double: {var.name}")
            if self._key(var) in self._averages:
                continue
            is_variable = isinstance(var, state_ops.Variable)
            graph = var.graph
            with graph.as_default():
                scope = vs.get_variable_scope().name
                # (made outside any control flow and control dependencies, as TF's init_scope made
                # them: a shadow first asked for inside a tf.cond branch is a variable of the graph)
                with ops.name_scope(None), graph.control_dependencies(None), graph.colocate_with(var.op):
                    initial = var.initialized_value() if is_variable else array_ops.zeros(
                        var.shape.as_list(), dtype=var.dtype.base_dtype)
                    name = f"{scope}/{var.op.name}/{self._name}" if scope else f"{var.op.name}/{self._name}"
                    shadow = state_ops.Variable(initial, name=name, trainable=False)
                if self._zero_debias and not is_variable:
                    self._debiased[self._key(var)] = _debias_variables(shadow)
            if is_variable:
                graph.add_to_collection(GraphKeys.MOVING_AVERAGE_VARIABLES, var)
            self._averages[self._key(var)] = shadow
        with ops.name_scope(self._name):
            decay = ops.convert_to_tensor(self._decay, dtype=dtypes.float32, name="decay")
            if self._num_updates is not None:
                n = math_ops.cast(self._num_updates, dtypes.float32)
                decay = math_ops.minimum(decay, (1.0 + n) / (10.0 + n))
            updates = []
            for var in var_list:
                shadow = self._averages[self._key(var)]
                with ops.colocate_with(shadow.op):
                    rate = 1 - math_ops.cast(decay, shadow.dtype.base_dtype)
                    # A fresh read: built here, it follows the control dependencies the caller opened
                    # (``with control_dependencies([train_op]): ema.apply()`` averages the new values).
                    value = var.read_value() if isinstance(var, state_ops.Variable) else var
                    debiased = self._debiased.get(self._key(var))
                    if debiased is None:
                        updates.append(state_ops.assign_sub(shadow, (shadow.value() - value) * rate).op)
                        continue
                    biased, step = debiased
                    new_biased = state_ops.assign_sub(biased, (biased.value() - value) * rate)
                    new_step = state_ops.assign_add(step, array_ops.ones([], dtype=step.dtype.base_dtype))
                    updates.append(state_ops.assign(shadow, new_biased / (1 - math_ops.pow(1 - rate, new_step))).op)
            return control_flow_ops.group(*updates, name=self._name)

    @staticmethod
    def _key(var):
        return var.op.name

    def average(self, var):
        """The shadow variable of ``var`` (None if ``apply`` was not called with it)."""
        return self._averages.get(self._key(var))

    def average_name(self, var) -> str:
        """The name of ``var``'s shadow: its own once ``apply`` made it; before, the name it
        would have under the current name scope (as TF's)."""
        shadow = self.average(var)
        if shadow is not None:
            return shadow.op.name
        return ops.get_default_graph().unique_name(f"{var.op.name}/{self._name}", mark_as_used=False)

    def variables_to_restore(self, moving_avg_variables=None) -> dict:
        """A Saver's var_list that restores each averaged variable from its shadow's checkpoint
        entry (by default the trainable and MOVING_AVERAGE_VARIABLES ones), and every other
        global variable from its own."""
        averaged = list(moving_avg_variables) if moving_avg_variables is not None else \
            state_ops.trainable_variables() + ops.get_collection(GraphKeys.MOVING_AVERAGE_VARIABLES)
        names = {self.average_name(v): v for v in averaged}
        averaged_names = {v.name for v in averaged}
        for v in state_ops.global_variables():
            if v.name not in averaged_names and v.op.name not in names:
                names[v.op.name] = v
        return names
