"""TLS on a cluster's gRPC port and data port (distributed/tls.py), with certificates
made here by the openssl command: a cluster that trains over TLS, and clients without
the cluster's certificates refused."""

import os
import shutil
import socket
import subprocess

import grpc
import numpy as np
import pytest

import distflow as tf
from cluster_util import LocalCluster
from distflow.distributed import tls
from distflow.distributed.rpc import Channels
from distflow.distributed.transport import TensorClient, hello_frame
from distflow.protos import distflow_pb2 as pb

pytestmark = pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl command to make certificates")


def _openssl(*args, cwd):
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def _authority(directory, name: str) -> dict:
    """A certificate authority and one certificate it signed for 127.0.0.1 and localhost."""
    d = str(directory)
    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    _openssl("req", "-x509", *key, "-keyout", f"{name}-ca.key", "-out", f"{name}-ca.pem", "-days", "2",
             "-subj", f"/CN={name} test CA", cwd=d)
    _openssl("req", *key, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name} task", cwd=d)
    with open(os.path.join(d, f"{name}.ext"), "w") as f:
        f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{name}-ca.pem", "-CAkey", f"{name}-ca.key",
             "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext", cwd=d)
    return {tls.CA_ENV: os.path.join(d, f"{name}-ca.pem"), tls.CERT_ENV: os.path.join(d, f"{name}.pem"),
            tls.KEY_ENV: os.path.join(d, f"{name}.key")}


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    d = tmp_path_factory.mktemp("tls")
    return {"cluster": _authority(d, "cluster"), "rogue": _authority(d, "rogue")}


@pytest.fixture(scope="module")
def cluster(certs):
    with pytest.MonkeyPatch.context() as mp:
        for name, path in certs["cluster"].items():
            mp.setenv(name, path)
        mp.setenv("DISTFLOW_SHARED_MEMORY", "0")  # every tensor through the (TLS) data socket
        c = LocalCluster({"ps": 1, "worker": 1})
    yield c
    c.close()


def _use(monkeypatch, files: dict) -> None:
    for name in (tls.CA_ENV, tls.CERT_ENV, tls.KEY_ENV):
        if name in files:
            monkeypatch.setenv(name, files[name])
        else:
            monkeypatch.delenv(name, raising=False)


def test_a_cluster_trains_over_tls(cluster, certs, monkeypatch):
    _use(monkeypatch, certs["cluster"])
    big = np.arange(1 << 20, dtype=np.float32)  # 4 MB each way between the tasks
    g = tf.Graph()
    with g.as_default():
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(tf.zeros([big.size]), name="v")
        with tf.device("/job:worker/task:0"):
            update = v.assign_add(tf.constant(big) * 2.0)
    with tf.Session(cluster.target("worker"), graph=g) as sess:
        sess.run(v.initializer)
        sess.run(update)
        np.testing.assert_array_equal(sess.run(v), big * 2.0)


def _status(cluster):
    channels = Channels()
    try:
        return channels.call(cluster.address("ps"), "distflow.Worker", "GetStatus", pb.GetStatusRequest(), timeout=10)
    finally:
        channels.close()


@pytest.mark.parametrize("who", ["no TLS", "the CA but no certificate", "another CA's certificate"])
def test_clients_without_the_clusters_certificate_are_refused(cluster, certs, monkeypatch, who):
    files = {"no TLS": {}, "the CA but no certificate": {tls.CA_ENV: certs["cluster"][tls.CA_ENV]},
             "another CA's certificate": dict(certs["rogue"], **{tls.CA_ENV: certs["cluster"][tls.CA_ENV]})}[who]
    _use(monkeypatch, files)
    with pytest.raises(grpc.RpcError) as caught:
        _status(cluster)
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE
    _use(monkeypatch, certs["cluster"])
    port = _status(cluster).data_port
    _use(monkeypatch, files)
    payload = pb.RunGraphRequest(graph_handle="none").SerializeToString()
    with pytest.raises(tf.errors.UnavailableError):
        TensorClient().call("127.0.0.1", port, payload, 10.0, "the ps")
    assert cluster.procs[("ps", 0)].poll() is None


def test_a_server_whose_certificate_another_ca_signed_is_not_trusted(cluster, certs, monkeypatch):
    _use(monkeypatch, dict(certs["cluster"], **{tls.CA_ENV: certs["rogue"][tls.CA_ENV]}))
    with pytest.raises(grpc.RpcError) as caught:
        _status(cluster)
    assert caught.value.code() == grpc.StatusCode.UNAVAILABLE


def test_plain_bytes_on_a_tls_data_port_close_the_connection(cluster, certs, monkeypatch):
    _use(monkeypatch, certs["cluster"])
    port = _status(cluster).data_port
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(hello_frame(None) + b"\x00" * 64)
        s.settimeout(10)
        try:
            while s.recv(4096):
                pass  # (a TLS alert, at most)
        except ConnectionResetError:
            pass
    assert _status(cluster).task == "/job:ps/replica:0/task:0"


def test_tls_settings_that_cannot_work_are_clear_errors(tmp_path, certs):
    files = certs["cluster"]
    with pytest.raises(ValueError, match="DISTFLOW_TLS_CERT and DISTFLOW_TLS_KEY together"):
        tls.configured_tls({tls.CERT_ENV: files[tls.CERT_ENV]})
    with pytest.raises(ValueError, match="Cannot read DISTFLOW_TLS_CA="):
        tls.configured_tls({tls.CA_ENV: str(tmp_path / "missing.pem")})
    (tmp_path / "not.pem").write_text("hello")
    with pytest.raises(ValueError, match="is not a PEM file"):
        tls.configured_tls({tls.CA_ENV: str(tmp_path / "not.pem")})
    assert tls.configured_tls({}) is None
    config = tls.configured_tls(files)
    assert config.serves and config.connects
