"""``tf.sparse``: the SparseTensor ops under their TF 1.13+ names."""

from ._namespace import missing
from .ops.categorical_ops import sparse_cross as cross, sparse_cross_hashed as cross_hashed  # noqa: F401
from .ops.sparse_ops import SparseTensor, from_dense  # noqa: F401
from .ops.sparse_ops import sparse_expand_dims as expand_dims, sparse_eye as eye  # noqa: F401
from .ops.sparse_ops import deserialize_sparse as deserialize  # noqa: F401
from .ops.sparse_ops import serialize_sparse as serialize  # noqa: F401
from .ops.sparse_ops import sparse_add as add  # noqa: F401
from .ops.sparse_ops import sparse_concat as concat  # noqa: F401
from .ops.sparse_ops import sparse_fill_empty_rows as fill_empty_rows  # noqa: F401
from .ops.sparse_ops import sparse_mask as mask  # noqa: F401
from .ops.sparse_ops import sparse_maximum as maximum  # noqa: F401
from .ops.sparse_ops import sparse_merge as merge  # noqa: F401
from .ops.sparse_ops import sparse_minimum as minimum  # noqa: F401
from .ops.sparse_ops import sparse_placeholder as placeholder  # noqa: F401
from .ops.sparse_ops import sparse_reduce_max as reduce_max  # noqa: F401
from .ops.sparse_ops import sparse_reduce_max_sparse as reduce_max_sparse  # noqa: F401
from .ops.sparse_ops import sparse_reduce_sum as reduce_sum  # noqa: F401
from .ops.sparse_ops import sparse_reduce_sum_sparse as reduce_sum_sparse  # noqa: F401
from .ops.sparse_ops import sparse_reorder as reorder  # noqa: F401
from .ops.sparse_ops import sparse_reset_shape as reset_shape  # noqa: F401
from .ops.sparse_ops import sparse_reshape as reshape  # noqa: F401
from .ops.sparse_ops import sparse_retain as retain  # noqa: F401
from .ops.sparse_ops import sparse_segment_mean as segment_mean  # noqa: F401
from .ops.sparse_ops import sparse_segment_sqrt_n as segment_sqrt_n  # noqa: F401
from .ops.sparse_ops import sparse_segment_sum as segment_sum  # noqa: F401
from .ops.sparse_ops import sparse_slice as slice  # noqa: F401, A001
from .ops.sparse_ops import sparse_softmax as softmax  # noqa: F401
from .ops.sparse_ops import sparse_split as split  # noqa: F401
from .ops.sparse_ops import sparse_tensor_dense_matmul as matmul  # noqa: F401
from .ops.sparse_ops import sparse_tensor_dense_matmul as sparse_dense_matmul  # noqa: F401
from .ops.sparse_ops import sparse_tensor_to_dense as to_dense  # noqa: F401
from .ops.sparse_ops import sparse_to_indicator as to_indicator  # noqa: F401
from .ops.sparse_ops import sparse_transpose as transpose  # noqa: F401

__getattr__ = missing("tf.sparse")
