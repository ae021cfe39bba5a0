"""TLS for a cluster's gRPC port and data port: encryption, and who may connect.

Configured by the environment, as the token is (auth.py), with PEM files:

  DISTFLOW_TLS_CA    the certificate authority that signed the cluster's certificates.
                     A client (a session, or a task calling another) verifies each
                     server's certificate against it, host name or IP address included;
                     a server with it requires each client to present a certificate it
                     signed (mutual TLS).
  DISTFLOW_TLS_CERT  this process's certificate (chain), and
  DISTFLOW_TLS_KEY   its private key: a server needs both; a client presents them.

A server serves TLS when it has a certificate and key; a client uses TLS when it has a CA.
In a cluster every task is both, so each gets all three. A server with a certificate but
no CA encrypts and accepts any client (use the token, then, to say who may call).

Shared-memory transfers between tasks of one host stay as they are: the segments are
readable only by their user (shm.py), and never cross the network.
"""

from __future__ import annotations

import os
import ssl
from dataclasses import dataclass

import grpc

CA_ENV = "DISTFLOW_TLS_CA"
CERT_ENV = "DISTFLOW_TLS_CERT"
KEY_ENV = "DISTFLOW_TLS_KEY"


@dataclass(frozen=True)
class TlsConfig:
    """The PEM bytes of this process's TLS files (any of them may be None) and their paths."""

    ca: bytes | None
    cert: bytes | None
    key: bytes | None
    paths: dict

    @property
    def serves(self) -> bool:
        """Whether a server of this process serves TLS (it has a certificate and its key)."""
        return self.cert is not None

    @property
    def connects(self) -> bool:
        """Whether this process's clients use TLS (they can verify servers)."""
        return self.ca is not None

    def server_credentials(self) -> grpc.ServerCredentials:
        return grpc.ssl_server_credentials([(self.key, self.cert)], root_certificates=self.ca,
                                           require_client_auth=self.ca is not None)

    def channel_credentials(self) -> grpc.ChannelCredentials:
        return grpc.ssl_channel_credentials(root_certificates=self.ca, private_key=self.key,
                                            certificate_chain=self.cert)

    def server_context(self) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(self.paths[CERT_ENV], self.paths[KEY_ENV])
        if self.ca is not None:
            context.load_verify_locations(cafile=self.paths[CA_ENV])
            context.verify_mode = ssl.CERT_REQUIRED
        return context

    def client_context(self) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # (verifies the server and its name)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_verify_locations(cafile=self.paths[CA_ENV])
        if self.cert is not None:
            context.load_cert_chain(self.paths[CERT_ENV], self.paths[KEY_ENV])
        return context


def configured_tls(environ=None) -> TlsConfig | None:
    """This process's TLS files (see the module docstring), or None when none is set.

    Raises:
      ValueError: a file cannot be read, or a certificate is given without its key (or a
        key without its certificate).
    """
    env = os.environ if environ is None else environ
    paths = {name: env.get(name) or None for name in (CA_ENV, CERT_ENV, KEY_ENV)}
    if not any(paths.values()):
        return None
    if (paths[CERT_ENV] is None) != (paths[KEY_ENV] is None):
        raise ValueError(f"TLS needs {CERT_ENV} and {KEY_ENV} together (a certificate and its private key); "
                         f"only {CERT_ENV if paths[CERT_ENV] else KEY_ENV} is set")
    data = {}
    for name, path in paths.items():
        if path is None:
            data[name] = None
            continue
        try:
            with open(path, "rb") as f:
                data[name] = f.read()
        except OSError as e:
            raise ValueError(f"Cannot read {name}={path!r}: {e.strerror or e}") from None
        if b"-----BEGIN" not in data[name]:
            raise ValueError(f"{name}={path!r} is not a PEM file")
    return TlsConfig(data[CA_ENV], data[CERT_ENV], data[KEY_ENV], paths)
