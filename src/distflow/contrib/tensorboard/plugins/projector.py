"""``tf.contrib.tensorboard.plugins.projector``: the configuration of TensorBoard's embedding
projector, as TF 1.x's word2vec tutorial wrote it::

    config = projector.ProjectorConfig()
    embedding = config.embeddings.add()
    embedding.tensor_name = embeddings.name
    embedding.metadata_path = "metadata.tsv"
    projector.visualize_embeddings(writer, config)

The messages are TensorBoard's (``ProjectorConfig``, ``EmbeddingInfo``, ``SpriteMetadata``,
same fields and numbers), made from their descriptor when this module loads;
``visualize_embeddings`` writes them as text to ``projector_config.pbtxt`` in the writer's
log directory, where TensorBoard's projector reads them, next to the checkpoints that hold
the embedding variables.
"""

from __future__ import annotations

import os

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format

from ....ops.io_ops import atomic_write

PROJECTOR_FILENAME = "projector_config.pbtxt"


def _messages():
    """TensorBoard's projector_config.proto, described field by field."""
    f = descriptor_pb2.FileDescriptorProto(name="distflow_projector_config.proto", package="tensorboard",
                                           syntax="proto3")
    scalar = descriptor_pb2.FieldDescriptorProto

    def message(name, fields):
        m = f.message_type.add(name=name)
        for field_name, number, kind, repeated, type_name in fields:
            m.field.add(name=field_name, number=number, type=kind, type_name=type_name or None,
                        label=scalar.LABEL_REPEATED if repeated else scalar.LABEL_OPTIONAL)

    message("SpriteMetadata", [("image_path", 1, scalar.TYPE_STRING, False, ""),
                               ("single_image_dim", 2, scalar.TYPE_UINT32, True, "")])
    message("EmbeddingInfo", [("tensor_name", 1, scalar.TYPE_STRING, False, ""),
                              ("metadata_path", 2, scalar.TYPE_STRING, False, ""),
                              ("bookmarks_path", 3, scalar.TYPE_STRING, False, ""),
                              ("tensor_shape", 4, scalar.TYPE_UINT32, True, ""),
                              ("sprite", 5, scalar.TYPE_MESSAGE, False, ".tensorboard.SpriteMetadata"),
                              ("tensor_path", 6, scalar.TYPE_STRING, False, "")])
    message("ProjectorConfig", [("model_checkpoint_path", 1, scalar.TYPE_STRING, False, ""),
                                ("embeddings", 2, scalar.TYPE_MESSAGE, True, ".tensorboard.EmbeddingInfo"),
                                ("model_checkpoint_dir", 3, scalar.TYPE_STRING, False, "")])
    pool = descriptor_pool.DescriptorPool()
    pool.Add(f)
    return [message_factory.GetMessageClass(pool.FindMessageTypeByName(f"tensorboard.{n}"))
            for n in ("SpriteMetadata", "EmbeddingInfo", "ProjectorConfig")]


SpriteMetadata, EmbeddingInfo, ProjectorConfig = _messages()


def visualize_embeddings(summary_writer, config) -> None:
    """Writes ``config`` (a ProjectorConfig) to ``projector_config.pbtxt`` in the log
    directory of ``summary_writer`` (a ``tf.summary.FileWriter``)."""
    logdir = summary_writer.get_logdir() if hasattr(summary_writer, "get_logdir") else None
    if logdir is None:
        raise ValueError("Summary writer must have a logdir")
    text = text_format.MessageToString(config).encode()
    atomic_write(os.path.join(logdir, PROJECTOR_FILENAME), lambda f: f.write(text))
