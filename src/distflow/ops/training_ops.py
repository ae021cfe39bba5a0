"""Fused optimizer updates (ApplyGradientDescent, ApplyMomentum, ApplyAdam, ...).

Each kernel updates its variable (and slots) in place, under the variable's lock
when ``use_locking`` is set, and outputs the variable's reference, as in TF.
"""

from __future__ import annotations

import typing

from ..framework import dtypes
from ..framework.registry import not_differentiable, register_op
from . import blas, intra_op
from .math_ops import writable_like
from .op_util import make_op, make_tensor
from .state_ops import locked


def _ref_shape(op):
    return op.inputs[0].shape


def _ref_dtype(op):
    return op.inputs[0].dtype._as_ref


def checked_value(var, grad, op_name):
    """The variable's value, where the gradient has its shape (else a ValueError naming both)."""
    value = var.read()
    if value.shape != grad.shape:
        raise ValueError(f"{op_name}: var '{var.name}' has shape {list(value.shape)} but the gradient "
                         f"has shape {list(grad.shape)}")
    return value


def _apply(op_type, ref_inputs):
    return register_op(op_type, shape=_ref_shape, dtype=_ref_dtype, stateful=True, ref_inputs=ref_inputs)


@register_op("ApplyGradientDescent", shape=_ref_shape, dtype=_ref_dtype, stateful=True, ref_inputs=(0,),
             inplace_input=2)
def _apply_gradient_descent(xp, var, alpha, delta, *, use_locking=False, inplace=False):
    with locked(var, use_locking):
        w = checked_value(var, delta, "ApplyGradientDescent")
        if not blas.axpy(delta, w, -float(alpha)):  # one pass, no temporary
            # (no BLAS for it: with the gradient's buffer ours (inplace), scale it there)
            w -= xp.multiply(delta, alpha, out=writable_like(delta) if inplace else None)
    return var


@_apply("ApplyMomentum", (0, 1))
def _apply_momentum(xp, var, accum, lr, grad, momentum, *, use_locking=False, use_nesterov=False):
    with locked(var, use_locking):
        w, a = checked_value(var, grad, "ApplyMomentum"), accum.read()
        a *= momentum
        a += grad
        if use_nesterov:
            w -= lr * (grad + momentum * a)
        else:
            w -= lr * a
    return var


def _add_scaled(xp, x, y, alpha) -> None:
    """``y += alpha * x`` in place: one BLAS pass where it can, else NumPy's two."""
    if not blas.axpy(x, y, float(alpha)):
        y += xp.multiply(x, alpha, dtype=y.dtype)


@_apply("ApplyAdam", (0, 1, 2))
def _apply_adam(xp, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, *,
                use_locking=False, use_nesterov=False):
    with locked(var, use_locking):
        w, m_, v_ = checked_value(var, grad, "ApplyAdam"), m.read(), v.read()
        lr_t = lr * xp.sqrt(1 - beta2_power) / (1 - beta1_power)
        if w.size >= 4 * _ADAM_CHUNK and not use_nesterov and all(
                a.flags.c_contiguous and a.dtype == w.dtype for a in (m_, v_, grad)):
            flat = [a.reshape(-1) for a in (w, m_, v_, grad)]
            chunks = -(-w.size // _ADAM_CHUNK)

            def update(a, b):  # (chunks a to b)
                part = slice(a * _ADAM_CHUNK, b * _ADAM_CHUNK)
                _adam_in_chunks(xp, *(f[part] for f in flat), beta1, beta2, epsilon, lr_t)

            intra_op.run_split(chunks, 4 * w.nbytes, update)
            return var
        # In place, through one scratch array, with BLAS's y += a*x where it applies: a
        # 3.2M-element layer took 14.7 ms a step with a temporary per operation (as many
        # passes over memory as operators); this makes 9 passes.
        m_ *= beta1
        _add_scaled(xp, grad, m_, 1 - beta1)
        scratch = xp.multiply(grad, grad, out=xp.empty_like(v_))  # (an array even for a scalar variable)
        v_ *= beta2
        _add_scaled(xp, scratch, v_, 1 - beta2)
        step = (m_ * beta1 + (1 - beta1) * grad) if use_nesterov else m_
        xp.sqrt(v_, out=scratch)
        scratch += epsilon
        xp.divide(step, scratch, out=scratch)
        _add_scaled(xp, scratch, w, -lr_t)
    return var


# Elements per chunk: five float32 arrays of this many fit in a 1 MB L2 cache.
_ADAM_CHUNK = 1 << 16


def _adam_in_chunks(xp, w, m, v, grad, beta1, beta2, epsilon, lr_t) -> None:
    """Adam's nine passes over memory made chunk by chunk, each chunk staying in cache: a
    3.2M-element layer took 10.2 ms a step in whole-array passes, 8.7 ms so."""
    scratch = xp.empty(_ADAM_CHUNK, dtype=w.dtype)
    a1, a2 = w.dtype.type(1 - beta1), w.dtype.type(1 - beta2)
    for start in range(0, w.size, _ADAM_CHUNK):
        end = min(start + _ADAM_CHUNK, w.size)
        s, mm, vv, g = scratch[:end - start], m[start:end], v[start:end], grad[start:end]
        mm *= beta1
        xp.multiply(g, a1, out=s)
        mm += s
        xp.multiply(g, g, out=s)
        vv *= beta2
        s *= a2
        vv += s
        xp.sqrt(vv, out=s)
        s += epsilon
        xp.divide(mm, s, out=s)
        s *= lr_t
        w[start:end] -= s


@_apply("ApplyAdaMax", (0, 1, 2))
def _apply_ada_max(xp, var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad, *, use_locking=False):
    """AdaMax (Kingma and Ba): m = b1 m + (1 - b1) g; v = max(b2 v, |g|);
    var -= lr / (1 - b1^t) * m / (v + epsilon)."""
    with locked(var, use_locking):
        w, m_, v_ = checked_value(var, grad, "ApplyAdaMax"), m.read(), v.read()
        m_ *= beta1
        m_ += (1 - beta1) * grad
        xp.maximum(beta2 * v_, xp.abs(grad), out=v_)
        w -= lr / (1 - beta1_power) * (m_ / (v_ + epsilon))
    return var


def _signed_step(xp, var, m, lr, beta, grad, multiplier, op_name):
    """AddSign's and PowerSign's shared update: m's moving average, then var -= lr *
    multiplier(sign(g) sign(m)) * g."""
    w, m_ = checked_value(var, grad, op_name), m.read()
    m_ *= beta
    m_ += (1 - beta) * grad
    w -= lr * multiplier(xp.sign(grad) * xp.sign(m_)) * grad


@_apply("ApplyAddSign", (0, 1))
def _apply_add_sign(xp, var, m, lr, alpha, sign_decay, beta, grad, *, use_locking=False):
    """AddSign (Bello et al.): var -= lr * (alpha + sign_decay sign(g) sign(m)) * g."""
    with locked(var, use_locking):
        _signed_step(xp, var, m, lr, beta, grad, lambda agree: alpha + sign_decay * agree, "ApplyAddSign")
    return var


@_apply("ApplyPowerSign", (0, 1))
def _apply_power_sign(xp, var, m, lr, logbase, sign_decay, beta, grad, *, use_locking=False):
    """PowerSign (Bello et al.): var -= lr * exp(logbase sign_decay sign(g) sign(m)) * g."""
    with locked(var, use_locking):
        _signed_step(xp, var, m, lr, beta, grad, lambda agree: xp.exp(logbase * sign_decay * agree),
                     "ApplyPowerSign")
    return var


@_apply("ApplyAdagrad", (0, 1))
def _apply_adagrad(xp, var, accum, lr, grad, *, use_locking=False):
    with locked(var, use_locking):
        w, a = checked_value(var, grad, "ApplyAdagrad"), accum.read()
        a += grad * grad
        w -= lr * grad / xp.sqrt(a)
    return var


@_apply("ApplyAdagradV2", (0, 1))
def _apply_adagrad_v2(xp, var, accum, lr, epsilon, grad, *, use_locking=False, update_slots=True):
    """Adagrad with epsilon in the denominator (TensorFlow's Keras Adagrad)."""
    with locked(var, use_locking):
        w, a = checked_value(var, grad, "ApplyAdagradV2"), accum.read()
        if update_slots:
            a += grad * grad
        w -= lr * grad / (xp.sqrt(a) + epsilon)
    return var


@_apply("ApplyRMSProp", (0, 1, 2))
def _apply_rms_prop(xp, var, ms, mom, lr, rho, momentum, epsilon, grad, *, use_locking=False):
    with locked(var, use_locking):
        w, ms_, mom_ = checked_value(var, grad, "ApplyRMSProp"), ms.read(), mom.read()
        ms_ += (grad * grad - ms_) * (1 - rho)
        mom_ *= momentum
        mom_ += lr * grad / xp.sqrt(ms_ + epsilon)
        w -= mom_
    return var


@_apply("ApplyCenteredRMSProp", (0, 1, 2, 3))
def _apply_centered_rms_prop(xp, var, mg, ms, mom, lr, rho, momentum, epsilon, grad, *, use_locking=False):
    with locked(var, use_locking):
        w, mg_, ms_, mom_ = checked_value(var, grad, "ApplyCenteredRMSProp"), mg.read(), ms.read(), mom.read()
        mg_ += (grad - mg_) * (1 - rho)
        ms_ += (grad * grad - ms_) * (1 - rho)
        mom_ *= momentum
        mom_ += lr * grad / xp.sqrt(ms_ - mg_ * mg_ + epsilon)
        w -= mom_
    return var


def _adadelta(xp, w, a, u, lr, rho, epsilon, grad) -> None:
    """Adadelta's step on arrays (a whole variable, or the rows a sparse update gathered)."""
    a *= rho
    a += (1 - rho) * grad * grad
    update = xp.sqrt(u + epsilon) / xp.sqrt(a + epsilon) * grad
    u *= rho
    u += (1 - rho) * update * update
    w -= lr * update


@_apply("ApplyAdadelta", (0, 1, 2))
def _apply_adadelta(xp, var, accum, accum_update, lr, rho, epsilon, grad, *, use_locking=False):
    with locked(var, use_locking):
        _adadelta(xp, checked_value(var, grad, "ApplyAdadelta"), accum.read(), accum_update.read(), lr, rho,
                  epsilon, grad)
    return var


def _proximal(xp, prox, lr_t, l1, l2):
    """The L1/L2 proximal step of TF's proximal optimizers."""
    if l1 > 0:
        return xp.sign(prox) * xp.maximum(xp.abs(prox) - lr_t * l1, 0) / (1 + lr_t * l2)
    return prox / (1 + lr_t * l2)


def _proximal_adagrad(xp, w, a, lr, l1, l2, grad) -> None:
    a += grad * grad
    lr_t = lr / xp.sqrt(a)
    w[...] = _proximal(xp, w - lr_t * grad, lr_t, l1, l2)


def _ftrl(xp, w, a, z, grad, lr, l1, l2, l2_shrinkage, lr_power) -> None:
    shrunk = grad + 2 * l2_shrinkage * w
    new_a = a + grad * grad
    z += shrunk - (new_a ** -lr_power - a ** -lr_power) / lr * w
    quadratic = new_a ** -lr_power / lr + 2 * l2
    w[...] = xp.where(xp.abs(z) > l1, (xp.sign(z) * l1 - z) / quadratic, 0)
    a[...] = new_a


def _adagrad_da(xp, w, g_acc, gg_acc, grad, lr, l1, l2, global_step) -> None:
    """Adagrad's dual averaging (Duchi et al.): the variable is recomputed from the sums of
    the gradients and of their squares, shrunk by L1 (times the step) and L2."""
    g_acc += grad
    gg_acc += grad * grad
    summed = g_acc
    if l1 > 0:
        summed = xp.sign(g_acc) * xp.maximum(xp.abs(g_acc) - l1 * global_step, 0)
    w[...] = -lr * summed / (l2 * global_step * lr + xp.sqrt(gg_acc))


@_apply("ApplyAdagradDA", (0, 1, 2))
def _apply_adagrad_da(xp, var, g_acc, gg_acc, grad, lr, l1, l2, global_step, *, use_locking=False):
    with locked(var, use_locking):
        _adagrad_da(xp, checked_value(var, grad, "ApplyAdagradDA"), g_acc.read(), gg_acc.read(), grad, lr, l1, l2,
                    float(global_step))
    return var


@_apply("ApplyProximalGradientDescent", (0,))
def _apply_proximal_gd(xp, var, alpha, l1, l2, delta, *, use_locking=False):
    with locked(var, use_locking):
        w = checked_value(var, delta, "ApplyProximalGradientDescent")
        w[...] = _proximal(xp, w - alpha * delta, alpha, l1, l2)
    return var


@_apply("ApplyProximalAdagrad", (0, 1))
def _apply_proximal_adagrad(xp, var, accum, lr, l1, l2, grad, *, use_locking=False):
    with locked(var, use_locking):
        _proximal_adagrad(xp, checked_value(var, grad, "ApplyProximalAdagrad"), accum.read(), lr, l1, l2, grad)
    return var


@_apply("ApplyFtrlV2", (0, 1, 2))
def _apply_ftrl(xp, var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power, *, use_locking=False):
    with locked(var, use_locking):
        _ftrl(xp, checked_value(var, grad, "ApplyFtrlV2"), accum.read(), linear.read(), grad, lr, l1, l2,
              l2_shrinkage, lr_power)
    return var


# Sparse updates: ``grad`` holds the gradients of rows ``indices`` (unique); only those rows move,
# and only their slots, as TF's SparseApply* kernels do.


def _rows(var, grad, indices, op_name):
    value = var.read()
    n = value.shape[0]
    if indices.size and (indices.min() < 0 or indices.max() >= n):
        raise ValueError(f"{op_name}: index {indices.max()} is out of range for variable '{var.name}' of "
                         f"{n} rows")
    if grad.shape[1:] != value.shape[1:] or grad.shape[0] != indices.shape[0]:
        raise ValueError(f"{op_name}: var '{var.name}' has rows of shape {list(value.shape[1:])}, the gradient "
                         f"{list(grad.shape)} for {indices.shape[0]} indices")
    return value


@_apply("SparseApplyMomentum", (0, 1))
def _sparse_apply_momentum(xp, var, accum, lr, grad, indices, momentum, *, use_locking=False, use_nesterov=False):
    with locked(var, use_locking):
        w, a = _rows(var, grad, indices, "SparseApplyMomentum"), accum.read()
        a[indices] = a[indices] * momentum + grad
        w[indices] -= lr * (grad + momentum * a[indices] if use_nesterov else a[indices])
    return var


@_apply("SparseApplyAdagrad", (0, 1))
def _sparse_apply_adagrad(xp, var, accum, lr, grad, indices, *, use_locking=False):
    with locked(var, use_locking):
        w, a = _rows(var, grad, indices, "SparseApplyAdagrad"), accum.read()
        a[indices] += grad * grad
        w[indices] -= lr * grad / xp.sqrt(a[indices])
    return var


@_apply("SparseApplyRMSProp", (0, 1, 2))
def _sparse_apply_rms_prop(xp, var, ms, mom, lr, rho, momentum, epsilon, grad, indices, *, use_locking=False):
    with locked(var, use_locking):
        w, ms_, mom_ = _rows(var, grad, indices, "SparseApplyRMSProp"), ms.read(), mom.read()
        ms_[indices] = ms_[indices] * rho + (1 - rho) * grad * grad
        mom_[indices] = mom_[indices] * momentum + lr * grad / xp.sqrt(ms_[indices] + epsilon)
        w[indices] -= mom_[indices]
    return var


@_apply("SparseApplyCenteredRMSProp", (0, 1, 2, 3))
def _sparse_apply_centered_rms_prop(xp, var, mg, ms, mom, lr, rho, momentum, epsilon, grad, indices, *,
                                    use_locking=False):
    with locked(var, use_locking):
        w = _rows(var, grad, indices, "SparseApplyCenteredRMSProp")
        mg_, ms_, mom_ = mg.read(), ms.read(), mom.read()
        mg_[indices] = mg_[indices] * rho + (1 - rho) * grad
        ms_[indices] = ms_[indices] * rho + (1 - rho) * grad * grad
        denominator = ms_[indices] - mg_[indices] * mg_[indices] + epsilon
        mom_[indices] = mom_[indices] * momentum + lr * grad / xp.sqrt(denominator)
        w[indices] -= mom_[indices]
    return var


def _on_rows(step, xp, indices, arrays, *rest) -> None:
    """``step`` (a dense update's math) on the rows ``indices`` of ``arrays`` (the variable and
    its slots), written back: rows not named keep their values and their slots."""
    rows = [a[indices] for a in arrays]
    step(xp, *rows, *rest)
    for a, r in zip(arrays, rows):
        a[indices] = r


@_apply("SparseApplyAdadelta", (0, 1, 2))
def _sparse_apply_adadelta(xp, var, accum, accum_update, lr, rho, epsilon, grad, indices, *, use_locking=False):
    with locked(var, use_locking):
        w = _rows(var, grad, indices, "SparseApplyAdadelta")
        _on_rows(_adadelta, xp, indices, (w, accum.read(), accum_update.read()), lr, rho, epsilon, grad)
    return var


@_apply("SparseApplyProximalGradientDescent", (0,))
def _sparse_apply_proximal_gd(xp, var, alpha, l1, l2, grad, indices, *, use_locking=False):
    with locked(var, use_locking):
        w = _rows(var, grad, indices, "SparseApplyProximalGradientDescent")
        w[indices] = _proximal(xp, w[indices] - alpha * grad, alpha, l1, l2)
    return var


@_apply("SparseApplyProximalAdagrad", (0, 1))
def _sparse_apply_proximal_adagrad(xp, var, accum, lr, l1, l2, grad, indices, *, use_locking=False):
    with locked(var, use_locking):
        w = _rows(var, grad, indices, "SparseApplyProximalAdagrad")
        _on_rows(_proximal_adagrad, xp, indices, (w, accum.read()), lr, l1, l2, grad)
    return var


@_apply("SparseApplyAdagradDA", (0, 1, 2))
def _sparse_apply_adagrad_da(xp, var, g_acc, gg_acc, grad, indices, lr, l1, l2, global_step, *, use_locking=False):
    with locked(var, use_locking):
        w = _rows(var, grad, indices, "SparseApplyAdagradDA")
        _on_rows(_adagrad_da, xp, indices, (w, g_acc.read(), gg_acc.read()), grad, lr, l1, l2, float(global_step))
    return var


@_apply("SparseApplyFtrlV2", (0, 1, 2))
def _sparse_apply_ftrl(xp, var, accum, linear, grad, indices, lr, l1, l2, l2_shrinkage, lr_power, *,
                       use_locking=False):
    with locked(var, use_locking):
        w = _rows(var, grad, indices, "SparseApplyFtrlV2")
        _on_rows(_ftrl, xp, indices, (w, accum.read(), linear.read()), grad, lr, l1, l2, l2_shrinkage, lr_power)
    return var


for _t in ("SparseApplyMomentum", "SparseApplyAdagrad", "SparseApplyRMSProp", "SparseApplyCenteredRMSProp",
           "SparseApplyAdadelta", "SparseApplyProximalGradientDescent", "SparseApplyProximalAdagrad",
           "SparseApplyFtrlV2", "SparseApplyAdagradDA"):
    not_differentiable(_t)


for _t in ("ApplyGradientDescent", "ApplyMomentum", "ApplyAdam", "ApplyAdagrad", "ApplyRMSProp",
           "ApplyCenteredRMSProp", "ApplyAdadelta", "ApplyProximalGradientDescent", "ApplyProximalAdagrad",
           "ApplyFtrlV2", "ApplyAdagradDA"):
    not_differentiable(_t)


class Applied(typing.NamedTuple):
    """An update of a resource variable (which outputs nothing): the op that makes it."""
    op: object


def apply(op_type: str, inputs, use_locking: bool, name: str, **attrs):
    """The update ``op_type`` of the variable ``inputs[0]``: its output (the variable's
    reference); or, for a resource variable's handle (TensorFlow's, imported), its
    ``Resource`` twin (resource_variable_ops.py), as an ``Applied``."""
    attrs = {"use_locking": bool(use_locking), **attrs}
    if inputs[0].dtype.base_dtype == dtypes.resource:
        return Applied(make_op("Resource" + op_type, inputs, attrs, name))
    return make_tensor(op_type, inputs, attrs, name)
