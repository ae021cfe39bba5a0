"""``tf.data.Options`` and the option groups in it, as TensorFlow 1.15 declares them.

A dataset carries its options: ``with_options`` gives a new dataset whose options are its
input's merged with the ones given, and every transformation keeps its inputs' options.
distflow's pipelines run their stages in turn on one thread, so none of these options
changes how a pipeline runs; they are kept, checked and merged as TF does, so that a
program that sets or reads them runs unchanged.
"""

from __future__ import annotations

import enum


class _Option:
    """One declared option: its type, its default, and its docstring."""

    def __init__(self, kind, doc: str, default=None):
        self.kind, self.doc, self.default = kind, doc, default
        self.name = ""

    def __set_name__(self, owner, name):
        self.name = name

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        values = obj.__dict__["_values"]
        if self.name not in values and isinstance(self.kind, type) and issubclass(self.kind, OptionsBase):
            values[self.name] = self.kind()  # (an option group exists as soon as it is read)
        return values.get(self.name, self.default)

    def __set__(self, obj, value):
        if value is not None and not isinstance(value, self.kind):
            kind = getattr(self.kind, "__name__", self.kind)
            raise TypeError(f"Property \"{self.name}\" must be of type {kind}, got: {value!r} "
                            f"(type: {type(value).__name__})")
        obj.__dict__["_values"][self.name] = value


class OptionsBase:
    """Options declared on the class; any other attribute is an AttributeError, a value of
    another type a TypeError, and two sets of options merge option by option."""

    def __init__(self):
        self.__dict__["_values"] = {}

    def _options(self) -> list[_Option]:
        return [v for c in reversed(type(self).__mro__) for v in vars(c).values() if isinstance(v, _Option)]

    def __setattr__(self, name, value):
        if not isinstance(getattr(type(self), name, None), (_Option, property)):
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        object.__setattr__(self, name, value)

    def __eq__(self, other):
        if type(self) is not type(other):
            return NotImplemented
        return all(getattr(self, o.name) == getattr(other, o.name) for o in self._options())

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None

    def __repr__(self):
        set_ = ", ".join(f"{o.name}={getattr(self, o.name)!r}" for o in self._options()
                         if o.name in self.__dict__["_values"])
        return f"{type(self).__name__}({set_})"

    def merge(self, options) -> "OptionsBase":
        """These options and ``options`` together (a new object): an option set in one of them
        takes that value, groups merge option by option, and an option set to two different
        values is a ValueError naming it (TensorFlow 1.15's rule)."""
        if not isinstance(options, type(self)):
            raise TypeError(f"{type(self).__name__}.merge expects a {type(self).__name__}, got {options!r}")
        result = type(self)()
        for option in self._options():
            mine, theirs = self.__dict__["_values"].get(option.name), options.__dict__["_values"].get(option.name)
            if mine is None or theirs is None:
                value = theirs if mine is None else mine
            elif isinstance(mine, OptionsBase):
                value = mine.merge(theirs)
            elif mine != theirs:
                raise ValueError(f"Cannot merge incompatible values ({mine!r} and {theirs!r}) of option: "
                                 f"{option.name}")
            else:
                value = mine
            if value is not None:
                result.__dict__["_values"][option.name] = value
        return result


class AutoShardPolicy(enum.IntEnum):
    """How a distribution strategy splits a dataset among workers (``auto_shard_policy``)."""
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2


class ExternalStatePolicy(enum.Enum):
    """What to do with a dataset's external state when it is serialized (accepted)."""
    WARN = 0
    IGNORE = 1
    FAIL = 2


class ThreadingOptions(OptionsBase):
    """``tf.data.experimental.ThreadingOptions``: the threads TF's runtime gives a pipeline."""
    max_intra_op_parallelism = _Option(int, "If set, it overrides the maximum degree of intra-op parallelism.")
    private_threadpool_size = _Option(int, "If set, the dataset will use a private threadpool of the given size.")


class MapVectorizationOptions(OptionsBase):
    """``tf.data.experimental.MapVectorizationOptions``."""
    enabled = _Option(bool, "Whether to vectorize map transformations.")
    use_choose_fastest = _Option(bool, "Whether to use ChooseFastestBranchDataset with this transformation.")


class OptimizationOptions(OptionsBase):
    """``tf.data.experimental.OptimizationOptions``: the graph rewrites TF's runtime may apply
    to a pipeline (distflow runs a pipeline's stages as written)."""
    apply_default_optimizations = _Option(bool, "Whether to apply default static optimizations.")
    autotune = _Option(bool, "Whether to automatically tune performance knobs.")
    autotune_algorithm = _Option(object, "The algorithm to use for autotuning.")
    autotune_buffers = _Option(bool, "Whether to tune buffer sizes.")
    autotune_cpu_budget = _Option(int, "The CPU budget for autotuning.")
    autotune_ram_budget = _Option(int, "The RAM budget for autotuning.")
    filter_fusion = _Option(bool, "Whether to fuse filter transformations.")
    filter_with_random_uniform_fusion = _Option(bool, "Whether to fuse filter dataset that predicts random_uniform "
                                                      "< rate into a sampling dataset.")
    hoist_random_uniform = _Option(bool, "Whether to hoist tf.random_uniform() ops out of map transformations.")
    map_and_batch_fusion = _Option(bool, "Whether to fuse map and batch transformations.")
    map_and_filter_fusion = _Option(bool, "Whether to fuse map and filter transformations.")
    map_fusion = _Option(bool, "Whether to fuse map transformations.")
    map_parallelization = _Option(bool, "Whether to parallelize stateless map transformations.")
    map_vectorization = _Option(MapVectorizationOptions, "The map vectorization options.")
    noop_elimination = _Option(bool, "Whether to eliminate no-op transformations.")
    parallel_batch = _Option(bool, "Whether to parallelize copying of batch elements.")
    shuffle_and_repeat_fusion = _Option(bool, "Whether to fuse shuffle and repeat transformations.")


class DistributeOptions(OptionsBase):
    """``tf.data.experimental.DistributeOptions``: how a strategy splits the dataset."""
    auto_shard = _Option(bool, "Whether the dataset should be automatically sharded.", default=True)
    auto_shard_policy = _Option(AutoShardPolicy, "The type of sharding auto-shard should perform.",
                                default=AutoShardPolicy.AUTO)
    num_devices = _Option(int, "The number of devices attached to this input pipeline.")


class StatsOptions(OptionsBase):
    """``tf.data.experimental.StatsOptions`` (accepted: distflow collects no pipeline statistics)."""
    aggregator = _Option(object, "Associates the given statistics aggregator with the dataset pipeline.")
    prefix = _Option(str, "Prefix to prepend all statistics recorded for the input `dataset` with.", default="")
    counter_prefix = _Option(str, "Prefix for the statistics recorded as counters.", default="")
    latency_all_edges = _Option(bool, "Whether to add latency measurements on all edges.")


class Options(OptionsBase):
    """``tf.data.Options``: TF 1.15's ``experimental_*`` options, and TF 2's names of the
    threading and determinism ones (the same values)."""
    experimental_deterministic = _Option(bool, "Whether the outputs need to be produced in deterministic order.")
    experimental_distribute = _Option(DistributeOptions, "The distribution strategy options.")
    experimental_optimization = _Option(OptimizationOptions, "The optimization options.")
    experimental_slack = _Option(bool, "Whether to introduce 'slack' in the last prefetch of the input pipeline.")
    experimental_stats = _Option(StatsOptions, "The statistics options.")
    experimental_threading = _Option(ThreadingOptions, "The threading options.")
    experimental_external_state_policy = _Option(ExternalStatePolicy, "What to do with external state.")

    @property
    def threading(self) -> ThreadingOptions:
        return self.experimental_threading

    @threading.setter
    def threading(self, value) -> None:
        self.experimental_threading = value

    @property
    def deterministic(self):
        return self.experimental_deterministic

    @deterministic.setter
    def deterministic(self, value) -> None:
        self.experimental_deterministic = value
