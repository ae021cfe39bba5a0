"""``tf.contrib.training.resample_at_rate`` and ``weighted_resample``: a batch resampled, each
row drawn a Poisson number of times (its rate on average), so that rows weigh in by how
often they appear."""

from __future__ import annotations

from ..framework import dtypes, ops
from ..ops import array_ops, manip_ops, math_ops, random_ops, reduction_ops, slicing_ops
from ..ops import variable_scope as vs
from ..train.moving_averages import assign_moving_average


def resample_at_rate(inputs, rates, scope=None, seed=None, back_prop=False):
    """The rows of each of ``inputs`` ([batch, ...] each), row i repeated a Poisson(``rates[i]``)
    number of times (the same draws for every input)."""
    with ops.name_scope(scope, "resample_at_rate", list(inputs) + [rates]):
        rates = ops.convert_to_tensor(rates, name="rates")
        counts = array_ops.reshape(  # (a vector, even where the rates' shape is known only when it runs)
            math_ops.cast(random_ops.random_poisson(rates, [], dtype=rates.dtype, seed=seed), dtypes.int32), [-1])
        indices = manip_ops.repeat(math_ops.range_(array_ops.shape(counts)[0]), counts)
        if not back_prop:
            indices = array_ops.stop_gradient(indices)
        return [slicing_ops.gather(x, indices) for x in inputs]


def weighted_resample(inputs, weights, overall_rate, scope=None, mean_decay=0.999, seed=None):
    """``inputs`` resampled with rates proportional to ``weights`` ([batch]) and, over many
    batches, ``overall_rate`` on average (the weights' mean is a moving average, a local
    variable): ``(the resampled inputs, the rate each row kept was drawn at)``."""
    with ops.name_scope(scope, "weighted_resample", list(inputs)) as name:
        weights = ops.convert_to_tensor(weights, name="weights")
        with vs.variable_scope(scope, "estimate_mean", list(inputs)):
            estimated = vs.get_local_variable("estimated_mean_weight", initializer=math_ops.cast(0, weights.dtype),
                                              dtype=weights.dtype)
            mean = assign_moving_average(estimated, reduction_ops.reduce_mean(weights), mean_decay)
        rates = weights * overall_rate / mean
        results = resample_at_rate([rates] + list(inputs), rates, scope=name, seed=seed)
        return results[1:], results[0]
