"""``tf.contrib.training.FailureTolerator``: a retry helper for steps that may fail while a
cluster recovers (a ps restarting: UnavailableError or AbortedError)."""

from __future__ import annotations

import contextlib
import logging
import time

from ..framework import errors

_log = logging.getLogger("distflow")


class FailureTolerator:
    """Suppresses (and logs) the ``handled_exceptions`` raised inside ``forgive()``, up to
    ``limit`` of them within ``forgive_after_seconds`` (time spent waiting excluded); the next
    ``forgive()`` after one first waits ``init_delay`` seconds, times ``backoff_factor`` for
    each further recent failure::

        tolerator = tf.contrib.training.FailureTolerator(limit=3)
        while not done:
            with tolerator.forgive():
                sess.run(train_op)
    """

    def __init__(self, limit=5, init_delay=5.0, backoff_factor=2.0, forgive_after_seconds=6000,
                 handled_exceptions=None):
        self.limit = limit
        self.delay = init_delay
        self.backoff = backoff_factor
        self.forgive_after = forgive_after_seconds
        self.handled = tuple(handled_exceptions or (errors.UnavailableError, errors.AbortedError))
        self.exceptions: list[float] = []  # when each recent failure came (on the clock less the waits)
        self.time_in_delay = 0.0

    def _now(self) -> float:
        return time.monotonic() - self.time_in_delay

    def _forgive_old(self) -> None:
        now = self._now()
        self.exceptions = [t for t in self.exceptions if now - t < self.forgive_after]

    @contextlib.contextmanager
    def forgive(self):
        self._forgive_old()
        if self.exceptions:
            delay = self.delay * self.backoff ** (len(self.exceptions) - 1)
            _log.warning("Sleeping for %f seconds before resuming", delay)
            time.sleep(delay)
            self.time_in_delay += delay
        try:
            yield
        except self.handled as e:
            self._forgive_old()
            self.exceptions.append(self._now())
            if len(self.exceptions) >= self.limit:
                raise
            _log.warning("Forgiving an exception: %s", e)
