"""``tf.contrib.slim.evaluation``: TF-Slim's evaluation of a checkpoint (``evaluate_once``) or of
each new checkpoint of a directory (``evaluation_loop``), on contrib.training's loops: the
``eval_op`` (metrics' update ops, typically) runs ``num_evals`` times, then the summaries
(merged by default) are written to ``logdir`` and ``final_op``'s value returned.
"""

from __future__ import annotations

from ..summary import summary_ops as summary
from ..train.monitored_session import Scaffold
from ..train.saver import Saver
from . import training_loops
from .training_loops import checkpoints_iterator, wait_for_new_checkpoint  # noqa: F401

_USE_DEFAULT = 0


def _hooks(num_evals, logdir, summary_op, summary_op_feed_dict, hooks) -> list:
    if summary_op == _USE_DEFAULT:
        summary_op = summary.merge_all()
    all_hooks = [training_loops.StopAfterNEvalsHook(num_evals)]
    if summary_op is not None:
        all_hooks.append(training_loops.SummaryAtEndHook(log_dir=logdir, summary_op=summary_op,
                                                         feed_dict=summary_op_feed_dict))
    return all_hooks + list(hooks or [])


def evaluate_once(master, checkpoint_path, logdir, num_evals=1, initial_op=None, initial_op_feed_dict=None,
                  eval_op=None, eval_op_feed_dict=None, final_op=None, final_op_feed_dict=None,
                  summary_op=_USE_DEFAULT, summary_op_feed_dict=None, variables_to_restore=None,
                  session_config=None, hooks=None):
    """Restores ``checkpoint_path`` (``variables_to_restore`` only, if given), runs ``eval_op``
    ``num_evals`` times, writes the summaries to ``logdir``; returns ``final_op``'s value."""
    saver = Saver(variables_to_restore) if variables_to_restore is not None else None
    return training_loops.evaluate_once(
        checkpoint_path, master=master,
        scaffold=Scaffold(init_op=initial_op, init_feed_dict=initial_op_feed_dict, saver=saver),
        eval_ops=eval_op, feed_dict=eval_op_feed_dict, final_ops=final_op, final_ops_feed_dict=final_op_feed_dict,
        hooks=_hooks(num_evals, logdir, summary_op, summary_op_feed_dict, hooks), config=session_config)


def evaluation_loop(master, checkpoint_dir, logdir, num_evals=1, initial_op=None, initial_op_feed_dict=None,
                    init_fn=None, eval_op=None, eval_op_feed_dict=None, final_op=None, final_op_feed_dict=None,
                    summary_op=_USE_DEFAULT, summary_op_feed_dict=None, variables_to_restore=None,
                    eval_interval_secs=60, max_number_of_evaluations=None, session_config=None, timeout=None,
                    timeout_fn=None, hooks=None):
    """``evaluate_once`` of each new checkpoint of ``checkpoint_dir`` as it appears, at least
    ``eval_interval_secs`` apart, at most ``max_number_of_evaluations`` times (until
    ``timeout`` seconds pass without one); returns the last ``final_op`` value."""
    saver = Saver(variables_to_restore) if variables_to_restore is not None else None
    return training_loops.evaluate_repeatedly(
        checkpoint_dir, master=master,
        scaffold=Scaffold(init_op=initial_op, init_feed_dict=initial_op_feed_dict, init_fn=init_fn, saver=saver),
        eval_ops=eval_op, feed_dict=eval_op_feed_dict, final_ops=final_op, final_ops_feed_dict=final_op_feed_dict,
        eval_interval_secs=eval_interval_secs, hooks=_hooks(num_evals, logdir, summary_op, summary_op_feed_dict,
                                                            hooks),
        config=session_config, max_number_of_evaluations=max_number_of_evaluations, timeout=timeout,
        timeout_fn=timeout_fn)
