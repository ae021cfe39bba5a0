"""What README and the docs say of the tree (counts, names, commands) is checked against it."""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def test_readme_counts_the_tf1_programs_in_examples():
    said = re.search(r"`examples/tf1/` holds (\d+) TF 1\.x programs", _read("README.md"))
    programs = [n for n in os.listdir(os.path.join(ROOT, "examples", "tf1")) if n.endswith(".py")
                and not n.startswith("_")]
    assert said and int(said.group(1)) == len(programs), f"README says {said and said.group(1)}, the tree has {len(programs)}"


def test_the_subcommands_readme_names_are_the_ones_distflow_has():
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    bare = subprocess.run([sys.executable, "-m", "distflow.tools.cli"], capture_output=True, text=True, env=env,
                          timeout=60)
    listed = set(re.search(r"\{([a-z,-]+)\}", bare.stdout).group(1).split(","))
    assert listed == {"demo", "launch", "server", "graph", "convert-checkpoint", "freeze-graph"}
    named = set(re.findall(r"`distflow (demo|launch|server|graph|convert-checkpoint|freeze-graph)\b",
                           _read("README.md")))
    assert named and named <= listed
    version = subprocess.run([sys.executable, "-m", "distflow.tools.cli", "--version"], capture_output=True,
                             text=True, env=env, timeout=60)
    assert version.returncode == 0 and "TensorFlow 1.15.0 API" in version.stdout


def test_design_notes_do_not_call_built_features_planned():
    design = _read("docs/design.md")
    assert "Planned, not built yet: authentication and TLS" not in design
    assert "TLS" in _read("README.md")


def test_a_misspelled_name_is_not_called_a_missing_tf_feature_and_gets_suggestions():
    import pytest

    import distflow as tf

    with pytest.raises(AttributeError) as typo:
        tf.placehoder  # noqa: B018
    assert "TensorFlow 1.x has no 'tf.placehoder'" in str(typo.value) and "tf.placeholder" in str(typo.value)
    with pytest.raises(AttributeError) as typo:
        tf.train.AdamOptimiser  # noqa: B018
    assert "did you mean tf.train.AdamOptimizer" in str(typo.value)
    for name, status in (("nn.quantized_conv2d", "not supported"), ("ragged", "not supported"), ("quantize", "not supported"),
                         ("enable_v2_behavior", "out of scope")):
        namespace, _, attr = name.rpartition(".")
        with pytest.raises(AttributeError) as lacking:
            getattr(getattr(tf, namespace) if namespace else tf, attr)
        assert "docs/compat.md lists it" in str(lacking.value) and status in str(lacking.value), str(lacking.value)
    with pytest.raises(AttributeError) as lacking:  # a namespace listed as a whole: its row, quoted
        tf.contrib.gan  # noqa: B018
    assert "docs/compat.md lists `tf.contrib` as partial" in str(lacking.value), str(lacking.value)
    assert "| `tf.contrib` | partial" in open(os.path.join(ROOT, "docs", "compat.md"), encoding="utf-8").read()


def test_tf_version_is_the_tf1_api_level_and_distflows_own_is_apart():
    import distflow as tf

    assert tf.__version__ == tf.VERSION == tf.version.VERSION == "1.15.0"
    assert tf.__version__.startswith("1.") and tf.version.DISTFLOW_VERSION


def test_launch_without_a_command_shows_launchs_own_usage():
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    out = subprocess.run([sys.executable, "-m", "distflow.tools.cli", "launch", "--ps", "1", "--workers", "1"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 2 and out.stderr.startswith("usage: distflow launch")
    assert "launch needs a command after --" in out.stderr and "Traceback" not in out.stderr
