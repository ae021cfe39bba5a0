"""``tf.contrib``: the parts of it that TF 1.x programs use most and distflow has.

TF 1.x's contrib was a collection of separately maintained add-ons; distflow keeps the
recurrent-network names that TensorFlow's own tutorials imported from it (``rnn``,
``seq2seq.sequence_loss``, ``legacy_seq2seq``), the lookup tables of its NLP pipelines
(``lookup``), and the layers, initializers, regularizers and argument scopes that models
written with contrib or TF-Slim use (``layers``, ``framework``, ``slim``). Everything else is
missing, and says so.
"""

from .._namespace import missing
from . import data, framework, layers, legacy_seq2seq, lookup, rnn, seq2seq, slim  # noqa: F401

__getattr__ = missing("tf.contrib")
