"""``tf.version``: the TensorFlow API that distflow implements, distflow's own release, and
the graph format it writes.

``VERSION`` (and ``tf.__version__``, ``tf.VERSION``) is the TF 1.x API level, "1.15.0", so
that a TF 1.x program's version checks (``tf.__version__.startswith("1.")``,
``LooseVersion(tf.__version__) >= "1.4"``) take the branch written for TF 1.x.
distflow's own release is ``DISTFLOW_VERSION`` (``distflow --version`` prints both), and
``GIT_VERSION`` names it, as TF's names a build; meta graphs record the API level and that
build as TensorFlow's record its version and build.
"""

from .framework.wire import GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER  # noqa: F401

DISTFLOW_VERSION = "0.1.0"
VERSION = "1.15.0"  # the TensorFlow 1.x API distflow implements
GIT_VERSION = f"distflow-{DISTFLOW_VERSION}"
COMPILER_VERSION = "python"
GRAPH_DEF_VERSION_MIN_PRODUCER = 0
