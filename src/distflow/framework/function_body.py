"""The functions of control-flow ops: a cond branch, a loop's condition and body.

``tf.cond`` and ``tf.while_loop`` build their functions by calling the user's Python
functions while a :class:`FunctionContext` is current. The ops so created are ordinary
ops of the graph (named under the cond's or loop's scope, as in TF 1.x), but they belong
to the function: they run only when the control-flow op that owns it runs them, and
their tensors can be used only inside it. The owning op (``If``, ``While``) names them in
a :class:`FuncBody` attr: which ops, in which order, which of its own inputs feed which
tensors read from outside, and which tensors are its outputs.

Names, not copies: the same attr works in the client's graph, in the graph a master
imports, and in a task's partition (where the master adds the function's ops, placed).
"""

from __future__ import annotations


class FunctionContext:
    """A control-flow function being built, or built: ops made while it is current belong to it.

    ``outer`` is the function it is nested in (None: the graph itself). A gradient
    function also names the ``forward`` function it differentiates: it may read that
    function's tensors (and those of functions nested in it), which the owning op then
    hands over (a cond's branch exports them as extra outputs; a loop keeps them per
    iteration).
    """

    def __init__(self, what: str, outer: "FunctionContext | None", forward: "FunctionContext | None" = None):
        self.what = what  # e.g. "the true branch of tf.cond 'cond'"
        self.outer = outer
        self.forward = forward
        self.owner = None  # the If or While op, once built
        self.role = ""  # the owner's attr holding this function ("then_branch", "body", ...)
        self.exports: dict = {}  # tensor of this function -> the owner's output that hands it out

    def chain(self):
        """This function and the ones it is nested in, innermost first."""
        ctx = self
        while ctx is not None:
            yield ctx
            ctx = ctx.outer

    def is_within(self, other: "FunctionContext | None") -> bool:
        """Whether this function is ``other`` or nested in it (everything is within the graph)."""
        return other is None or any(c is other for c in self.chain())

    def visible_in(self, reader: "FunctionContext | None") -> bool:
        """Whether ops built in ``reader`` may read the tensors of this function: inside it
        (or a function nested in it), or in the gradient of a function that holds it or
        reads them."""
        if reader is not None:
            for ctx in reader.chain():
                if ctx is self:
                    return True
                if ctx.forward is not None and (self.is_within(ctx.forward) or self.visible_in(ctx.forward)):
                    return True
        return False

    def check_readable_from(self, reader: "FunctionContext | None", tensor, op_name: str) -> None:
        """Raises ValueError unless an op being built in ``reader`` may read ``tensor`` (made in self)."""
        if self.visible_in(reader):
            return
        where = "outside any control flow" if reader is None else f"in {reader.what}"
        raise ValueError(f"Cannot use '{tensor.name}' as an input of '{op_name}' {where}: it was made "
                         f"in {self.what} and exists only while that runs. Return it from that function "
                         "and use the result instead.")


class FuncBody:
    """What a control-flow op runs: an attr value, the same in every graph that holds the op.

    ``ops``: the names of the function's ops, in an order that runs them correctly.
    ``feeds``: (tensor name read inside, position among the owning op's inputs).
    ``outputs``: tensor names, in order; ``""`` is an output with no value in this
    function (a cond branch's slot for a tensor only the other branch makes).
    """

    __slots__ = ("ops", "feeds", "outputs")

    def __init__(self, ops, feeds, outputs):
        self.ops = tuple(ops)
        self.feeds = tuple((str(name), int(pos)) for name, pos in feeds)
        self.outputs = tuple(outputs)

    def with_outputs(self, outputs) -> "FuncBody":
        return FuncBody(self.ops, self.feeds, outputs)

    def renamed(self, rename, replaced=None) -> "FuncBody":
        """The same function with every op and tensor name passed through ``rename(name)``,
        and each tensor that ``replaced`` maps (an import's ``input_map``) named as mapped."""
        replaced = replaced or {}

        def tensor(name):
            if not name:
                return name
            if name in replaced:
                return replaced[name]
            op, _, index = name.rpartition(":")
            return f"{rename(op)}:{index}"
        return FuncBody([rename(n) for n in self.ops], [(tensor(k), p) for k, p in self.feeds],
                        [tensor(o) for o in self.outputs])

    def __eq__(self, other):
        return isinstance(other, FuncBody) and (self.ops, self.feeds, self.outputs) == (
            other.ops, other.feeds, other.outputs)

    def __hash__(self):
        return hash((self.ops, self.feeds, self.outputs))

    def __repr__(self):
        return f"FuncBody({len(self.ops)} ops, feeds={list(self.feeds)}, outputs={list(self.outputs)})"
