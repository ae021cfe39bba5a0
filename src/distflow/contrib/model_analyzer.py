"""``tf.contrib.slim.model_analyzer``: how big a model's variables and a graph's outputs are."""

from __future__ import annotations


def tensor_description(var) -> str:
    """``(dtype AxBxC)``, e.g. ``(float32 1x8x8x1024)``."""
    return f"({var.dtype.name} {'x'.join(str(size) for size in var.get_shape())})"


def analyze_ops(graph, print_info=False) -> int:
    """The number of elements of all the outputs of ``graph``'s operations (an unknown size counts 0)."""
    if print_info:
        print("---------\nOperations: name -> (type shapes) [size]\n---------")
    total = 0
    for op in graph.get_operations():
        size = sum(output.get_shape().num_elements() or 0 for output in op.outputs)
        if print_info:
            shapes = [tensor_description(output) for output in op.outputs if output.get_shape()]
            print(op.name, "\t->", ", ".join(shapes), f"[{size}]")
        total += size
    return total


def analyze_vars(variables, print_info=False) -> tuple[int, int]:
    """(number of elements, bytes) of ``variables``; ``print_info`` prints each variable's."""
    if print_info:
        print("---------\nVariables: name (type shape) [size]\n---------")
    total_size = total_bytes = 0
    for var in variables:
        size = var.get_shape().num_elements() or 0
        nbytes = size * var.dtype.size
        total_size += size
        total_bytes += nbytes
        if print_info:
            print(var.name, tensor_description(var), f"[{size}, bytes: {nbytes}]")
    if print_info:
        print(f"Total size of variables: {total_size}\nTotal bytes of variables: {total_bytes}")
    return total_size, total_bytes
