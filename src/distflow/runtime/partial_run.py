"""Partial runs (``Session.partial_run_setup`` and ``partial_run``): one step taken in parts.

TF 1.x's partial run keeps one executor step suspended between the parts: each part feeds
some of the feeds named at setup and fetches some of the fetches, and no op runs twice. In
distflow each part is a step of its own, and what later parts need from earlier ones is
carried over: a part also fetches the tensors it computes that ops of the remaining fetches
read (the cut between what ran and what is left), and the later parts are fed those values,
so the ops upstream of them do not run again (a random draw is drawn once; the same
variable read is read once). A later op that waits on an earlier part's op by a control
dependency alone has no value to be fed: such a part is refused, naming the op, rather than
running an op that changes state (an update, a draw, a dequeue) a second time.
"""

from __future__ import annotations

from ..framework import errors
from ..framework.ops import Operation, Tensor


def _error(message: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, message)


def needed_ops(roots, known: set = frozenset()) -> set:
    """The ops that computing ``roots`` runs when the ``known`` tensors are fed (as a step
    prunes: a fed tensor cuts the graph; control inputs run)."""
    stack = [r for r in roots if isinstance(r, Operation)] + [r.op for r in roots if isinstance(r, Tensor)
                                                               and r not in known]
    seen: set = set()
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        stack.extend(t.op for t in op.inputs if t not in known)
        stack.extend(op.control_inputs)
    return seen


class PartialRun:
    """One partial run's state: what setup named, what was fed and fetched, which ops ran,
    and the values later parts need from them."""

    def __init__(self, fetches: tuple, feeds: set):
        self.fetches, self.feeds = fetches, feeds
        self.fed: dict = {}  # tensor -> its value, fed in an earlier part
        self.carried: dict = {}  # tensor -> its value, computed in an earlier part and read by a later one
        self.fetched: set = set()
        self.ran: set = set()

    @property
    def done(self) -> bool:
        return all(f in self.fetched for f in self.fetches)

    def begin(self, elements: tuple, feed_tensors: tuple) -> list:
        """Checks a part (TF's errors) and returns the tensors it must fetch besides ``elements``
        for the parts after it."""
        for t in feed_tensors:
            if t not in self.feeds:
                raise _error(f"The feed {t.name} was not specified in partial_run_setup.")
            if t in self.fed:
                raise _error(f"The feed {t.name} has already been fed.")
        for el in elements:
            if el not in self.fetches:
                raise _error(f"The fetch {el.name} was not specified in partial_run_setup.")
            if el in self.fetched:
                raise _error(f"The fetch {el.name} has already been fetched.")
        known = set(self.fed) | set(self.carried) | set(feed_tensors)
        now = needed_ops(elements, known)
        # (ops that would run again: harmless unless they change state; a variable or queue
        # op, with no inputs, only gives its variable or queue again)
        again = {op for op in now & self.ran if op.is_stateful and op.inputs}
        if again:
            names = ", ".join(sorted(op.name for op in again))
            raise errors.UnimplementedError(None, None, f"This partial run would run again ops an earlier part ran "
                                                        f"({names}): a later fetch waits on them by a control "
                                                        f"dependency, which a partial run cannot carry over")
        unfed = [t for t in self.feeds - known if t.op in now and t.op.type != "Placeholder"]
        if unfed:  # (an unfed placeholder fails in its own kernel, as TF's: "You must feed a value ...")
            raise _error(f"You must feed a value for {unfed[0].name}: this part needs it, and partial_run_setup named "
                         f"it a feed")
        self._now = now
        later = [f for f in self.fetches if f not in self.fetched and f not in elements]
        return self._cut(later, known | self.feeds, now)

    @staticmethod
    def _cut(later: list, known: set, now: set) -> list:
        """The tensors made by the ops of ``now`` that the ops ``later`` fetches need read."""
        cut: list = []
        stack = [r for r in later if isinstance(r, Operation)]
        for r in later:
            if isinstance(r, Tensor) and r not in known:
                if r.op in now:
                    cut.append(r)
                else:
                    stack.append(r.op)
        seen: set = set()
        while stack:
            op = stack.pop()
            if op in seen or op in now:
                continue
            seen.add(op)
            for t in op.inputs:
                if t in known:
                    continue
                if t.op in now:
                    if t not in cut:
                        cut.append(t)
                else:
                    stack.append(t.op)
            stack.extend(c for c in op.control_inputs if c not in now)
        return cut

    def end(self, elements: tuple, feed_tensors: tuple, feed_values: list, cut: list, cut_values: list) -> None:
        self.fed.update(zip(feed_tensors, feed_values))
        self.carried.update(zip(cut, cut_values))
        self.fetched.update(elements)
        self.ran |= self._now
