"""``tf.train.SessionManager``: sessions whose model is initialized, restored, or made ready by a chief."""

from __future__ import annotations

import logging
import time

import numpy as np

from ..framework import errors
from ..framework import ops
from ..runtime.session import Session
from . import saver as saver_mod

_log = logging.getLogger("distflow")


def check_ready(op, sess, what: str) -> tuple[bool, str | None]:
    """(True, None) if ``op`` (a report of uninitialized variables) reports nothing."""
    if op is None:
        return True, None
    try:
        value = sess.run(op)
    except errors.FailedPreconditionError as e:
        return False, f"{what}: {e.message.splitlines()[0]}"
    if value is None or np.size(value) == 0 or np.asarray(value).dtype == np.int32:
        return True, None
    names = [v.decode() if isinstance(v, bytes) else str(v) for v in np.asarray(value).reshape(-1)]
    return False, f"Variables not initialized: {', '.join(names)}"


class SessionManager:
    """Creates sessions for training: the chief's prepare_session() initializes the model or
    restores it from a checkpoint; other workers' wait_for_session() waits until the chief
    has (``ready_op`` reports no uninitialized variable), logging what it waits for."""

    def __init__(self, local_init_op=None, ready_op=None, ready_for_local_init_op=None, graph=None,
                 recovery_wait_secs=30, local_init_run_options=None, local_init_feed_dict=None):
        self._local_init_op = local_init_op
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._graph = graph if graph is not None else ops.get_default_graph()
        self._recovery_wait_secs = recovery_wait_secs
        self._local_init_feed_dict = local_init_feed_dict
        self._local_init_run_options = local_init_run_options
        if ready_for_local_init_op is not None and local_init_op is None:
            raise ValueError("If you pass a ready_for_local_init_op you must also pass a local_init_op")

    def _restore_checkpoint(self, master, saver=None, checkpoint_dir=None, checkpoint_filename_with_path=None,
                            wait_for_checkpoint=False, max_wait_secs=7200, config=None):
        sess = Session(master, graph=self._graph, config=config)
        if checkpoint_dir and checkpoint_filename_with_path:
            raise ValueError("Can not provide both checkpoint_dir and checkpoint_filename_with_path.")
        if saver is None or not (checkpoint_dir or checkpoint_filename_with_path):
            return sess, False
        if checkpoint_filename_with_path:
            saver.restore(sess, checkpoint_filename_with_path)
            return sess, True
        waited = 0.0
        path = saver_mod.latest_checkpoint(checkpoint_dir)
        while path is None and wait_for_checkpoint and waited < max_wait_secs:
            _log.info("Waiting for checkpoint to be available in %s.", checkpoint_dir)
            pause = min(self._recovery_wait_secs, max_wait_secs - waited)  # (not past max_wait_secs)
            time.sleep(pause)
            waited += pause
            path = saver_mod.latest_checkpoint(checkpoint_dir)
        if path is None:
            return sess, False
        if not self._restore_newest_intact(sess, saver, checkpoint_dir, path):
            return sess, False
        state, _ = saver_mod.usable_checkpoint_state(checkpoint_dir)
        if state is not None:
            saver.recover_last_checkpoints(state.all_model_checkpoint_paths)
        return sess, True

    @staticmethod
    def _restore_newest_intact(sess, saver, checkpoint_dir: str, path: str) -> bool:
        """Restores ``path``; if its files are damaged (DataLossError), the newest older
        checkpoint of ``checkpoint_dir`` that is intact, with a warning, rather than
        starting over from step 0. False, with a warning that training starts from the
        beginning, when none is intact."""
        candidates = saver_mod.checkpoint_candidates(checkpoint_dir)
        older = candidates[candidates.index(path) + 1:] if path in candidates else candidates
        damaged = []
        for candidate in [path] + [p for p in older if p != path]:
            try:
                saver.restore(sess, candidate)
            except errors.DataLossError as e:
                damaged.append(e.message if candidate in e.message else f"{candidate}: {e.message}")
                continue
            except ValueError:  # (nothing of it is there any more)
                continue
            if damaged:
                _log.warning("Restored %s, the newest intact checkpoint; damaged: %s", candidate, "; ".join(damaged))
            return True
        _log.warning("No intact checkpoint in %s, so the model starts from its initial values (step 0); "
                     "damaged: %s", checkpoint_dir, "; ".join(damaged))
        return False

    def _try_run_local_init_op(self, sess) -> tuple[bool, str | None]:
        if self._local_init_op is None:
            return True, None
        ok, msg = check_ready(self._ready_for_local_init_op, sess, "Model not ready for local init")
        if not ok:
            return False, msg
        sess.run(self._local_init_op, feed_dict=self._local_init_feed_dict, options=self._local_init_run_options)
        return True, None

    def prepare_session(self, master, init_op=None, saver=None, checkpoint_dir=None,
                        checkpoint_filename_with_path=None, wait_for_checkpoint=False, max_wait_secs=7200,
                        config=None, init_feed_dict=None, init_fn=None):
        """A session whose model is restored from the latest checkpoint, or initialized (the chief's way)."""
        sess, loaded = self._restore_checkpoint(master, saver, checkpoint_dir, checkpoint_filename_with_path,
                                                wait_for_checkpoint, max_wait_secs, config)
        if not loaded:
            if init_op is None and not init_fn and self._local_init_op is None:
                raise RuntimeError("Model is not initialized and no init_op or init_fn or local_init_op was given")
            if init_op is not None:
                sess.run(init_op, feed_dict=init_feed_dict)
            if init_fn:
                init_fn(sess)
        ok, msg = self._try_run_local_init_op(sess)
        if not ok:
            raise RuntimeError(f"Init operations did not make model ready for local_init. Init op: "
                               f"{getattr(init_op, 'name', init_op)}, init fn: {init_fn}, error: {msg}")
        ok, msg = check_ready(self._ready_op, sess, "Model not ready")
        if not ok:
            raise RuntimeError(f"Init operations did not make model ready. Init op: "
                               f"{getattr(init_op, 'name', init_op)}, init fn: {init_fn}, local_init_op: "
                               f"{self._local_init_op}, error: {msg}")
        return sess

    def recover_session(self, master, saver=None, checkpoint_dir=None, checkpoint_filename_with_path=None,
                        wait_for_checkpoint=False, max_wait_secs=7200, config=None):
        """(session, restored): the model restored from a checkpoint if there is one, and whether it is ready."""
        sess, loaded = self._restore_checkpoint(master, saver, checkpoint_dir, checkpoint_filename_with_path,
                                                wait_for_checkpoint, max_wait_secs, config)
        ok, _ = self._try_run_local_init_op(sess)
        if not loaded or not ok:
            return sess, False
        ready, msg = check_ready(self._ready_op, sess, "Model not ready")
        if not ready:
            _log.info("Restoring model from %s did not make model ready: %s", checkpoint_dir, msg)
            return sess, False
        return sess, True

    def wait_for_session(self, master, config=None, max_wait_secs=float("inf")):
        """A session once the model is ready (another task, the chief, initializes it).

        Logs what it waits for (the uninitialized variables) and for how long; past
        ``max_wait_secs`` raises DeadlineExceededError.
        """
        start = time.monotonic()
        while True:
            sess = Session(master, graph=self._graph, config=config)
            try:
                ok, msg = self._try_run_local_init_op(sess)
                if ok:
                    ok, msg = check_ready(self._ready_op, sess, "Model not ready")
                    if ok:
                        return sess
            except (errors.UnavailableError, errors.AbortedError) as e:
                ok, msg = False, f"{type(e).__name__}: {e.message.splitlines()[0]}"
            sess.close()
            waited = time.monotonic() - start
            if waited + self._recovery_wait_secs > max_wait_secs:
                raise errors.DeadlineExceededError(None, None, f"Session was not ready after waiting {waited:.0f} "
                                                   f"secs (max_wait_secs={max_wait_secs}): {msg}")
            _log.info("Waiting for model to be ready (waited %.0f s of %s s). %s", waited, max_wait_secs, msg)
            time.sleep(self._recovery_wait_secs)
