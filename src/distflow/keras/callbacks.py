"""``tf.keras.callbacks``: what ``fit`` calls at the beginning and end of training, epochs and
batches: History, the progress bar, checkpoints, early stopping, learning-rate schedules,
CSV and TensorBoard logs, and a monitor that posts each epoch's logs to a server."""

from __future__ import annotations

import collections
import csv
import json
import logging
import os
import urllib.error
import urllib.parse
import urllib.request

import numpy as np

from .. import summary as summary_lib
from ..protos import distflow_pb2 as pb
from . import backend as K
from .utils.generic_utils import Progbar


class Callback:
    def __init__(self):
        self.model = None
        self.params: dict = {}
        self.validation_data = None

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self.model = model

    def on_epoch_begin(self, epoch, logs=None): pass
    def on_epoch_end(self, epoch, logs=None): pass
    def on_batch_begin(self, batch, logs=None): pass
    def on_batch_end(self, batch, logs=None): pass
    def on_train_batch_begin(self, batch, logs=None): self.on_batch_begin(batch, logs)
    def on_train_batch_end(self, batch, logs=None): self.on_batch_end(batch, logs)
    def on_test_batch_begin(self, batch, logs=None): pass
    def on_test_batch_end(self, batch, logs=None): pass
    def on_predict_batch_begin(self, batch, logs=None): pass
    def on_predict_batch_end(self, batch, logs=None): pass
    def on_train_begin(self, logs=None): pass
    def on_train_end(self, logs=None): pass
    def on_test_begin(self, logs=None): pass
    def on_test_end(self, logs=None): pass
    def on_predict_begin(self, logs=None): pass
    def on_predict_end(self, logs=None): pass


class CallbackList:
    def __init__(self, callbacks, model, params):
        self.callbacks = list(callbacks)
        for c in self.callbacks:
            c.set_model(model)
            c.set_params(params)

    def __getattr__(self, name):
        if not name.startswith("on_"):
            raise AttributeError(name)
        indexed = name.startswith(("on_epoch_", "on_batch_")) or "_batch_" in name  # (epoch or batch, logs)

        def call(*args):
            # each callback gets its logs, a dict even where the caller had none, as Keras passes them
            # (a LambdaCallback's ``on_train_end=lambda logs: ...`` takes it)
            if indexed:
                args = (args[0], args[1] if len(args) > 1 and args[1] is not None else {})
            else:
                args = (args[0] if args and args[0] is not None else {},)
            for c in self.callbacks:
                getattr(c, name)(*args)
        return call


class BaseLogger(Callback):
    """(Kept for programs that name it: ``fit`` averages the epoch's metrics itself.)"""


class History(Callback):
    """Every epoch's logs: ``history.history['loss']`` is the list of epoch losses."""

    def on_train_begin(self, logs=None):
        self.epoch = []
        self.history = {}

    def on_epoch_end(self, epoch, logs=None):
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)


class ProgbarLogger(Callback):
    """The progress bar ``fit`` shows with ``verbose=1`` (a line per epoch with ``verbose=2``)."""

    def __init__(self, count_mode="samples", stateful_metrics=None, verbose=1):
        super().__init__()
        self.count_mode, self.verbose = count_mode, verbose
        self.stateful_metrics = set(stateful_metrics or ())

    def on_train_begin(self, logs=None):
        self.epochs = self.params["epochs"]

    def on_epoch_begin(self, epoch, logs=None):
        if self.verbose:
            print(f"Epoch {epoch + 1}/{self.epochs}")
        self.target = self.params["samples"] if self.count_mode == "samples" else self.params["steps"]
        self.progbar = Progbar(self.target, verbose=self.verbose, stateful_metrics=self.stateful_metrics,
                               unit_name="sample" if self.count_mode == "samples" else "step")
        self.seen = 0

    def on_batch_end(self, batch, logs=None):
        logs = logs or {}
        self.seen += logs.get("size", 1) if self.count_mode == "samples" else 1
        values = [(k, logs[k]) for k in self.params["metrics"] if k in logs]
        if self.verbose and (self.target is None or self.seen < self.target):  # (a dataset's pass: no target)
            self.progbar.update(self.seen, values)

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        values = [(k, logs[k]) for k in self.params["metrics"] if k in logs]
        if self.verbose:
            self.progbar.stateful_metrics = set(k for k, _ in values)  # (the epoch's means, shown as they are)
            if self.target is None:  # (the pass's length is known now: the bar ends there)
                self.target = self.progbar.target = self.seen
            self.progbar.update(self.target, values)


class ModelCheckpoint(Callback):
    """Saves the model (or its weights) after each epoch, to ``filepath`` formatted with the
    epoch and the logs (``weights.{epoch:02d}-{val_loss:.2f}.hdf5``); with ``save_best_only``
    only when ``monitor`` improved."""

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False, save_weights_only=False,
                 mode="auto", save_freq="epoch", period=1, **kwargs):
        super().__init__()
        self.filepath, self.monitor, self.verbose = filepath, monitor, verbose
        self.save_best_only, self.save_weights_only, self.period = save_best_only, save_weights_only, period
        self.monitor_op, self.best = _monitor_op(mode, monitor)
        self._since = 0

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        self._since += 1
        if self._since < self.period:
            return
        self._since = 0
        path = self.filepath.format(epoch=epoch + 1, **logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                K._warn(f"Can save best model only with {self.monitor} available, skipping.")
                return
            if not self.monitor_op(current, self.best):
                if self.verbose > 0:
                    print(f"\nEpoch {epoch + 1:05d}: {self.monitor} did not improve from {self.best:.5f}")
                return
            if self.verbose > 0:
                print(f"\nEpoch {epoch + 1:05d}: {self.monitor} improved from {self.best:.5f} to {current:.5f}, "
                      f"saving model to {path}")
            self.best = current
        elif self.verbose > 0:
            print(f"\nEpoch {epoch + 1:05d}: saving model to {path}")
        if self.save_weights_only:
            self.model.save_weights(path, overwrite=True)
        else:
            self.model.save(path, overwrite=True)


def _monitor_op(mode, monitor):
    if mode not in ("auto", "min", "max"):
        mode = "auto"
    if mode == "max" or (mode == "auto" and ("acc" in monitor or monitor.startswith("fmeasure"))):
        return np.greater, -np.inf
    return np.less, np.inf


class EarlyStopping(Callback):
    """Stops training when ``monitor`` has not improved by ``min_delta`` for ``patience`` epochs."""

    def __init__(self, monitor="val_loss", min_delta=0, patience=0, verbose=0, mode="auto", baseline=None,
                 restore_best_weights=False):
        super().__init__()
        self.monitor, self.patience, self.verbose, self.baseline = monitor, patience, verbose, baseline
        self.restore_best_weights = restore_best_weights
        self.monitor_op, _ = _monitor_op(mode, monitor)
        self.min_delta = abs(min_delta) * (1 if self.monitor_op == np.greater else -1)
        self.stopped_epoch = 0

    def on_train_begin(self, logs=None):
        self.wait, self.stopped_epoch, self.best_weights = 0, 0, None
        self.best = self.baseline if self.baseline is not None else \
            (-np.inf if self.monitor_op == np.greater else np.inf)

    def on_epoch_end(self, epoch, logs=None):
        current = (logs or {}).get(self.monitor)
        if current is None:
            K._warn(f"Early stopping conditioned on metric `{self.monitor}` which is not available. Available "
                    f"metrics are: {','.join(logs or {})}")
            return
        if self.monitor_op(current - self.min_delta, self.best):
            self.best, self.wait = current, 0
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            return
        self.wait += 1
        if self.wait >= self.patience:
            self.stopped_epoch = epoch
            self.model.stop_training = True
            if self.restore_best_weights and self.best_weights is not None:
                if self.verbose > 0:
                    print("Restoring model weights from the end of the best epoch.")
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs=None):
        if self.stopped_epoch > 0 and self.verbose > 0:
            print(f"Epoch {self.stopped_epoch + 1:05d}: early stopping")


class LearningRateScheduler(Callback):
    """Sets the learning rate at each epoch's beginning to ``schedule(epoch)`` (or
    ``schedule(epoch, lr)``)."""

    def __init__(self, schedule, verbose=0):
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch, logs=None):
        lr = self.model.optimizer.lr
        try:
            new = self.schedule(epoch, float(K.get_value(lr)))
        except TypeError:
            new = self.schedule(epoch)
        if not isinstance(new, (float, int, np.floating, np.integer)):
            raise ValueError('The output of the "schedule" function should be float.')
        K.set_value(lr, float(new))
        if self.verbose > 0:
            print(f"\nEpoch {epoch + 1:05d}: LearningRateScheduler reducing learning rate to {new}.")

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["lr"] = float(K.get_value(self.model.optimizer.lr))


class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by ``factor`` when ``monitor`` stops improving for ``patience`` epochs."""

    def __init__(self, monitor="val_loss", factor=0.1, patience=10, verbose=0, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0, **kwargs):
        super().__init__()
        if factor >= 1.0:
            raise ValueError("ReduceLROnPlateau does not support a factor >= 1.0.")
        self.monitor, self.factor, self.patience, self.verbose = monitor, factor, patience, verbose
        self.min_delta, self.cooldown, self.min_lr = min_delta, cooldown, min_lr
        self.mode = mode

    def on_train_begin(self, logs=None):
        op, self.best = _monitor_op(self.mode, self.monitor)
        self.monitor_op = (lambda a, b: np.less(a, b - self.min_delta)) if op == np.less else \
            (lambda a, b: np.greater(a, b + self.min_delta))
        self.wait = self.cooldown_counter = 0

    def on_epoch_end(self, epoch, logs=None):
        logs = logs if logs is not None else {}
        logs["lr"] = float(K.get_value(self.model.optimizer.lr))
        current = logs.get(self.monitor)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self.monitor_op(current, self.best):
            self.best, self.wait = current, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = float(K.get_value(self.model.optimizer.lr))
                if old > self.min_lr:
                    new = max(old * self.factor, self.min_lr)
                    K.set_value(self.model.optimizer.lr, new)
                    if self.verbose > 0:
                        print(f"\nEpoch {epoch + 1:05d}: ReduceLROnPlateau reducing learning rate to {new}.")
                    self.cooldown_counter, self.wait = self.cooldown, 0


class CSVLogger(Callback):
    """Writes each epoch's logs as a row of a CSV file (``append`` to continue one)."""

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.filename, self.sep, self.append = filename, separator, append
        self.keys = None

    def on_train_begin(self, logs=None):
        self.append_header = not (self.append and os.path.exists(self.filename) and os.path.getsize(self.filename))
        self.file = open(self.filename, "a" if self.append else "w", newline="")
        self.writer = None

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self.keys is None:
            self.keys = sorted(logs)
        if self.writer is None:
            self.writer = csv.DictWriter(self.file, fieldnames=["epoch"] + self.keys, delimiter=self.sep)
            if self.append_header:
                self.writer.writeheader()
        self.writer.writerow({"epoch": epoch, **{k: logs.get(k, "NA") for k in self.keys}})
        self.file.flush()

    def on_train_end(self, logs=None):
        self.file.close()
        self.writer = None


class LambdaCallback(Callback):
    def __init__(self, on_epoch_begin=None, on_epoch_end=None, on_batch_begin=None, on_batch_end=None,
                 on_train_begin=None, on_train_end=None, **kwargs):
        super().__init__()
        for name, fn in (("on_epoch_begin", on_epoch_begin), ("on_epoch_end", on_epoch_end),
                         ("on_batch_begin", on_batch_begin), ("on_batch_end", on_batch_end),
                         ("on_train_begin", on_train_begin), ("on_train_end", on_train_end), *kwargs.items()):
            if fn is not None:
                setattr(self, name, fn)


class TerminateOnNaN(Callback):
    def on_batch_end(self, batch, logs=None):
        loss = (logs or {}).get("loss")
        if loss is not None and (np.isnan(loss) or np.isinf(loss)):
            print(f"Batch {batch}: Invalid loss, terminating training")
            self.model.stop_training = True


class RemoteMonitor(Callback):
    """Posts each epoch's logs (``{"epoch": n, "loss": ..., ...}``) to ``root + path``: as a form
    whose ``field`` holds the JSON, or as JSON with ``send_as_json``. A server that cannot be
    reached is a warning, as in Keras, and training goes on. Keras posted with the
    ``requests`` library; this uses the standard library's ``urllib`` (so nothing more to
    install), with a 10 s timeout where ``requests`` had none."""

    def __init__(self, root="http://localhost:9000", path="/publish/epoch/end/", field="data", headers=None,
                 send_as_json=False):
        super().__init__()
        self.root, self.path, self.field, self.headers, self.send_as_json = root, path, field, headers, send_as_json

    def on_epoch_end(self, epoch, logs=None):
        send = {"epoch": epoch}
        for key, value in (logs or {}).items():
            send[key] = value.item() if isinstance(value, np.generic) else value  # (NumPy scalars as JSON's)
        headers = dict(self.headers or {})
        if self.send_as_json:
            body = json.dumps(send).encode()
            headers.setdefault("Content-Type", "application/json")
        else:
            body = urllib.parse.urlencode({self.field: json.dumps(send)}).encode()
            headers.setdefault("Content-Type", "application/x-www-form-urlencoded")
        request = urllib.request.Request(self.root + self.path, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                response.read()
        except (urllib.error.URLError, OSError, ValueError):
            logging.getLogger("distflow").warning("Warning: could not reach RemoteMonitor root server at %s",
                                                  self.root)


class TensorBoard(Callback):
    """Writes each epoch's logs as scalars (training under ``log_dir/train``, validation under
    ``log_dir/validation``, as TF's callback does), and the graph with ``write_graph``."""

    def __init__(self, log_dir="./logs", histogram_freq=0, batch_size=32, write_graph=True, write_grads=False,
                 write_images=False, update_freq="epoch", **kwargs):
        super().__init__()
        self.log_dir, self.write_graph, self.update_freq = log_dir, write_graph, update_freq
        self._writers = {}
        self._samples = 0

    def _writer(self, which):
        if which not in self._writers:
            graph = self.model.outputs[0].graph if self.write_graph and which == "train" else None
            self._writers[which] = summary_lib.FileWriter(os.path.join(self.log_dir, which), graph=graph)
        return self._writers[which]

    def on_train_begin(self, logs=None):
        self._writer("train")

    def _write(self, logs, step):
        by_writer = collections.defaultdict(list)
        for k, v in (logs or {}).items():
            if k in ("batch", "size", "num_steps"):
                continue
            which, tag = ("validation", k[4:]) if k.startswith("val_") else ("train", k)
            by_writer[which].append(pb.Summary.Value(tag=f"epoch_{tag}" if self.update_freq == "epoch" else tag,
                                                     simple_value=float(v)))
        for which, values in by_writer.items():
            writer = self._writer(which)
            writer.add_summary(pb.Summary(value=values), step)
            writer.flush()

    def on_batch_end(self, batch, logs=None):
        self._samples += (logs or {}).get("size", 1)
        if isinstance(self.update_freq, int) and self._samples >= self.update_freq:
            self._write({k: v for k, v in (logs or {}).items()}, self._samples)
            self._samples = 0

    def on_epoch_end(self, epoch, logs=None):
        self._write(logs, epoch)

    def on_train_end(self, logs=None):
        for writer in self._writers.values():
            writer.close()
        self._writers = {}

