"""``tf.nn``: activations, softmax and cross-entropy, convolution and pooling, normalization."""

from ._namespace import missing
from .ops.conv_ops import (avg_pool, conv2d, conv2d_backprop_filter, conv2d_backprop_input,  # noqa: F401
                           conv2d_transpose, max_pool)
from .ops.conv_ops import avg_pool2d  # noqa: F401
from .ops.conv_ops import max_pool2d  # noqa: F401
from .ops.manip_ops import depth_to_space, space_to_depth  # noqa: F401
from .ops.math_ops import sigmoid, tanh  # noqa: F401
from .ops.nn_impl import (crelu, embedding_lookup, embedding_lookup_sparse, fused_batch_norm, in_top_k, l2_normalize,  # noqa: F401
                          local_response_normalization, log_poisson_loss, lrn, normalize_moments, relu_layer,
                          safe_embedding_lookup_sparse, selu,
                          sigmoid_cross_entropy_with_logits, silu, softplus, softsign, sufficient_statistics, swish,
                          top_k, weighted_cross_entropy_with_logits, weighted_moments, xw_plus_b, zero_fraction)
from .ops.convolution_ops import (avg_pool1d, avg_pool_v2, conv1d, conv1d_transpose, conv_transpose,  # noqa: F401
                                  convolution, depthwise_conv2d, depthwise_conv2d_native,
                                  depthwise_conv2d_native_backprop_filter,
                                  depthwise_conv2d_native_backprop_input, max_pool1d, max_pool_v2,
                                  max_pool_with_argmax, pool, separable_conv2d, with_space_to_batch)
from .ops.candidate_sampling_ops import (all_candidate_sampler, compute_accidental_hits,  # noqa: F401
                                         fixed_unigram_candidate_sampler, learned_unigram_candidate_sampler,
                                         log_uniform_candidate_sampler, nce_loss, sampled_softmax_loss,
                                         uniform_candidate_sampler)
from .ops.convolution_ops import depthwise_conv2d_backprop_filter, depthwise_conv2d_backprop_input  # noqa: F401
from .ops.nn_ops import batch_norm_with_global_normalization  # noqa: F401
from .ops.conv3d_ops import (avg_pool3d, conv3d, conv3d_backprop_filter, conv3d_transpose,  # noqa: F401
                             max_pool3d)
from .ops.conv3d_ops import conv3d_backprop_filter as conv3d_backprop_filter_v2  # noqa: F401
from .ops.space_batch_ops import atrous_conv2d, atrous_conv2d_transpose, space_to_batch  # noqa: F401
from .ops.nn_ops import (batch_normalization, bias_add, dropout, elu, l2_loss, leaky_relu,  # noqa: F401
                         log_softmax, moments, relu, relu6, softmax, softmax_cross_entropy_with_logits,
                         softmax_cross_entropy_with_logits_v2, sparse_softmax_cross_entropy_with_logits)

from . import rnn_cell  # noqa: F401,E402
from .ops.ctc_ops import (ctc_beam_search_decoder, ctc_beam_search_decoder_v2, ctc_greedy_decoder,  # noqa: F401,E402
                          ctc_loss)
from .layers.rnn import (bidirectional_dynamic_rnn, dynamic_rnn, raw_rnn, static_bidirectional_rnn,  # noqa: F401,E402
                         static_rnn, static_state_saving_rnn)

from .ops.morphology_ops import dilation2d, erosion2d  # noqa: F401
from .ops.fractional_pool_ops import fractional_avg_pool, fractional_max_pool  # noqa: F401,E402
from .ops.ctc_ops import collapse_repeated, ctc_loss_v2, ctc_unique_labels  # noqa: F401

__getattr__ = missing("tf.nn")
