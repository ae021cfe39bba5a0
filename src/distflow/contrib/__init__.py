"""``tf.contrib``: the parts of it that TF 1.x programs use most and distflow has.

TF 1.x's contrib was a collection of separately maintained add-ons; distflow keeps the
recurrent-network names that TensorFlow's own tutorials imported from it (``rnn``,
``seq2seq.sequence_loss``, ``legacy_seq2seq``), the lookup tables of its NLP pipelines
(``lookup``), the layers, initializers, regularizers and argument scopes that models
written with contrib or TF-Slim use (``layers``, ``framework``, ``slim``), the dataset
transformations (``data``), ``training.HParams``, AdamW and LazyAdam (``opt``), the
strategies of TF 1.12-1.13 (``distribute``), the linear-chain CRF of sequence taggers
(``crf``), ``nn``'s variants of tf.nn's ops, the audio features of ``signal`` (the same module as
``tf.signal``), and the
GPU pipelines' ``staging.StagingArea`` and ``nccl`` all-reduce, the streaming
``metrics``, the ``losses`` of TF 1.0-1.2, ``estimator``'s wrappers, ``image``'s projective transforms, the embedding projector's config
(``tensorboard.plugins.projector``), and ``tpu``'s TPUEstimator as programs written for TPUs
run it on CPUs and GPUs (with ``cluster_resolver``'s resolvers), ``learn.ModeKeys``, and ``util``'s
``constant_value``; ``keras``, ``linalg`` and ``distributions``, which TF 1.2-1.5 kept here
before they became ``tf.keras``, ``tf.linalg`` and ``tf.distributions`` (the same modules),
``deprecated``'s summary functions of TF 0.12, ``sparsemax``, ``stateless``, ``all_reduce``,
``factorization``'s k-means, ``feature_column``'s sequence columns, ``cudnn_rnn``'s layers (any
device: cuDNN's equations, not its library), ``resampler``'s bilinear sampler, ``tensor_forest``'s
random forests and ``summary``'s self-writing summaries. Everything else is missing, and says so.
"""

import sys

from .._namespace import missing
from .. import signal  # noqa: F401 - TF 1.x's tf.contrib.signal became tf.signal
from .. import distributions, linalg  # noqa: F401 - TF 1.4-1.5 had them in contrib before they moved
from . import (all_reduce, cluster_resolver, crf, cudnn_rnn, data, deprecated, distribute, estimator,  # noqa: F401
               factorization, feature_column, framework, image, keras, layers, learn, legacy_seq2seq, lookup, losses,
               metrics, nccl, nn, opt, resampler, rnn, seq2seq, slim, sparsemax, staging, stateless, summary,
               tensor_forest, tensorboard, tpu, training, util)

from . import _tf_paths  # noqa: E402 - TF's module paths inside the parts (tensorflow.contrib.<part>.python...)

_tf_paths.install(sys.modules[__name__])

__getattr__ = missing("tf.contrib")
