"""Writes framework/tf_op_signatures.json: for each op type distflow registers that TensorFlow
also has, which of TensorFlow's attrs its inputs and outputs determine (a type attr by the
dtype of an argument, a list of types by a list argument's dtypes, a count by a list
argument's length), which attrs TensorFlow knows and which it requires (those with no
default). distflow's exported GraphDefs carry
them, so that TensorFlow imports its graphs (framework/tf_attrs.py).

Run in a virtual environment with TensorFlow (it is never a dependency of distflow):

    python -m distflow.tools.make_tf_op_signatures
"""

from __future__ import annotations

import json
import os


def _argument(arg) -> list:
    """[type attr, count attr, type-list attr], each "" where the argument has none."""
    return [arg.type_attr, arg.number_attr, arg.type_list_attr]


def main() -> None:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    from tensorflow.python.framework import op_def_registry  # noqa: PLC0415 - TensorFlow only here

    import importlib  # noqa: PLC0415
    import pkgutil  # noqa: PLC0415

    import distflow  # noqa: F401, PLC0415
    import distflow.ops  # noqa: PLC0415
    from distflow.framework import registry  # noqa: PLC0415
    for module in pkgutil.iter_modules(distflow.ops.__path__):  # (every op family registered)
        importlib.import_module(f"distflow.ops.{module.name}")
    table = {}
    for op_type in sorted(registry._OPS):
        op_def = op_def_registry.get(op_type)
        if op_def is None:
            continue
        table[op_type] = {"in": [_argument(a) for a in op_def.input_arg],
                          "out": [_argument(a) for a in op_def.output_arg],
                          "attrs": sorted(a.name for a in op_def.attr),
                          "required": sorted(a.name for a in op_def.attr if not a.HasField("default_value"))}
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "framework",
                        "tf_op_signatures.json")
    with open(path, "w", encoding="utf-8") as f:  # (an op a line)
        f.write("{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}"
                                     for k, v in sorted(table.items())) + "\n}\n")
    print(f"{len(table)} op types written to {path}")


if __name__ == "__main__":
    main()
