"""``tf.nn``: activations, softmax and cross-entropy, convolution and pooling, normalization."""

from ._namespace import missing
from .ops.conv_ops import avg_pool, conv2d, max_pool  # noqa: F401
from .ops.math_ops import sigmoid, tanh  # noqa: F401
from .ops.nn_impl import (embedding_lookup, in_top_k, l2_normalize, local_response_normalization,  # noqa: F401
                          lrn, relu_layer, sigmoid_cross_entropy_with_logits, softplus, softsign, top_k,
                          weighted_cross_entropy_with_logits, xw_plus_b, zero_fraction)
from .ops.nn_ops import (batch_normalization, bias_add, dropout, elu, l2_loss, leaky_relu,  # noqa: F401
                         log_softmax, moments, relu, relu6, softmax, softmax_cross_entropy_with_logits,
                         softmax_cross_entropy_with_logits_v2, sparse_softmax_cross_entropy_with_logits)

__getattr__ = missing("tf.nn")
