"""ClusterSpec, replica_device_setter and its strategies, and the cluster resolvers."""

import json

import pytest

import distflow as tf
from distflow.distributed.cluster_resolver import expand_hostlist

CLUSTER = {"ps": ["ps0:2222", "ps1:2222"], "worker": ["w0:2222", "w1:2222", "w2:2222"]}


# -- ClusterSpec ------------------------------------------------------------------------------


def test_cluster_spec_dense_and_sparse():
    spec = tf.train.ClusterSpec({"worker": {1: "w1:2222", 3: "w3:2222"}, "ps": ["ps0:2222"]})
    assert spec.jobs == ["worker", "ps"]  # in the order given, as TF's
    assert spec.num_tasks("worker") == 2
    assert spec.task_indices("worker") == [1, 3]
    assert spec.task_address("worker", 3) == "w3:2222"
    assert spec.job_tasks("worker") == [None, "w1:2222", None, "w3:2222"]
    assert spec.as_dict() == {"ps": ["ps0:2222"], "worker": {1: "w1:2222", 3: "w3:2222"}}
    assert repr(spec) == "ClusterSpec({'worker': {1: 'w1:2222', 3: 'w3:2222'}, 'ps': ['ps0:2222']})"
    assert tf.train.ClusterSpec({"a": {0: "h"}}) == tf.train.ClusterSpec({"a": ["h"]})
    assert tf.train.ClusterSpec({"a": {0: "h"}}).as_dict() == {"a": ["h"]}
    assert tf.train.ClusterSpec(spec) == spec
    assert not tf.train.ClusterSpec({}) and tf.train.ClusterSpec({}).as_dict() == {}


def test_cluster_spec_errors():
    spec = tf.train.ClusterSpec(CLUSTER)
    with pytest.raises(ValueError, match="No such job"):
        spec.num_tasks("chief")
    with pytest.raises(ValueError, match="No task with index 5"):
        spec.task_address("worker", 5)
    with pytest.raises(TypeError, match="must be a dictionary"):
        tf.train.ClusterSpec(["w0:2222"])
    with pytest.raises(TypeError, match="Task indices"):
        tf.train.ClusterSpec({"w": {"first": "h"}})
    assert tf.train.ClusterSpec({"w": {"1": "h:1", "0": "h:0"}}).task_indices("w") == [0, 1]  # as in TF
    with pytest.raises(TypeError, match="address"):
        tf.train.ClusterSpec({"w": [2222]})


# -- replica_device_setter -----------------------------------------------------------------------


def test_round_robin_and_worker_placement():
    with tf.device(tf.train.replica_device_setter(cluster=CLUSTER)):
        v = tf.Variable([1.0, 2.0])
        w = tf.Variable([3.0, 4.0])
        a = v + w
        x = tf.Variable(1.0)
    assert v.device == "/job:ps/task:0"
    assert w.device == "/job:ps/task:1"
    assert x.device == "/job:ps/task:0"
    assert a.device == "/job:worker"
    assert v.initializer.device == "/job:ps/task:0"  # colocated with its variable


def test_cpu_constraint_and_other_jobs():
    with tf.device(tf.train.replica_device_setter(cluster=CLUSTER)):
        with tf.device("/cpu:0"):
            v = tf.Variable(1.0)
        with tf.device("/job:moon"):
            w = tf.Variable(2.0)
        u = tf.Variable(3.0)  # the counter did not advance for w
    assert v.device == "/job:ps/task:0/device:CPU:0"
    assert w.device == "/job:moon"
    assert u.device == "/job:ps/task:1"


def test_ps_device_with_its_own_job():
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_device="/job:moon/cpu:0")):
        v = tf.Variable(1.0)
        w = tf.Variable(2.0)
    assert v.device == "/job:moon/task:0/device:CPU:0"
    assert w.device == "/job:moon/task:1/device:CPU:0"


def test_worker_device_and_merge_devices():
    setter = tf.train.replica_device_setter(ps_tasks=1, worker_device="/job:worker/task:1")
    with tf.device(setter):
        c = tf.constant(1.0)
        with tf.device("/gpu:0"):
            d = tf.constant(2.0)
    assert c.device == "/job:worker/task:1"
    assert d.device == "/job:worker/task:1/device:GPU:0"
    keep = tf.train.replica_device_setter(ps_tasks=1, merge_devices=False)
    with tf.device(keep):
        with tf.device("/gpu:0"):
            e = tf.constant(3.0)
    assert e.device == "/device:GPU:0"


def test_no_ps_job_gives_none():
    assert tf.train.replica_device_setter(cluster={"worker": ["w:1"]}) is None
    assert tf.train.replica_device_setter(ps_tasks=0) is None
    with tf.device("/job:outer"):
        with tf.device(tf.train.replica_device_setter(ps_tasks=0)):
            c = tf.constant(1)
    assert c.device == ""
    with pytest.raises(TypeError, match="callable"):
        tf.train.replica_device_setter(ps_tasks=2, ps_strategy=3)


def test_greedy_strategy_by_bytes_and_by_count():
    greedy = tf.train.GreedyLoadBalancingStrategy(2, tf.train.byte_size_load_fn)
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_strategy=greedy)):
        a = tf.Variable(tf.zeros([2, 2]))     # 16 bytes
        b = tf.Variable(tf.zeros([2], tf.float32))  # 8
        c = tf.Variable(tf.zeros([4]))        # 16
        d = tf.Variable(tf.zeros([3]))        # 12
    assert [v.device for v in (a, b, c, d)] == ["/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:1",
                                                "/job:ps/task:0"]
    counting = tf.train.GreedyLoadBalancingStrategy(2, lambda op: 1)
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_strategy=counting)):
        vs = [tf.Variable(1.0) for _ in range(4)]
    assert [v.device for v in vs] == ["/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0", "/job:ps/task:1"]


def test_byte_size_of_a_scalar_variable_and_multi_output_error():
    v = tf.Variable(1.0)
    assert tf.train.byte_size_load_fn(v.op) == 4
    with pytest.raises(ValueError, match="one output"):
        tf.train.byte_size_load_fn(tf.split(tf.zeros([4]), 2)[0].op)


def test_random_strategy_is_stable():
    strategy = tf.train.RandomStrategy(3, seed=1)
    with tf.device(tf.train.replica_device_setter(ps_tasks=3, ps_strategy=strategy)):
        vs = [tf.Variable(1.0, name=f"v{i}") for i in range(6)]
    devices = [v.device for v in vs]
    tf.reset_default_graph()
    strategy = tf.train.RandomStrategy(3, seed=1)
    with tf.device(tf.train.replica_device_setter(ps_tasks=3, ps_strategy=strategy)):
        again = [tf.Variable(1.0, name=f"v{i}").device for i in range(6)]
    assert devices == again and len(set(devices)) > 1


# -- resolvers ---------------------------------------------------------------------------------


def test_tf_config_resolver():
    config = {"cluster": {"chief": ["h0:2222"], "worker": ["h1:2222", "h2:2222"], "ps": ["h3:2222"]},
              "task": {"type": "worker", "index": 1}, "rpc_layer": "grpc"}
    resolver = tf.train.TFConfigClusterResolver(environment={"TF_CONFIG": json.dumps(config)})
    assert resolver.cluster_spec().as_dict() == config["cluster"]
    assert (resolver.task_type, resolver.task_id) == ("worker", 1)
    assert resolver.master() == "grpc://h2:2222"
    assert not resolver.is_chief
    chief = tf.train.TFConfigClusterResolver(task_type="chief", task_id=0,
                                             environment={"TF_CONFIG": json.dumps(config)})
    assert chief.is_chief
    no_chief = {"cluster": {"worker": ["a:1", "b:1"]}, "task": {"type": "worker", "index": 0}}
    assert tf.train.TFConfigClusterResolver(environment={"TF_CONFIG": json.dumps(no_chief)}).is_chief
    with pytest.raises(ValueError, match="not valid JSON"):
        tf.train.TFConfigClusterResolver(environment={"TF_CONFIG": "{oops"})
    with pytest.raises(ValueError, match="No task with index 7"):
        bad = dict(config, task={"type": "worker", "index": 7})
        tf.train.TFConfigClusterResolver(environment={"TF_CONFIG": json.dumps(bad)})
    assert tf.train.TFConfigClusterResolver(environment={}).cluster_spec().as_dict() == {}
    with pytest.raises(ValueError, match="TF_CONFIG's task index must be a whole number, got 'one'"):
        bad = dict(config, task={"type": "worker", "index": "one"})
        tf.train.TFConfigClusterResolver(environment={"TF_CONFIG": json.dumps(bad)})
    with pytest.raises(ValueError, match="TF_CONFIG's cluster and task must be JSON objects"):
        tf.train.TFConfigClusterResolver(environment={"TF_CONFIG": json.dumps({"cluster": ["h0:2222"]})})


def test_slurm_hostlist_and_resolver():
    assert expand_hostlist("node[01-03,7],gpu2") == ["node01", "node02", "node03", "node7", "gpu2"]
    assert expand_hostlist("a,b") == ["a", "b"]
    env = {"SLURM_PROCID": "2", "SLURM_NTASKS": "4", "SLURM_JOB_NODELIST": "n[1-2]", "SLURM_NTASKS_PER_NODE": "2"}
    resolver = tf.train.SlurmClusterResolver(jobs={"worker": 3, "ps": 1}, port_base=9000, environment=env)
    assert resolver.cluster_spec().as_dict() == {"ps": ["n1:9000"], "worker": ["n1:9001", "n2:9000", "n2:9001"]}
    assert (resolver.task_type, resolver.task_id) == ("worker", 1)
    assert resolver.master() == "grpc://n2:9000"
    with pytest.raises(ValueError, match="Not running under Slurm"):
        tf.train.SlurmClusterResolver(environment={})
    with pytest.raises(ValueError, match="need 5 tasks"):
        tf.train.SlurmClusterResolver(jobs={"worker": 5}, environment=env)


def test_simple_and_union_resolvers_under_tf_distribute():
    resolvers = tf.distribute.cluster_resolver
    assert resolvers.TFConfigClusterResolver is tf.train.TFConfigClusterResolver
    workers = resolvers.SimpleClusterResolver(tf.train.ClusterSpec({"worker": ["a:1", "b:2"]}), task_type="worker",
                                              task_id=1, rpc_layer="grpc")
    assert workers.master() == ""  # (no master given: an in-process session)
    assert workers.master("worker", 0) == "grpc://a:1" and not workers.is_chief
    ps = resolvers.SimpleClusterResolver({"ps": ["c:3"]}, master="c:3")
    assert ps.master(rpc_layer="grpc") == "grpc://c:3"
    union = resolvers.UnionResolver(workers, ps)
    assert union.cluster_spec().as_dict() == {"worker": ["a:1", "b:2"], "ps": ["c:3"]}
    assert (union.task_type, union.task_id) == ("worker", 1)
    more = resolvers.SimpleClusterResolver({"worker": {2: "d:4"}})
    assert resolvers.UnionResolver(workers, more).cluster_spec().as_dict() == {"worker": ["a:1", "b:2", "d:4"]}
    with pytest.raises(KeyError, match="job 'worker' task 0"):
        resolvers.UnionResolver(workers, workers).cluster_spec()
    with pytest.raises(TypeError, match="sub-class of `ClusterResolver`"):
        resolvers.UnionResolver(workers, {"ps": ["c:3"]})
    with tf.Graph().as_default():
        tf.losses.mean_squared_error([1.0], [2.0], reduction=tf.losses.Reduction.SUM)
        assert tf.distribute.get_loss_reduction() == tf.distribute.ReduceOp.SUM
        tf.losses.mean_squared_error([1.0], [2.0])
        assert tf.distribute.get_loss_reduction() == tf.distribute.ReduceOp.MEAN
