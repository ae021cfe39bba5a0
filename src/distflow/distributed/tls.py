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
    _check_files(paths)
    return TlsConfig(data[CA_ENV], data[CERT_ENV], data[KEY_ENV], paths)


def _check_files(paths: dict) -> None:
    """Loads the files as a TLS library would, so that a certificate whose key is another
    one, or a CA file that holds no certificate, is an error naming them now (gRPC's own
    words for it, later, are "the address is in use")."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    if paths[CERT_ENV] is not None:
        try:
            context.load_cert_chain(paths[CERT_ENV], paths[KEY_ENV])
        except ssl.SSLError as e:
            reason = getattr(e, "reason", None) or str(e)
            hint = " (the key is not the certificate's own)" if "MISMATCH" in str(reason).upper() else ""
            raise ValueError(f"{CERT_ENV}={paths[CERT_ENV]!r} and {KEY_ENV}={paths[KEY_ENV]!r} do not make a "
                             f"certificate and its key: {reason}{hint}") from None
    if paths[CA_ENV] is not None:
        try:
            context.load_verify_locations(cafile=paths[CA_ENV])
        except ssl.SSLError as e:
            raise ValueError(f"{CA_ENV}={paths[CA_ENV]!r} holds no usable certificate: "
                             f"{getattr(e, 'reason', None) or e}") from None


_HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"


def why_unreachable(address: str, timeout: float = 5.0) -> str:
    """Why a gRPC client of this process cannot talk to the server at ``address``, found by
    trying what gRPC tried, in the open: nothing listens there; the server speaks TLS and
    this process does not, or the other way round; or the TLS handshake's own reason
    (an unknown CA, a name that does not match, no client certificate). '' when every
    step works (the server is merely slow or busy)."""
    import socket  # noqa: PLC0415 - only when a connection failed

    host, _, port = address.rpartition(":")
    host = host.strip("[]")
    config = configured_tls()
    try:
        sock = socket.create_connection((host, int(port)), timeout=timeout)
    except ConnectionRefusedError:
        return f"nothing listens at {address} (connection refused)"
    except (OSError, ValueError) as e:
        return f"cannot connect to {address}: {e}"
    try:
        if config is None or not config.connects:
            sock.sendall(_HTTP2_PREFACE)
            answer = sock.recv(16)
            if answer[:1] == b"\x15" or not answer:  # a TLS alert, or closed without a word
                return (f"{address} serves TLS, and this process has no {CA_ENV} to verify it with (set "
                        f"{CA_ENV}, {CERT_ENV} and {KEY_ENV} as for the cluster's tasks)")
            return ""
        context = config.client_context()
        with context.wrap_socket(sock, server_hostname=host) as tls_sock:
            sock = None
            tls_sock.sendall(_HTTP2_PREFACE)
            answer = tls_sock.recv(16)  # (TLS 1.3 says no to a client certificate only now)
            if answer:
                return ""
            if config.cert is None:
                return (f"{address} closed the TLS connection after its handshake: it requires a client "
                        f"certificate signed by its CA, and this process has none ({CERT_ENV} and {KEY_ENV})")
            return (f"{address} closed the TLS connection after its handshake: it refused this process's "
                    f"certificate {CERT_ENV}={config.paths[CERT_ENV]!r} (signed by another CA?)")
    except ssl.SSLCertVerificationError as e:
        return (f"the certificate of {address} is not trusted here: {e.verify_message} (it must be signed by "
                f"{CA_ENV}={config.paths[CA_ENV]!r} and name the address called)")
    except ssl.SSLError as e:
        reason = getattr(e, "reason", None) or str(e)
        if "WRONG_VERSION_NUMBER" in str(reason).upper() or "RECORD_LAYER" in str(reason).upper():
            return f"{address} does not serve TLS, and this process has {CA_ENV} set: {reason}"
        if "CERTIFICATE_REQUIRED" in str(reason).upper() or "HANDSHAKE_FAILURE" in str(reason).upper():
            return (f"{address} refused this process's TLS handshake ({reason}): it requires a client "
                    f"certificate signed by its CA ({CERT_ENV} and {KEY_ENV})")
        return f"the TLS handshake with {address} failed: {reason}"
    except (OSError, socket.timeout) as e:
        return f"{address} broke off the connection: {e}"
    finally:
        if sock is not None:
            sock.close()
