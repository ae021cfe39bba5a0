"""``tensorflow.python.tools.inspect_checkpoint``: what a checkpoint holds, printed."""

from __future__ import annotations

import numpy as np


def print_tensors_in_checkpoint_file(file_name, tensor_name, all_tensors, all_tensor_names=False,
                                     count_exclude_pattern=""):
    """Prints the checkpoint's tensors (``all_tensors``), their names (``all_tensor_names``),
    one tensor (``tensor_name``), or else each tensor's name, dtype and shape."""
    from ..train.saver import NewCheckpointReader  # noqa: PLC0415

    reader = NewCheckpointReader(file_name)
    if all_tensors or all_tensor_names:
        for key in sorted(reader.get_variable_to_shape_map()):
            print("tensor_name: ", key)
            if all_tensors:
                print(reader.get_tensor(key))
    elif not tensor_name:
        print(reader.debug_string().decode("utf-8"))
    else:
        if not reader.has_tensor(tensor_name):
            raise KeyError(f"Tensor {tensor_name!r} is not in the checkpoint {file_name}")
        print("tensor_name: ", tensor_name)
        print(reader.get_tensor(tensor_name))
    if all_tensors:
        total = sum(int(np.prod(shape)) for shape in reader.get_variable_to_shape_map().values())
        print(f"# Total number of params: {total}")
