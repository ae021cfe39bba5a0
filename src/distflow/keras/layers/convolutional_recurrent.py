"""``ConvLSTM2D``: an LSTM whose input and recurrent products are 2-D convolutions, over a
sequence of images ``[batch, time, rows, cols, channels]`` (Keras's weight layout and
defaults, as TF 1.15's ``tf.keras.layers.ConvLSTM2D``).

The input's convolutions for every time step are one convolution over all of them, made
before the loop; the loop (one ``while_loop``, so sequences of unknown length run too) adds
the state's convolution (``same`` padding, stride 1) and applies the gates. With dropout,
each gate has its own mask, as in Keras. A mask keeps a step's state where the step is
masked; a mask with image axes (``Masking``'s) masks a step where every pixel is masked.
"""

from __future__ import annotations

from ... import (TensorArray, cast, concat, nn, ones_like, reduce_any, reshape, reverse, stack, transpose, while_loop,
                 zeros)
from ... import shape as shape_of
from ...framework import ops
from ...framework.tensor_shape import TensorShape
from .. import activations, backend as K
from ..engine.base_layer import InputSpec, Layer
from .convolutional import _padding, _tuple


def _conv_length(size, kernel: int, padding: str, stride: int, dilation: int):
    if size is None:
        return None
    span = (kernel - 1) * dilation + 1
    return -(-size // stride) if padding == "SAME" else -(-(size - span + 1) // stride)


class ConvLSTM2D(Layer):
    """Gates in Keras's order (input, forget, cell, output), each ``filters`` channels of the
    kernels ``[kh, kw, channels, 4 * filters]`` and ``[kh, kw, filters, 4 * filters]``."""

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1),
                 activation="tanh", recurrent_activation="hard_sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal", bias_initializer="zeros",
                 unit_forget_bias=True, kernel_regularizer=None, recurrent_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, recurrent_constraint=None, bias_constraint=None,
                 return_sequences=False, go_backwards=False, stateful=False, dropout=0.0, recurrent_dropout=0.0,
                 return_state=False, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if stateful:
            raise NotImplementedError("stateful recurrent layers are not supported")
        self.filters = int(filters)
        self.kernel_size = _tuple(kernel_size, 2, "kernel_size")
        self.strides = _tuple(strides, 2, "strides")
        self.padding = _padding(padding)
        self.data_format = data_format or K.image_data_format()
        self.dilation_rate = _tuple(dilation_rate, 2, "dilation_rate")
        self.activation = activations.get(activation)
        self.recurrent_activation = activations.get(recurrent_activation)
        self.use_bias, self.unit_forget_bias = use_bias, unit_forget_bias
        self._set_weight_options(
            kernel_initializer=kernel_initializer, recurrent_initializer=recurrent_initializer,
            bias_initializer=bias_initializer, kernel_regularizer=kernel_regularizer,
            recurrent_regularizer=recurrent_regularizer, bias_regularizer=bias_regularizer,
            kernel_constraint=kernel_constraint, recurrent_constraint=recurrent_constraint,
            bias_constraint=bias_constraint)
        self.return_sequences, self.return_state, self.go_backwards = return_sequences, return_state, go_backwards
        self.dropout = min(1.0, max(0.0, float(dropout)))
        self.recurrent_dropout = min(1.0, max(0.0, float(recurrent_dropout)))
        self.input_spec = InputSpec(ndim=5)
        self.supports_masking = True

    @property
    def _channels_first(self) -> bool:
        return self.data_format == "channels_first"

    def build(self, input_shape):
        shape = TensorShape(input_shape[0] if isinstance(input_shape, list) else input_shape)
        channels = shape[2 if self._channels_first else -1].value
        if channels is None:
            raise ValueError("The channel dimension of the inputs should be defined. Found `None`.")
        f = self.filters
        self.kernel = self.add_weight("kernel", self.kernel_size + (channels, 4 * f),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight("recurrent_kernel", self.kernel_size + (f, 4 * f),
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)
        self.bias = None
        if self.use_bias:
            initializer = self.bias_initializer
            if self.unit_forget_bias:
                base = self.bias_initializer

                def initializer(shape, dtype=None, partition_info=None):
                    return concat([base((f,), dtype=dtype), K.ones((f,), dtype=dtype), base((2 * f,), dtype=dtype)], 0)

            self.bias = self.add_weight("bias", (4 * f,), initializer=initializer, regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        self.built = True

    def _input_conv(self, x, kernel):
        return nn.conv2d(x, kernel, (1,) + self.strides + (1,), self.padding,
                         dilations=(1,) + self.dilation_rate + (1,))

    def _masks(self, like, rate, training) -> list | None:
        """Four dropout masks shaped as ``like`` (one a gate), or None without dropout."""
        if not rate:
            return None
        ones = ones_like(like)
        return [K.in_train_phase(lambda: nn.dropout(ones, rate=rate), lambda: ones, training) for _ in range(4)]

    def call(self, inputs, mask=None, training=None, initial_state=None):
        if isinstance(inputs, (list, tuple)):
            inputs, initial_state = inputs[0], list(inputs[1:]) or initial_state
        f = self.filters
        x = transpose(inputs, [1, 0, 3, 4, 2] if self._channels_first else [1, 0, 2, 3, 4])  # time-major, NHWC
        if self.go_backwards:
            x = reverse(x, [0])
        dims = shape_of(x)
        steps, batch = dims[0], dims[1]
        frames = reshape(x, stack([-1, dims[2], dims[3], dims[4]]))  # every step's image, at once
        x_masks = self._masks(x[0], self.dropout, training)
        if x_masks is None:
            projected = self._input_conv(frames, self.kernel)
        else:  # (each gate's input dropped out by its own mask, the same one at every step)
            parts = []
            for g, m in enumerate(x_masks):
                dropped = reshape(x * m, stack([-1, dims[2], dims[3], dims[4]]))
                parts.append(self._input_conv(dropped, self.kernel[..., g * f:(g + 1) * f]))
            projected = concat(parts, 3)
        if self.use_bias:
            projected = nn.bias_add(projected, self.bias)
        out_dims = shape_of(projected)
        projected = reshape(projected, stack([steps, batch, out_dims[1], out_dims[2], 4 * f]))
        rows = _conv_length(x.shape[2].value, self.kernel_size[0], self.padding, self.strides[0],
                            self.dilation_rate[0])
        cols = _conv_length(x.shape[3].value, self.kernel_size[1], self.padding, self.strides[1],
                            self.dilation_rate[1])
        state_shape = TensorShape([inputs.shape[0].value, rows, cols, f])
        if initial_state is not None:
            states = [ops.convert_to_tensor(s) for s in initial_state]
            if self._channels_first:
                states = [transpose(s, [0, 2, 3, 1]) for s in states]
        else:
            states = [zeros(stack([batch, out_dims[1], out_dims[2], f]), dtype=inputs.dtype) for _ in range(2)]
        h_masks = self._masks(states[0], self.recurrent_dropout, training)
        xs = TensorArray(inputs.dtype, size=steps).unstack(projected)
        masks = None
        if mask is not None:
            if mask.shape.ndims is not None and mask.shape.ndims > 2:  # (Masking's: a step is kept if any pixel is)
                mask = reduce_any(mask, list(range(2, mask.shape.ndims)))
            m = transpose(cast(mask, inputs.dtype), [1, 0])
            masks = TensorArray(inputs.dtype, size=steps).unstack(reverse(m, [0]) if self.go_backwards else m)
        outputs = TensorArray(inputs.dtype, size=steps)

        def recurrent(h):
            if h_masks is None:
                return nn.conv2d(h, self.recurrent_kernel, (1, 1, 1, 1), "SAME")
            return concat([nn.conv2d(h * m, self.recurrent_kernel[..., g * f:(g + 1) * f], (1, 1, 1, 1), "SAME")
                           for g, m in enumerate(h_masks)], 3)

        def body(t, outputs, h, c):
            z = xs.read(t) + recurrent(h)
            i = self.recurrent_activation(z[..., :f])
            forget = self.recurrent_activation(z[..., f:2 * f])
            new_c = forget * c + i * self.activation(z[..., 2 * f:3 * f])
            new_h = self.recurrent_activation(z[..., 3 * f:]) * self.activation(new_c)
            if masks is not None:
                keep = reshape(masks.read(t), [-1, 1, 1, 1])
                new_h = keep * new_h + (1.0 - keep) * h
                new_c = keep * new_c + (1.0 - keep) * c
            new_h.set_shape(state_shape)
            new_c.set_shape(state_shape)
            return t + 1, outputs.write(t, new_h), new_h, new_c

        for s in states:
            s.set_shape(state_shape)
        with ops.name_scope("while"):
            _, outputs, h, c = while_loop(lambda t, *_: t < steps, body, [ops.convert_to_tensor(0), outputs] + states)
        if self.return_sequences:
            out = outputs.stack()
            out.set_shape(TensorShape([inputs.shape[1].value]).concatenate(state_shape))
            out = transpose(out, [1, 0, 4, 2, 3] if self._channels_first else [1, 0, 2, 3, 4])
        else:
            out = transpose(h, [0, 3, 1, 2]) if self._channels_first else h
        if self.return_state:
            finals = [transpose(s, [0, 3, 1, 2]) if self._channels_first else s for s in (h, c)]
            return [out] + finals
        return out

    def compute_mask(self, inputs, mask=None):
        return mask if self.return_sequences and not self.return_state else None

    def get_config(self):
        return {**super().get_config(), "filters": self.filters, "kernel_size": self.kernel_size,
                "strides": self.strides, "padding": self.padding.lower(), "data_format": self.data_format,
                "dilation_rate": self.dilation_rate, "unit_forget_bias": self.unit_forget_bias,
                "return_sequences": self.return_sequences, "return_state": self.return_state,
                "go_backwards": self.go_backwards, "stateful": False, **self._options_config(
                    "activation", "recurrent_activation", "use_bias", "kernel_initializer", "recurrent_initializer",
                    "bias_initializer", "kernel_regularizer", "recurrent_regularizer", "bias_regularizer",
                    "activity_regularizer", "kernel_constraint", "recurrent_constraint", "bias_constraint", "dropout",
                    "recurrent_dropout")}
