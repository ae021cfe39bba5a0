"""``tf.summary``: summary ops that TensorBoard reads, and the FileWriter of event files."""

from .._namespace import missing
from ..protos.distflow_pb2 import Event, SessionLog, Summary, SummaryMetadata  # noqa: F401
from ..protos.distflow_pb2 import SummaryDescription, TaggedRunMetadata  # noqa: F401
from .summary_ops import (audio, get_summary_description, histogram, image, merge, merge_all, scalar,  # noqa: F401
                          tensor_summary, text)
from .writer import FileWriter, FileWriterCache, summary_iterator  # noqa: F401

__getattr__ = missing("tf.summary")
