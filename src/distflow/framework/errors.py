"""TensorFlow's run-time error classes (``tf.errors``).

Every error raised while a graph runs is an :class:`OpError` subclass carrying a
canonical error code, the name of the op that failed and the device it ran on.
Graph-construction mistakes are plain ``ValueError`` / ``TypeError``, as in TF.
"""

from __future__ import annotations

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """A failure while running an op.

    Attributes mirror TensorFlow's: ``node_def`` (the failing node, or None),
    ``op`` (the Operation, when the client graph has it), ``message`` and
    ``error_code``; distflow adds ``device`` (the device it ran on, or None).
    """

    def __init__(self, node_def, op, message: str, error_code: int, device: str | None = None):
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message
        self.error_code = error_code
        self.device = device

    def __str__(self) -> str:
        return self.message


def _make(name: str, code: int, doc: str):
    def __init__(self, node_def, op, message, *, device=None):
        OpError.__init__(self, node_def, op, message, code, device)

    return type(name, (OpError,), {"__init__": __init__, "__doc__": doc})


CancelledError = _make("CancelledError", CANCELLED, "An operation or step was cancelled.")
UnknownError = _make("UnknownError", UNKNOWN, "An unknown error.")
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT,
                             "An op received an invalid argument.")
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED,
                              "A deadline expired before the operation completed.")
NotFoundError = _make("NotFoundError", NOT_FOUND, "A requested entity was not found.")
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS, "An entity already exists.")
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED,
                              "The caller may not run the operation.")
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED,
                               "Some resource (memory, quota) has been exhausted.")
FailedPreconditionError = _make("FailedPreconditionError", FAILED_PRECONDITION,
                                "The system is not in a state to run the operation "
                                "(for example, an uninitialized variable).")
AbortedError = _make("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE,
                        "An iteration went past the valid range.")
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED,
                           "The operation is not implemented or supported.")
InternalError = _make("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _make("UnavailableError", UNAVAILABLE, "A service is unavailable.")
DataLossError = _make("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED,
                             "The request lacks valid authentication credentials.")

_CODE_TO_CLASS = {
    cls_code: cls
    for cls, cls_code in [
        (CancelledError, CANCELLED), (UnknownError, UNKNOWN),
        (InvalidArgumentError, INVALID_ARGUMENT), (DeadlineExceededError, DEADLINE_EXCEEDED),
        (NotFoundError, NOT_FOUND), (AlreadyExistsError, ALREADY_EXISTS),
        (PermissionDeniedError, PERMISSION_DENIED), (ResourceExhaustedError, RESOURCE_EXHAUSTED),
        (FailedPreconditionError, FAILED_PRECONDITION), (AbortedError, ABORTED),
        (OutOfRangeError, OUT_OF_RANGE), (UnimplementedError, UNIMPLEMENTED),
        (InternalError, INTERNAL), (UnavailableError, UNAVAILABLE),
        (DataLossError, DATA_LOSS), (UnauthenticatedError, UNAUTHENTICATED),
    ]
}


def exception_type_from_error_code(error_code: int) -> type[OpError]:
    """The OpError subclass for a canonical error code (UnknownError if unknown)."""
    return _CODE_TO_CLASS.get(error_code, UnknownError)


def error_code_from_exception_type(cls: type[OpError]) -> int:
    for code, c in _CODE_TO_CLASS.items():
        if c is cls:
            return code
    return UNKNOWN
