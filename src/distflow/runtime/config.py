"""Session and run configuration, shaped like TensorFlow's ConfigProto and RunOptions."""

from __future__ import annotations

from ..framework import varint


def _other_fields(message: str, known: tuple, given: dict, target) -> None:
    """Keeps TF's fields that distflow accepts without acting on; any other name is a ValueError,
    as the protocol buffer class raises (a misspelled option must not pass unnoticed)."""
    for name, value in given.items():
        if name not in known:
            raise ValueError(f'Protocol message {message} has no "{name}" field.')
        setattr(target, name, value)


class _VirtualDevices:
    """The logical GPUs one physical GPU is split into: one per entry of ``memory_limit_mb``."""

    def __init__(self, memory_limit_mb=(), priority=()):
        self.memory_limit_mb = list(memory_limit_mb)
        self.priority = list(priority)


class _GPUExperimental:
    VirtualDevices = _VirtualDevices
    _OTHER_FIELDS = ("use_unified_memory", "num_dev_to_dev_copy_streams", "collective_ring_order",
                     "timestamped_allocator", "kernel_tracker_max_interval", "kernel_tracker_max_bytes",
                     "kernel_tracker_max_pending")

    def __init__(self, virtual_devices=(), **other):
        _other_fields("GPUOptions.Experimental", self._OTHER_FIELDS, other, self)
        self.virtual_devices = list(virtual_devices)


class GPUOptions:
    """GPU memory and visibility. ``visible_device_list`` ("0,2") picks and orders the GPUs a
    process uses; ``experimental.virtual_devices`` splits each into as many logical GPUs as its
    ``memory_limit_mb`` has entries, so that towers placed on ``/gpu:0`` and ``/gpu:1`` share one
    card; ``per_process_gpu_memory_fraction`` caps the memory pool. Memory is taken as steps
    need it, so ``allow_growth`` is how distflow always behaves; the per-device memory limits of
    virtual devices are not enforced."""

    Experimental = _GPUExperimental
    _OTHER_FIELDS = ("allocator_type", "deferred_deletion_bytes", "polling_active_delay_usecs",
                     "polling_inactive_delay_msecs", "force_gpu_compatible")

    def __init__(self, allow_growth: bool = False, per_process_gpu_memory_fraction: float = 0.0,
                 visible_device_list: str = "", experimental: _GPUExperimental | None = None, **other):
        _other_fields("GPUOptions", self._OTHER_FIELDS, other, self)
        self.experimental = experimental or _GPUExperimental()
        self.allow_growth = allow_growth
        self.per_process_gpu_memory_fraction = per_process_gpu_memory_fraction
        self.visible_device_list = visible_device_list


class OptimizerOptions:
    """Which graph rewrites a step's compiler makes (runtime/rewrites/).

    ``opt_level=L1`` (TF's default) makes them all; ``L0`` none.
    ``do_constant_folding=False`` keeps every op a computation but still fuses.
    """

    L1, L0 = 0, -1  # TF's enum values

    _OTHER_FIELDS = ("do_common_subexpression_elimination", "max_folded_constant_in_bytes",
                     "do_function_inlining", "global_jit_level")

    def __init__(self, opt_level: int = L1, do_constant_folding: bool = True, **other):
        _other_fields("OptimizerOptions", self._OTHER_FIELDS, other, self)
        self.opt_level = opt_level
        self.do_constant_folding = do_constant_folding

    def rewrites(self) -> tuple[bool, bool]:
        """(fold constants?, fuse ops?)"""
        on = self.opt_level != self.L0
        return on and bool(self.do_constant_folding), on


class GraphOptions:
    _OTHER_FIELDS = ("enable_recv_scheduling", "build_cost_model", "build_cost_model_after", "infer_shapes",
                     "place_pruned_graph", "enable_bfloat16_sendrecv", "timeline_step", "rewrite_options")

    def __init__(self, optimizer_options: OptimizerOptions | None = None, replay_gpu_steps: bool = True, **other):
        _other_fields("GraphOptions", self._OTHER_FIELDS, other, self)
        self.optimizer_options = optimizer_options or OptimizerOptions()
        # (a distflow addition) a step that runs on one GPU alone is captured as a CUDA graph
        # on its second run and replayed after that; False runs every step op by op
        self.replay_gpu_steps = bool(replay_gpu_steps)


class _Experimental:
    """ConfigProto.Experimental: ``collective_group_leader`` names the task that collective
    groups form at ("/job:worker/replica:0/task:0"; by default the chief, else worker 0)."""

    _OTHER_FIELDS = ("executor_type", "recv_buf_max_chunk", "use_numa_affinity",
                     "collective_deterministic_sequential_execution", "collective_nccl",
                     "share_session_state_in_clusterspec_propagation", "disable_thread_spinning",
                     "share_cluster_devices_in_session", "session_metadata", "optimize_for_static_graph",
                     "enable_mlir_bridge", "disable_output_partition_graphs", "xla_fusion_autotuner_thresh")

    def __init__(self, collective_group_leader: str = "", **other):
        _other_fields("ConfigProto.Experimental", self._OTHER_FIELDS, other, self)
        self.collective_group_leader = collective_group_leader


class ConfigProto:
    """Session options.

    ``device_count`` maps a device type to how many devices of that type the session
    creates: ``{"CPU": 2, "GPU": 4}``. CPU defaults to 1. On a host without GPUs
    GPUs are *simulated* on CPU kernels, and when "GPU" is not given the session has
    ``DEFAULT_SIMULATED_GPUS`` of them, so that TF programs written for a multi-GPU box
    run unchanged. With CuPy installed and a CUDA device present, the GPUs are the real
    ones (all of them unless "GPU" limits them; see GPUOptions). Each device has its own
    executor thread while a step runs concurrently.

    ``inter_op_parallelism_threads`` chooses how a multi-device step runs: 0 (the
    default) measures the concurrent form (partitions at once, a thread each) and
    the sequential form (one global order on the calling thread) over the first
    runs and keeps the faster; 1 is always sequential, 2 or more always concurrent.
    ``intra_op_parallelism_threads`` > 0 sets the thread count of NumPy's BLAS (the
    OpenBLAS NumPy bundles), process-wide as TF's intra-op pool is: with partitions running
    concurrently, 1 keeps them from oversubscribing the cores.

    ``connect_timeout_in_ms`` (a distflow addition) bounds how long a Server's master
    waits, with backoff and a log line naming the task, for another task of the cluster
    to come up, and how long a ``grpc://`` session waits for its target's master, before
    failing with UnavailableError.
    """

    DEFAULT_SIMULATED_GPUS = 8
    Experimental = _Experimental
    _OTHER_FIELDS = ("session_inter_op_thread_pool", "placement_period", "rpc_options", "cluster_def",
                     "experimental", "share_cluster_devices_in_session")

    def __init__(self, device_count=None, allow_soft_placement: bool = False,
                 log_device_placement: bool = False, inter_op_parallelism_threads: int = 0,
                 intra_op_parallelism_threads: int = 0, isolate_session_state: bool = False,
                 device_filters=None, gpu_options: GPUOptions | None = None,
                 graph_options: GraphOptions | None = None, operation_timeout_in_ms: int = 0,
                 use_per_session_threads: bool = False, connect_timeout_in_ms: int = 60000, **other):
        _other_fields("ConfigProto", self._OTHER_FIELDS, other, self)
        self.device_count = dict(device_count or {})
        for kind, count in self.device_count.items():
            if not isinstance(count, int) or count < 0:
                raise ValueError(f"device_count[{kind!r}] must be a non-negative int, got {count!r}")
        self.allow_soft_placement = bool(allow_soft_placement)
        self.log_device_placement = bool(log_device_placement)
        self.inter_op_parallelism_threads = inter_op_parallelism_threads
        self.intra_op_parallelism_threads = intra_op_parallelism_threads
        self.isolate_session_state = isolate_session_state
        self.device_filters = list(device_filters or [])
        self.gpu_options = gpu_options or GPUOptions()
        self.graph_options = graph_options or GraphOptions()
        self.operation_timeout_in_ms = operation_timeout_in_ms
        self.use_per_session_threads = use_per_session_threads
        self.connect_timeout_in_ms = connect_timeout_in_ms

    def __repr__(self):
        return (f"ConfigProto(device_count={self.device_count}, allow_soft_placement="
                f"{self.allow_soft_placement}, log_device_placement={self.log_device_placement})")


class RunOptions:
    NO_TRACE = 0
    SOFTWARE_TRACE = 1
    HARDWARE_TRACE = 2
    FULL_TRACE = 3

    _OTHER_FIELDS = ("inter_op_thread_pool", "output_partition_graphs", "debug_options",
                     "report_tensor_allocations_upon_oom", "experimental")

    def __init__(self, timeout_in_ms: int = 0, trace_level: int = 0, **other):
        _other_fields("RunOptions", self._OTHER_FIELDS, other, self)
        self.timeout_in_ms = timeout_in_ms
        self.trace_level = trace_level


class RunMetadata:
    """What a traced step reports: ``partition_graphs``, one GraphDef per device, when the
    step ran with ``RunOptions(output_partition_graphs=True)`` or a trace level; and with a
    trace level, ``step_stats``: a StepStats (TensorFlow's message) with every kernel call,
    by device, its start and its duration. A session on a remote target ("grpc://")
    fills neither yet.
    """

    def __init__(self):
        self._step_stats = None
        self.partition_graphs: list = []

    @property
    def step_stats(self):
        """The StepStats of the last traced step; an empty one (as TF's) before any."""
        if self._step_stats is None:
            from ..protos import distflow_pb2 as pb  # noqa: PLC0415 - protobuf only for programs that ask

            self._step_stats = pb.StepStats()
        return self._step_stats

    @step_stats.setter
    def step_stats(self, value) -> None:
        self._step_stats = value

    def HasField(self, name: str) -> bool:  # noqa: N802 - protobuf's name
        """Whether ``name`` ("step_stats") was filled by a step, as on TF's RunMetadata message."""
        if name != "step_stats":
            raise ValueError(f'Protocol message RunMetadata has no singular "{name}" field.')
        return self._step_stats is not None and self._step_stats.ByteSize() > 0

    def Clear(self) -> None:  # noqa: N802 - protobuf's name
        """Empties it (each run does, as TF's session fills it anew)."""
        self._step_stats = None
        self.partition_graphs = []

    def SerializeToString(self) -> bytes:  # noqa: N802 - protobuf's name
        """TensorFlow's RunMetadata message: ``step_stats`` (field 1) and ``partition_graphs``
        (field 3), as TensorBoard reads it from an event file."""
        fields = []
        if self._step_stats is not None:
            fields.append((1, self._step_stats.SerializeToString()))
        fields += [(3, graph.SerializeToString()) for graph in self.partition_graphs]
        return b"".join(varint.encode(number << 3 | 2) + varint.encode(len(data)) + data for number, data in fields)


