"""TensorFlow's own message definitions (package ``tensorflow``), built here from TF's field
names and numbers so that tests can check that what distflow writes is what TF's parsers
read, without TensorFlow installed. Only the fields distflow writes are declared; TF's
parsers keep unknown fields, so a smaller schema is a stricter check of ours."""

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

F = descriptor_pb2.FieldDescriptorProto
_TYPES = {"string": F.TYPE_STRING, "bytes": F.TYPE_BYTES, "int32": F.TYPE_INT32, "int64": F.TYPE_INT64,
          "float": F.TYPE_FLOAT, "double": F.TYPE_DOUBLE, "bool": F.TYPE_BOOL}

# message -> [(field name, number, type or ".tensorflow.Message", repeated?)]
_MESSAGES = {
    "TensorShapeProto.Dim": [("size", 1, "int64", False), ("name", 2, "string", False)],
    "TensorShapeProto": [("dim", 2, ".tensorflow.TensorShapeProto.Dim", True), ("unknown_rank", 3, "bool", False)],
    "TensorProto": [("dtype", 1, "enum", False), ("tensor_shape", 2, ".tensorflow.TensorShapeProto", False),
                    ("tensor_content", 4, "bytes", False), ("float_val", 5, "float", True),
                    ("int_val", 7, "int32", True), ("string_val", 8, "bytes", True), ("int64_val", 10, "int64", True)],
    "AttrValue.ListValue": [("s", 2, "bytes", True), ("i", 3, "int64", True), ("f", 4, "float", True),
                            ("b", 5, "bool", True), ("type", 6, "enum", True),
                            ("shape", 7, ".tensorflow.TensorShapeProto", True)],
    "AttrValue": [("list", 1, ".tensorflow.AttrValue.ListValue", False), ("s", 2, "bytes", False),
                  ("i", 3, "int64", False), ("f", 4, "float", False), ("b", 5, "bool", False),
                  ("type", 6, "enum", False), ("shape", 7, ".tensorflow.TensorShapeProto", False),
                  ("tensor", 8, ".tensorflow.TensorProto", False)],
    "NodeDef.AttrEntry": [("key", 1, "string", False), ("value", 2, ".tensorflow.AttrValue", False)],
    "NodeDef": [("name", 1, "string", False), ("op", 2, "string", False), ("input", 3, "string", True),
                ("device", 4, "string", False), ("attr", 5, ".tensorflow.NodeDef.AttrEntry", True)],
    "VersionDef": [("producer", 1, "int32", False), ("min_consumer", 2, "int32", False)],
    "GraphDef": [("node", 1, ".tensorflow.NodeDef", True), ("versions", 4, ".tensorflow.VersionDef", False)],
    "SaverDef": [("filename_tensor_name", 1, "string", False), ("save_tensor_name", 2, "string", False),
                 ("restore_op_name", 3, "string", False), ("max_to_keep", 4, "int32", False),
                 ("sharded", 5, "bool", False), ("keep_checkpoint_every_n_hours", 6, "float", False),
                 ("version", 7, "enum", False)],
    "VariableDef": [("variable_name", 1, "string", False), ("initializer_name", 2, "string", False),
                    ("snapshot_name", 3, "string", False), ("is_resource", 5, "bool", False),
                    ("initial_value_name", 6, "string", False), ("trainable", 7, "bool", False)],
    "CollectionDef.NodeList": [("value", 1, "string", True)],
    "CollectionDef.BytesList": [("value", 1, "bytes", True)],
    "CollectionDef.Int64List": [("value", 1, "int64", True)],
    "CollectionDef.FloatList": [("value", 1, "float", True)],
    "CollectionDef": [("node_list", 1, ".tensorflow.CollectionDef.NodeList", False),
                      ("bytes_list", 2, ".tensorflow.CollectionDef.BytesList", False),
                      ("int64_list", 3, ".tensorflow.CollectionDef.Int64List", False),
                      ("float_list", 4, ".tensorflow.CollectionDef.FloatList", False)],
    "MetaGraphDef.MetaInfoDef": [("meta_graph_version", 1, "string", False), ("tags", 4, "string", True),
                                 ("tensorflow_version", 5, "string", False),
                                 ("tensorflow_git_version", 6, "string", False)],
    "MetaGraphDef.CollectionDefEntry": [("key", 1, "string", False), ("value", 2, ".tensorflow.CollectionDef", False)],
    "MetaGraphDef": [("meta_info_def", 1, ".tensorflow.MetaGraphDef.MetaInfoDef", False),
                     ("graph_def", 2, ".tensorflow.GraphDef", False), ("saver_def", 3, ".tensorflow.SaverDef", False),
                     ("collection_def", 4, ".tensorflow.MetaGraphDef.CollectionDefEntry", True)],
    "HistogramProto": [("min", 1, "double", False), ("max", 2, "double", False), ("num", 3, "double", False),
                       ("sum", 4, "double", False), ("sum_squares", 5, "double", False),
                       ("bucket_limit", 6, "double", True), ("bucket", 7, "double", True)],
    "Summary.Image": [("height", 1, "int32", False), ("width", 2, "int32", False), ("colorspace", 3, "int32", False),
                      ("encoded_image_string", 4, "bytes", False)],
    "Summary.Value": [("tag", 1, "string", False), ("simple_value", 2, "float", False),
                      ("image", 4, ".tensorflow.Summary.Image", False), ("histo", 5, ".tensorflow.HistogramProto", False),
                      ("tensor", 8, ".tensorflow.TensorProto", False)],
    "Summary": [("value", 1, ".tensorflow.Summary.Value", True)],
    "SessionLog": [("status", 1, "int32", False), ("checkpoint_path", 2, "string", False), ("msg", 3, "string", False)],
    "Event": [("wall_time", 1, "double", False), ("step", 2, "int64", False), ("file_version", 3, "string", False),
              ("graph_def", 4, "bytes", False), ("summary", 5, ".tensorflow.Summary", False),
              ("session_log", 7, ".tensorflow.SessionLog", False), ("meta_graph_def", 9, "bytes", False)],
    "CheckpointState": [("model_checkpoint_path", 1, "string", False),
                        ("all_model_checkpoint_paths", 2, "string", True),
                        ("all_model_checkpoint_timestamps", 3, "double", True)],
}
_MAP_ENTRIES = {"NodeDef.AttrEntry", "MetaGraphDef.CollectionDefEntry"}
_ONEOFS = {"AttrValue": "value", "CollectionDef": "kind"}


def _build():
    file = descriptor_pb2.FileDescriptorProto(name="tf_reference.proto", package="tensorflow", syntax="proto3")
    enum = file.enum_type.add(name="DataType")
    for name, number in [("DT_INVALID", 0), ("DT_FLOAT", 1), ("DT_DOUBLE", 2), ("DT_INT32", 3), ("DT_STRING", 7),
                         ("DT_INT64", 9), ("DT_BOOL", 10), ("DT_FLOAT_REF", 101), ("DT_INT64_REF", 109)]:
        enum.value.add(name=name, number=number)
    enum.value.add(name="DT_INT32_REF", number=103)
    enum.value.add(name="DT_STRING_REF", number=107)
    enum.value.add(name="DT_DOUBLE_REF", number=102)
    messages = {}
    for full in _MESSAGES:  # parents first: the dict lists nested types before their users, parents later
        parts = full.split(".")
        if len(parts) == 1:
            messages[full] = file.message_type.add(name=full)
    for full in _MESSAGES:
        parts = full.split(".")
        if len(parts) == 2:
            messages[full] = messages[parts[0]].nested_type.add(name=parts[1])
            if full in _MAP_ENTRIES:
                messages[full].options.map_entry = True
    saver_version = messages["SaverDef"].enum_type.add(name="CheckpointFormatVersion")
    for name, number in [("LEGACY", 0), ("V1", 1), ("V2", 2)]:
        saver_version.value.add(name=name, number=number)
    for full, fields in _MESSAGES.items():
        message = messages[full]
        oneof = _ONEOFS.get(full)
        if oneof:
            message.oneof_decl.add(name=oneof)
        for name, number, kind, repeated in fields:
            field = message.field.add(name=name, number=number,
                                      label=F.LABEL_REPEATED if repeated else F.LABEL_OPTIONAL)
            if kind == "enum":
                field.type = F.TYPE_ENUM
                field.type_name = ".tensorflow.SaverDef.CheckpointFormatVersion" if full == "SaverDef" \
                    else ".tensorflow.DataType"
            elif kind.startswith("."):
                field.type = F.TYPE_MESSAGE
                field.type_name = kind
            else:
                field.type = _TYPES[kind]
            if oneof and not repeated:
                field.oneof_index = 0
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return {name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"tensorflow.{name}"))
            for name in ("GraphDef", "NodeDef", "MetaGraphDef", "SaverDef", "VariableDef", "CheckpointState", "Event",
                         "Summary")}


TF = _build()
