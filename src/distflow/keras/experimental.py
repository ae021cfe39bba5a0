"""``tf.keras.experimental``: a Keras model as a SavedModel and back, as TF 1.14-1.15 had it.

``export_saved_model`` rebuilds the model from its config in a graph of its own, gives it
the model's weights, and writes that graph as the SavedModel's ``serve`` meta graph (the
signature ``serving_default`` maps the model's input layers to its outputs, by name), the
weights as its variables, and the config as ``assets/saved_model.json``.
``load_from_saved_model`` builds the model again from that config in Keras's graph and
restores the weights (uncompiled, as in TF). TF 1.x also wrote ``train`` and ``eval`` meta
graphs for a compiled model; only the serving graph is written here. Also the cosine
learning-rate schedules (schedules.py), ``SequenceFeatures`` (layers/dense_features.py),
``PeepholeLSTMCell`` (layers/recurrent.py), the premade ``LinearModel`` and
``WideDeepModel`` (premade.py), and ``terminate_keras_multiprocessing_pools``.
"""

from __future__ import annotations

import os

from .. import train
from ..framework import errors, ops
from ..runtime.session import Session
from ..saved_model import constants, signature_constants, signature_def_utils, tag_constants
from ..saved_model.builder import SavedModelBuilder
from . import backend as K
from .models import model_from_json
from .layers.dense_features import SequenceFeatures  # noqa: F401
from .layers.recurrent import PeepholeLSTMCell  # noqa: F401
from .premade import LinearModel, WideDeepModel  # noqa: F401
from .schedules import CosineDecay, CosineDecayRestarts, LinearCosineDecay, NoisyLinearCosineDecay  # noqa: F401

_CONFIG = "saved_model.json"


def export_saved_model(model, saved_model_path, custom_objects=None, as_text=False, input_signature=None,
                       serving_only=False):
    """Writes ``model`` (Sequential or functional) to ``saved_model_path`` as a SavedModel."""
    if input_signature is not None:
        raise errors.UnimplementedError(None, None, "export_saved_model(input_signature=...): a subclassed model "
                                        "cannot be exported; export a Sequential or functional model")
    try:
        config = model.to_json()
    except NotImplementedError as e:
        raise errors.UnimplementedError(None, None, f"export_saved_model: {e}") from None
    weights = model.get_weights()
    builder = SavedModelBuilder(saved_model_path)
    with ops.Graph().as_default() as graph, Session(graph=graph) as sess, sess.as_default():
        clone = model_from_json(config, custom_objects)
        clone.set_weights(weights)
        inputs = dict(zip(clone.input_names, clone.inputs))
        outputs = dict(zip(clone.output_names, clone.outputs))
        signature = signature_def_utils.predict_signature_def(inputs, outputs)
        saver = train.Saver({w.op.name: w for w in clone.weights}, sharded=True, allow_empty=True)
        builder.add_meta_graph_and_variables(
            sess, [tag_constants.SERVING], clear_devices=True, saver=saver,
            signature_def_map={signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: signature})
    assets = os.path.join(os.fspath(saved_model_path), constants.ASSETS_DIRECTORY)
    os.makedirs(assets, exist_ok=True)
    with open(os.path.join(assets, _CONFIG), "w", encoding="utf-8") as f:
        f.write(config)
    builder.save(as_text)


def load_from_saved_model(saved_model_path, custom_objects=None):
    """The model ``export_saved_model`` wrote, built from its config in Keras's graph with the
    saved weights (not compiled)."""
    path = os.fspath(saved_model_path)
    config_path = os.path.join(path, constants.ASSETS_DIRECTORY, _CONFIG)
    if not os.path.isfile(config_path):
        raise IOError(f"{path} holds no Keras model config ({constants.ASSETS_DIRECTORY}/{_CONFIG}): it is not a "
                      "SavedModel that tf.keras.experimental.export_saved_model wrote")
    with open(config_path, encoding="utf-8") as f:
        config = f.read()
    with ops.Graph().as_default():  # (the names the exported graph gave the weights, in order)
        saved_names = [w.op.name for w in model_from_json(config, custom_objects).weights]
    model = model_from_json(config, custom_objects)
    session = K.get_session()
    with session.graph.as_default():
        saver = train.Saver(dict(zip(saved_names, model.weights)), max_to_keep=None)
    saver.restore(session, os.path.join(path, constants.VARIABLES_DIRECTORY, constants.VARIABLES_FILENAME))
    return model


def terminate_keras_multiprocessing_pools(grace_period=0.1, use_sigkill=False):
    """TF 1.x's way to end the process pools that Keras's enqueuers forked. distflow's
    enqueuers run in threads (``use_multiprocessing`` too), which end with their epochs,
    so there is no pool to end: the list of problems met, as TF returns it, is empty."""
    return []
