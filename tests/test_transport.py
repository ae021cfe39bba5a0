"""The raw-TCP tensor data path (distributed/transport.py), one server and one client.

Tasks in real processes use it in test_distributed.py and test_cluster.py; here its
frames are checked directly: several tensors in one request, an error for one of
them, hostile requests.
"""

import socket
import struct

import numpy as np
import pytest

import distflow as tf
from conftest import assert_oracle
from distflow.distributed.transport import MAGIC, MAX_KEYS, TensorClient, TensorServer

VALUES = {
    "x:0": np.arange(5.0),
    "big:0": np.arange(300 * 400, dtype=np.float32).reshape(300, 400),  # > one small frame
    "words:0": np.array([b"ab", b"c"], dtype=object),
    "scalar:0": np.int64(7),
}


def _handler(step_id, key, timeout):
    if key[2] not in VALUES:
        raise tf.errors.NotFoundError(None, None, f"step {step_id} sends no {key[2]}")
    return VALUES[key[2]]


@pytest.fixture
def server():
    s = TensorServer("127.0.0.1", _handler)
    yield s
    s.close()


def _key(name):
    return ("/job:ps/replica:0/task:0/device:CPU:0", "/job:worker/replica:0/task:0/device:CPU:0", name)


def test_one_request_brings_several_tensors_in_order_with_an_error_for_one(server):
    client = TensorClient()
    names = ["x:0", "missing:0", "big:0", "words:0", "scalar:0"]
    stream = client.open_stream("127.0.0.1", server.port, 3, [_key(n) for n in names], 5.0, "the test peer")
    assert_oracle(stream.get(_key("big:0")), VALUES["big:0"])  # read past two, which wait for their reader
    assert_oracle(stream.get(_key("x:0")), VALUES["x:0"])
    with pytest.raises(tf.errors.NotFoundError, match="step 3 sends no missing:0"):
        stream.get(_key("missing:0"))
    assert_oracle(stream.get(_key("words:0")), VALUES["words:0"])
    assert_oracle(stream.get(_key("scalar:0")), np.asarray(VALUES["scalar:0"]))
    # every key read: the connection went back to the pool and serves the next request
    assert_oracle(client.fetch("127.0.0.1", server.port, 4, _key("big:0"), 5.0, "the test peer"), VALUES["big:0"])
    client.close()


def test_an_aborted_stream_wakes_its_reader_and_fails_what_is_left():
    import threading

    release = threading.Event()

    def slow_handler(step_id, key, timeout):
        release.wait(10)
        return _handler(step_id, key, timeout)

    slow = TensorServer("127.0.0.1", slow_handler)
    try:
        stream = TensorClient().open_stream("127.0.0.1", slow.port, 1, [_key("x:0"), _key("big:0")], 30.0, "peer")
        failures = []
        reader = threading.Thread(target=lambda: failures.append(pytest.raises(tf.errors.CancelledError,
                                                                                  stream.get, _key("x:0"))))
        reader.start()
        stream.abort(tf.errors.CancelledError(None, None, "step 1 was cancelled"))
        reader.join(10)
        assert not reader.is_alive() and failures
        with pytest.raises(tf.errors.CancelledError, match="step 1 was cancelled"):
            stream.get(_key("big:0"))
    finally:
        release.set()
        slow.close()


def test_hostile_requests_close_their_connection_and_the_server_keeps_serving(server):
    too_many = "\n".join(";".join(_key(f"t{i}:0")) for i in range(MAX_KEYS + 1)).encode()
    requests = [
        struct.pack("<4sQII", MAGIC, 1, 0, len(too_many)) + too_many,
        struct.pack("<4sQII", MAGIC, 1, 0, 5000) + b"k" * 5000,  # one key longer than MAX_KEY
        struct.pack("<4sQII", MAGIC, 1, 0, 0xFFFFFFFF),  # keys longer than any request may be
        struct.pack("<4sQII", MAGIC, 1, 0, 4) + b"\xff\xfe\xfd\xfc",  # not UTF-8
    ]
    for request in requests:
        with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
            s.sendall(request)
            s.settimeout(5)
            try:
                assert s.recv(4096) == b""  # closed without an answer
            except ConnectionResetError:
                pass
    bad_key = ("only", "two")
    with pytest.raises(tf.errors.InvalidArgumentError, match="bad rendezvous key"):
        TensorClient().fetch("127.0.0.1", server.port, 1, bad_key, 5.0, "the test peer")
    assert_oracle(TensorClient().fetch("127.0.0.1", server.port, 1, _key("x:0"), 5.0, "the test peer"),
                  VALUES["x:0"])


def test_a_peer_that_never_answers_times_out_naming_the_tensor_and_peer():
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        with pytest.raises(tf.errors.DeadlineExceededError, match="timed out receiving 'big:0' from the test peer"):
            TensorClient().fetch("127.0.0.1", silent.getsockname()[1], 1, _key("big:0"), 0.3, "the test peer")
