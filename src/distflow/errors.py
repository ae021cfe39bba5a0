"""``tf.errors``: TensorFlow's error classes and codes."""

from .framework.errors import *  # noqa: F401,F403
from .framework.errors import (  # noqa: F401
    AbortedError, AlreadyExistsError, CancelledError, DataLossError, DeadlineExceededError,
    FailedPreconditionError, InternalError, InvalidArgumentError, NotFoundError, OpError,
    OutOfRangeError, PermissionDeniedError, ResourceExhaustedError, UnauthenticatedError,
    UnavailableError, UnimplementedError, UnknownError, error_code_from_exception_type,
    exception_type_from_error_code)
