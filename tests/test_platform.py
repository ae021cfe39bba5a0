"""Program scaffolding as TF1 programs use it: tf.app.flags and tf.app.run, tf.logging,
tf.gfile, tf.compat.v1, and the error a missing TensorFlow name gives."""

import logging
import os
import subprocess
import sys
import textwrap

import pytest

import distflow as tf
from distflow.platform import flags as flags_mod


@pytest.fixture
def flag_values():
    return flags_mod.FlagValues()


def define_all(fv):
    flags_mod.DEFINE_string("data_dir", "/tmp/data", "Where the data is.", flag_values=fv)
    flags_mod.DEFINE_integer("batch_size", 100, "Examples per step.", lower_bound=1, flag_values=fv)
    flags_mod.DEFINE_float("learning_rate", 0.01, "Step size.", flag_values=fv)
    flags_mod.DEFINE_boolean("sync", False, "Synchronous updates.", flag_values=fv)
    flags_mod.DEFINE_list("hosts", "a:1,b:2", "Hosts.", flag_values=fv)
    flags_mod.DEFINE_enum("job_name", "worker", ["ps", "worker"], "Job.", flag_values=fv)


def test_flags_parse_every_syntax_absl_accepts(flag_values):
    define_all(flag_values)
    rest = flag_values(["prog", "--batch_size=32", "-learning_rate", "0.5", "--sync", "positional",
                        "--hosts=x:1", "--job_name", "ps", "--", "--not_a_flag"])
    assert rest == ["prog", "positional", "--not_a_flag"]
    assert (flag_values.batch_size, flag_values.learning_rate, flag_values.sync) == (32, 0.5, True)
    assert flag_values.hosts == ["x:1"] and flag_values.job_name == "ps"
    assert flag_values.data_dir == "/tmp/data"
    flag_values(["prog", "--nosync"])
    assert flag_values.sync is False
    assert flag_values.flag_values_dict()["batch_size"] == 32


def test_flag_errors_are_absl_errors(flag_values):
    define_all(flag_values)
    with pytest.raises(flags_mod.UnrecognizedFlagError, match="Unknown command line flag 'epochs'"):
        flag_values(["prog", "--epochs=3"])
    with pytest.raises(flags_mod.IllegalFlagValueError, match="batch_size"):
        flag_values(["prog", "--batch_size=many"])
    with pytest.raises(flags_mod.IllegalFlagValueError, match=">= 1"):
        flag_values(["prog", "--batch_size=0"])
    with pytest.raises(flags_mod.IllegalFlagValueError, match="ps|worker"):
        flag_values(["prog", "--job_name=chief"])
    with pytest.raises(flags_mod.DuplicateFlagError, match="batch_size"):
        flags_mod.DEFINE_integer("batch_size", 1, "again", flag_values=flag_values)
    with pytest.raises(AttributeError, match="not defined"):
        flag_values.epochs  # noqa: B018


def test_flags_are_set_by_assignment_and_parse_argv_on_first_read(flag_values, monkeypatch):
    define_all(flag_values)
    monkeypatch.setattr(sys, "argv", ["prog", "--batch_size=7"])
    assert flag_values.batch_size == 7  # parsed sys.argv when first read, as TF 1.x
    flag_values.batch_size = 9
    assert flag_values.batch_size == 9


def test_tf1_0_to_1_4_scripts_parse_with_parse_flags_and_print_flags_dict(flag_values, monkeypatch):
    define_all(flag_values)
    monkeypatch.setattr(sys, "argv", ["prog", "--batch_size=8", "--checkpoint_dir=x"])
    assert flag_values._parse_flags() == ["--checkpoint_dir=x"]  # not defined here: returned, not refused
    lines = ["{}={}".format(name.upper(), value) for name, value in sorted(flag_values.__flags.items())]
    assert "BATCH_SIZE=8" in lines and "SYNC=False" in lines
    assert flag_values.__flags["learning_rate"].value == 0.01  # TF 1.5+ (absl): Flag objects


def run_program(source, *args, env=None):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(source), *args], capture_output=True, text=True,
                          timeout=60, env=env)


PROGRAM = """
    import distflow as tf
    flags = tf.app.flags
    flags.DEFINE_integer("steps", 3, "How many steps.")
    flags.DEFINE_string("name", "world", "Who to greet.")
    FLAGS = flags.FLAGS

    def main(argv):
        print("hello", FLAGS.name, FLAGS.steps, argv[1:])
        return 3

    if __name__ == "__main__":
        tf.app.run()
"""


def test_app_run_parses_flags_calls_main_and_exits_with_its_value():
    done = run_program(PROGRAM, "--name=tf", "extra", "--steps", "5")
    assert done.returncode == 3, done.stderr
    assert done.stdout.strip() == "hello tf 5 ['extra']"


def test_app_run_passes_flags_nobody_defined_on_to_main_and_warns_of_likely_typos():
    """As TF 1.x's tf.app.run (absl with known_only): a program that parses its own options
    gets them in argv; a name close to a defined flag is probably a typo, and is said."""
    done = run_program(PROGRAM, "--train_steps=7", "--stepz=5")
    assert done.returncode == 3, done.stderr
    assert done.stdout.strip() == "hello world 3 ['--train_steps=7', '--stepz=5']"
    assert "--stepz is not a defined flag" in done.stderr and "did you mean --steps?" in done.stderr
    assert "train_steps" not in done.stderr


def test_app_run_with_a_bad_value_for_a_defined_flag_says_so_and_exits_1():
    done = run_program(PROGRAM, "--steps=many")
    assert done.returncode == 1
    assert "FATAL Flags parsing error" in done.stderr


def test_helpfull_lists_the_flags_with_their_defaults():
    done = run_program(PROGRAM, "--helpfull")
    assert done.returncode == 0
    assert "--steps: How many steps." in done.stdout and "(default: 3)" in done.stdout


def test_argparse_and_app_run_together_as_the_tf1_tutorials_wrote_them():
    source = """
        import argparse, sys
        import distflow as tf
        FLAGS = None
        def main(_):
            print("dir", FLAGS.data_dir, "rest", _)
        if __name__ == "__main__":
            parser = argparse.ArgumentParser()
            parser.add_argument("--data_dir", type=str, default="/tmp")
            FLAGS, unparsed = parser.parse_known_args()
            tf.app.run(main=main, argv=[sys.argv[0]] + unparsed)
    """
    done = run_program(source, "--data_dir=/x", "more")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "dir /x rest ['-c', 'more']"


def test_logging_verbosity_shows_distflow_messages_too():
    source = """
        import logging
        import distflow as tf
        tf.logging.info("hidden by default")
        tf.logging.set_verbosity(tf.logging.INFO)
        tf.logging.info("step %d", 7)
        logging.getLogger("distflow").info("from a hook")
        for i in range(5):
            tf.logging.log_every_n(tf.logging.INFO, "every two %d", 2, i)
        tf.logging.warning("careful")
    """
    done = run_program(source)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert not any("hidden" in line for line in lines)
    assert any(line.startswith("I") and line.endswith("] step 7") for line in lines)
    assert any("from a hook" in line for line in lines)
    assert [line.rsplit(" ", 1)[1] for line in lines if "every two" in line] == ["0", "2", "4"]
    assert any(line.startswith("W") and "careful" in line for line in lines)


def test_logging_constants_and_verbosity():
    level = tf.logging.get_verbosity()
    try:
        tf.logging.set_verbosity(tf.logging.ERROR)
        assert tf.logging.get_verbosity() == logging.ERROR
        assert (tf.logging.DEBUG, tf.logging.INFO, tf.logging.WARN, tf.logging.ERROR, tf.logging.FATAL) == (
            10, 20, 30, 40, 50)
    finally:
        tf.logging.set_verbosity(level)


def test_gfile_round_trip_and_tensorflow_error_classes(tmp_path):
    d = str(tmp_path / "a" / "b")
    tf.gfile.MakeDirs(d)
    tf.gfile.MakeDirs(d)  # existing: fine
    path = os.path.join(d, "f.txt")
    with tf.gfile.GFile(path, "w") as f:
        f.write("one\ntwo\n")
    with tf.gfile.Open(path) as f:
        assert f.readlines() == ["one\n", "two\n"]
    with tf.gfile.FastGFile(path, "rb") as f:
        assert f.read() == b"one\ntwo\n"
    assert tf.gfile.Exists(path) and tf.io.gfile.exists("file://" + path)
    assert tf.gfile.ListDirectory(d) == ["f.txt"]
    assert tf.gfile.Glob(os.path.join(d, "*.txt")) == [path]
    assert tf.gfile.Stat(path).length == 8 and not tf.gfile.Stat(path).is_directory
    tf.gfile.Copy(path, path + ".bak")
    with pytest.raises(tf.errors.AlreadyExistsError):
        tf.gfile.Copy(path, path + ".bak")
    tf.gfile.Rename(path + ".bak", path, overwrite=True)
    with pytest.raises(tf.errors.AlreadyExistsError):
        tf.gfile.MkDir(d)
    with pytest.raises(tf.errors.NotFoundError, match="missing"):
        tf.gfile.GFile(os.path.join(d, "missing")).read()
    with pytest.raises(tf.errors.NotFoundError):
        tf.gfile.Remove(os.path.join(d, "missing"))
    with pytest.raises(tf.errors.UnimplementedError, match="gs://"):
        tf.gfile.Exists("gs://bucket/x")
    assert [w[0] for w in tf.gfile.Walk(str(tmp_path))] == [str(tmp_path), str(tmp_path / "a"), d]
    tf.gfile.DeleteRecursively(str(tmp_path / "a"))
    assert not tf.gfile.IsDirectory(d)


def test_compat_v1_is_distflow_in_both_spellings():
    import distflow.compat.v1 as v1
    from distflow.compat import v1 as also_v1

    assert v1 is tf and also_v1 is tf and tf.compat.v1 is tf
    assert tf.compat.v1.train.GradientDescentOptimizer is tf.train.GradientDescentOptimizer
    assert tf.compat.as_bytes("a") == b"a" and tf.compat.as_text(b"a") == "a"
    tf.disable_v2_behavior()
    tf.compat.v1.disable_eager_execution()
    assert not tf.executing_eagerly()
    assert isinstance(tf.__version__, str)


@pytest.mark.parametrize("namespace, name", [("nn", "quantized_conv2d"), ("", "ragged"),
                                             ("train", "sdca_optimizer")])
def test_a_missing_tensorflow_name_says_distflow_does_not_implement_it(namespace, name):
    module = getattr(tf, namespace) if namespace else tf
    with pytest.raises(AttributeError, match=f"distflow does not implement TensorFlow 1.x's "
                                             f"'tf.{namespace + '.' if namespace else ''}{name}'.*docs/compat.md"):
        getattr(module, name)
    assert not hasattr(module, name)


@pytest.mark.parametrize("namespace, name", [("", "contrib_thing"), ("train", "Frobnicator"), ("layers", "Conv4D"),
                                             ("data", "TFRecordWriter"), ("losses", "huber_losz")])
def test_a_name_tensorflow_never_had_says_so(namespace, name):
    module = getattr(tf, namespace) if namespace else tf
    with pytest.raises(AttributeError, match=f"TensorFlow 1.x has no 'tf.{namespace + '.' if namespace else ''}{name}'"):
        getattr(module, name)


def test_info_shows_on_a_terminal_and_not_in_a_pipe(tmp_path):
    """A script run from a terminal shows distflow's INFO messages (checkpoints, progress);
    one whose stderr is a pipe or a file keeps the WARN threshold."""
    import shutil
    import subprocess
    import sys

    program = tmp_path / "p.py"
    program.write_text("import logging\nimport distflow as tf\n"
                       "logging.getLogger('distflow').info('saving checkpoints')\n")
    piped = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, timeout=120)
    assert piped.returncode == 0 and "saving checkpoints" not in piped.stderr
    if shutil.which("script") is None:
        pytest.skip("no `script` command to give the program a terminal")
    on_terminal = subprocess.run(["script", "-q", "-c", f"{sys.executable} {program}", "/dev/null"],
                                 capture_output=True, text=True, timeout=120)
    assert "saving checkpoints" in on_terminal.stdout and "] saving checkpoints" in on_terminal.stdout


def test_a_program_that_configures_logging_keeps_its_own_settings():
    import io
    import logging

    from distflow.platform import tf_logging

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    logger = logging.getLogger("distflow")
    assert not tf_logging.show_info_on_terminal(io.StringIO())  # not a terminal
    if logger.level == logging.NOTSET and not logger.handlers and not logging.getLogger().handlers:
        saved = logger.level
        try:
            logging.getLogger().addHandler(logging.NullHandler())  # the program configured logging
            assert not tf_logging.show_info_on_terminal(Terminal())
        finally:
            logging.getLogger().handlers.pop()
            logger.setLevel(saved)


def test_gfile_seek_returns_none_as_tensorflows_does(tmp_path):
    path = str(tmp_path / "a.txt")
    with tf.gfile.GFile(path, "w") as f:
        f.write("abcdef")
    f = tf.gfile.GFile(path)
    assert f.read(2) == "ab" and f.tell() == 2
    assert f.seek(4) is None and f.read() == "ef"  # (TF's GFile.seek gives nothing back; Python's file, the offset)
    f.seek(position=1)
    assert f.read(1) == "b" and f.size() == 6
