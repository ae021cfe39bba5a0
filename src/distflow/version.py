"""``tf.version``: which distflow this is, and the TensorFlow graph format it writes."""

from .framework.wire import GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER  # noqa: F401

VERSION = "0.1.0"
GIT_VERSION = f"distflow-{VERSION}"
COMPILER_VERSION = "python"
GRAPH_DEF_VERSION_MIN_PRODUCER = 0
