"""The kernel-free core: graphs, operations, tensors, dtypes, shapes, devices, errors."""
