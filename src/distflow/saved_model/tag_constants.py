"""The tags that name a SavedModel's meta graphs, as TensorFlow's."""

SERVING = "serve"
TRAINING = "train"
EVAL = "eval"
GPU = "gpu"
TPU = "tpu"
