"""The SessionRunHook API: code that runs around every step of a MonitoredSession."""

from __future__ import annotations

import collections


class SessionRunHook:
    """Override any of these; MonitoredSession calls them in this order:

    begin() once, before the graph is finalized; after_create_session(session, coord)
    each time a session is (re)created; before_run(run_context) -> SessionRunArgs or
    None, then after_run(run_context, run_values) around every run(); end(session) when
    training ends without an error.
    """

    def begin(self):
        pass

    def after_create_session(self, session, coord):
        pass

    def before_run(self, run_context):
        return None

    def after_run(self, run_context, run_values):
        pass

    def end(self, session):
        pass


class SessionRunArgs(collections.namedtuple("SessionRunArgs", ["fetches", "feed_dict", "options"])):
    """What a hook adds to a run(): fetches (any structure), feeds and RunOptions."""

    def __new__(cls, fetches, feed_dict=None, options=None):
        return super().__new__(cls, fetches, feed_dict, options)


class SessionRunValues(collections.namedtuple("SessionRunValues", ["results", "options", "run_metadata"])):
    """What a hook gets back: the values of its fetches."""


class SessionRunContext:
    """The run() being made (its original arguments and session); a hook may ask training to stop."""

    def __init__(self, original_args: SessionRunArgs, session):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self) -> SessionRunArgs:
        return self._original_args

    @property
    def session(self):
        return self._session

    @property
    def stop_requested(self) -> bool:
        return self._stop_requested

    def request_stop(self) -> None:
        self._stop_requested = True
