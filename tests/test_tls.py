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


_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]


def _authority(directory, name: str) -> dict:
    """A certificate authority and one certificate it signed for 127.0.0.1 and localhost."""
    d = str(directory)
    _openssl("req", "-x509", *_KEY, "-keyout", f"{name}-ca.key", "-out", f"{name}-ca.pem", "-days", "2",
             "-subj", f"/CN={name} test CA", cwd=d)
    return dict(_certificate(directory, name, name), **{tls.CA_ENV: os.path.join(d, f"{name}-ca.pem")})


def _certificate(directory, ca: str, name: str, names: str = "IP:127.0.0.1,DNS:localhost") -> dict:
    """A certificate for ``names`` that the authority ``ca`` signed, and its key."""
    d = str(directory)
    _openssl("req", *_KEY, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", f"/CN={name} task", cwd=d)
    with open(os.path.join(d, f"{name}.ext"), "w") as f:
        f.write(f"subjectAltName={names}\n")
    _openssl("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}-ca.pem", "-CAkey", f"{ca}-ca.key",
             "-CAcreateserial", "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext", cwd=d)
    return {tls.CERT_ENV: os.path.join(d, f"{name}.pem"), tls.KEY_ENV: os.path.join(d, f"{name}.key")}


@pytest.fixture(scope="module")
def certs(tmp_path_factory):
    d = tmp_path_factory.mktemp("tls")
    cluster = _authority(d, "cluster")
    # signed by the cluster's CA, but for another name than the address it is called by
    elsewhere = dict(_certificate(d, "cluster", "elsewhere", "DNS:elsewhere.example"), **{tls.CA_ENV: cluster[tls.CA_ENV]})
    return {"cluster": cluster, "rogue": _authority(d, "rogue"), "elsewhere": elsewhere}


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


def test_a_key_that_is_not_the_certificates_is_a_clear_error(certs):
    files = dict(certs["cluster"], **{tls.KEY_ENV: certs["rogue"][tls.KEY_ENV]})
    with pytest.raises(ValueError, match="do not make a certificate and its key.*not the certificate's own"):
        tls.configured_tls(files)


def test_a_server_given_only_a_ca_says_that_it_serves_in_clear_text(certs, monkeypatch, caplog):
    _use(monkeypatch, {tls.CA_ENV: certs["cluster"][tls.CA_ENV]})
    with caplog.at_level("WARNING", logger="distflow"):
        server = tf.train.Server.create_local_server()
    server.stop()
    assert any("CLEAR TEXT" in r.getMessage() for r in caplog.records)


def _session_error(target: str) -> str:
    sess = tf.Session(target, config=tf.ConfigProto(connect_timeout_in_ms=300))  # (it cannot connect: the wait)
    with pytest.raises(tf.errors.UnavailableError) as caught:
        sess.run(tf.constant(1))
    return caught.value.message


@pytest.mark.parametrize("who", ["a plain client", "another CA", "no client certificate"])
def test_each_failed_handshake_says_why(cluster, certs, monkeypatch, who):
    files = {"a plain client": {}, "another CA": dict(certs["cluster"], **{tls.CA_ENV: certs["rogue"][tls.CA_ENV]}),
             "no client certificate": {tls.CA_ENV: certs["cluster"][tls.CA_ENV]}}[who]
    _use(monkeypatch, files)
    message = _session_error(cluster.target("ps"))
    expected = {"a plain client": "serves TLS, and this process has no DISTFLOW_TLS_CA",
                "another CA": "is not trusted here",
                "no client certificate": "requires a client certificate"}[who]
    assert expected in message, message


def test_a_server_certificate_for_another_name_says_so(certs, monkeypatch):
    with pytest.MonkeyPatch.context() as mp:
        for name, path in certs["elsewhere"].items():
            mp.setenv(name, path)
        c = LocalCluster({"ps": 1})
    try:
        _use(monkeypatch, certs["cluster"])
        message = _session_error(c.target("ps"))
        assert "is not trusted here" in message and "mismatch" in message, message
    finally:
        c.close()


def test_a_tls_client_of_a_plain_server_says_so(certs, monkeypatch):
    c = LocalCluster({"ps": 1})
    try:
        _use(monkeypatch, certs["cluster"])
        assert "does not serve TLS" in _session_error(c.target("ps"))
    finally:
        c.close()
