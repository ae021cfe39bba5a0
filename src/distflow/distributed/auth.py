"""Who may use a task: a shared secret token, checked on every gRPC call and data connection.

A cluster's processes share one token, given to each by its environment, never on a
command line (where other users' ``ps`` would show it): ``DISTFLOW_TOKEN`` holds it, or
``DISTFLOW_TOKEN_FILE`` names a file whose first line holds it. A server started with a
token refuses, with UNAUTHENTICATED, every gRPC call that does not carry it (before
the request is parsed), and closes every data connection whose first frame does not
carry it (a bounded handshake, read under a timeout). Clients (sessions, and servers
calling each other) send the token of their own environment. A server without a
token accepts everyone, as TensorFlow 1.x's did.

What the token does and does not protect: docs/security.md.
"""

from __future__ import annotations

import hmac
import os

import grpc

TOKEN_ENV = "DISTFLOW_TOKEN"
TOKEN_FILE_ENV = "DISTFLOW_TOKEN_FILE"
METADATA_KEY = "distflow-token"
MAX_TOKEN = 1024


def configured_token() -> bytes | None:
    """This process's token (see the module docstring), or None when none is set.

    Raises:
      ValueError: the variable is set but empty, too long or not printable ASCII, or the
        file it names cannot be read.
    """
    value = os.environ.get(TOKEN_ENV)
    source = TOKEN_ENV
    if value is None:
        path = os.environ.get(TOKEN_FILE_ENV)
        if not path:
            return None
        source = f"the file {path!r} ({TOKEN_FILE_ENV})"
        try:
            with open(path, encoding="ascii") as f:
                value = f.readline()
        except (OSError, UnicodeDecodeError) as e:
            raise ValueError(f"Cannot read the distflow token from {source}: {e}") from None
    value = value.strip()
    if not value or len(value) > MAX_TOKEN or not all(33 <= ord(c) < 127 for c in value):
        raise ValueError(f"The distflow token in {source} must be 1 to {MAX_TOKEN} printable ASCII characters "
                         "without spaces")
    return value.encode()


def matches(expected: bytes | None, given: bytes | None) -> bool:
    """Whether ``given`` is the token a server ``expected`` (any, when it expects none);
    compared in constant time."""
    if expected is None:
        return True
    return given is not None and hmac.compare_digest(expected, given)


def call_metadata(token: bytes | None):
    """The metadata a client sends with every gRPC call."""
    return ((METADATA_KEY, token.decode()),) if token is not None else None


class TokenInterceptor(grpc.ServerInterceptor):
    """Lets through only calls that carry the server's token; the others get
    UNAUTHENTICATED without their request being parsed or any method running."""

    def __init__(self, token: bytes, where: str):
        self._token = token
        # (the request's bytes are never parsed)
        self._refusal = grpc.unary_unary_rpc_method_handler(self._refuse, request_deserializer=lambda data: b"")
        self._where = where

    def intercept_service(self, continuation, handler_call_details):
        for key, value in handler_call_details.invocation_metadata or ():
            if key == METADATA_KEY:
                given = value.encode() if isinstance(value, str) else value
                if matches(self._token, given):
                    return continuation(handler_call_details)
                break
        return self._refusal

    def _refuse(self, request, context):
        context.abort(grpc.StatusCode.UNAUTHENTICATED,
                      f"{self._where} requires a token: set {TOKEN_ENV} (or {TOKEN_FILE_ENV}) in the client's "
                      "environment to the cluster's token")
