"""Exporters: what ``train_and_evaluate`` exports after an evaluation (``EvalSpec(exporters=...)``),
each into ``model_dir/export/<name>/<timestamp>``, as TF 1.x's."""

from __future__ import annotations

import glob
import logging
import os
import shutil

from ..summary.writer import summary_iterator

_log = logging.getLogger("distflow")


class Exporter:
    """Exports an estimator's model after an evaluation: ``export(estimator, export_path,
    checkpoint_path, eval_result, is_the_final_export)`` returns the path written, or None."""

    @property
    def name(self) -> str:
        raise NotImplementedError

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        raise NotImplementedError


class _SavedModelExporter(Exporter):
    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False):
        if not name or not isinstance(name, str):
            raise ValueError(f"An Exporter needs a name (a non-empty string), got {name!r}")
        if not callable(serving_input_receiver_fn):
            raise ValueError(f"serving_input_receiver_fn must be callable, got {serving_input_receiver_fn!r}")
        self._name = name
        self._serving_input_receiver_fn = serving_input_receiver_fn
        self._assets_extra, self._as_text = assets_extra, as_text

    @property
    def name(self) -> str:
        return self._name

    def _export(self, estimator, export_path, checkpoint_path) -> bytes:
        return estimator.export_saved_model(export_path, self._serving_input_receiver_fn,
                                            assets_extra=self._assets_extra, as_text=self._as_text,
                                            checkpoint_path=checkpoint_path)


def _keep_newest(export_path: str, exports_to_keep) -> None:
    """Deletes all but the ``exports_to_keep`` newest exports (timestamped directories)."""
    if exports_to_keep is None:
        return
    stamps = sorted(int(name) for name in os.listdir(export_path) if name.isdigit())
    for stamp in stamps[:max(0, len(stamps) - exports_to_keep)]:
        shutil.rmtree(os.path.join(export_path, str(stamp)), ignore_errors=True)


def _check_keep(exports_to_keep) -> None:
    if exports_to_keep is not None and exports_to_keep <= 0:
        raise ValueError(f"`exports_to_keep`, if provided, must be a positive number. Got {exports_to_keep}")


class FinalExporter(_SavedModelExporter):
    """Exports once, after the final evaluation."""

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        if not is_the_final_export:
            return None
        return self._export(estimator, export_path, checkpoint_path)


class LatestExporter(_SavedModelExporter):
    """Exports after every evaluation, keeping the ``exports_to_keep`` newest exports."""

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False, exports_to_keep=5):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        _check_keep(exports_to_keep)
        self._exports_to_keep = exports_to_keep

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        path = self._export(estimator, export_path, checkpoint_path)
        _keep_newest(export_path, self._exports_to_keep)
        return path


def _loss_smaller(best_eval_result, current_eval_result) -> bool:
    """Whether the current evaluation's loss is below the best one's (BestExporter's default)."""
    for result in (best_eval_result, current_eval_result):
        if not result or "loss" not in result:
            raise ValueError("best_eval_result and current_eval_result must hold the 'loss' metric")
    return best_eval_result["loss"] > current_eval_result["loss"]


class BestExporter(_SavedModelExporter):
    """Exports after an evaluation better than every one before (by ``compare_fn(best,
    current)``, the smaller loss by default), keeping the ``exports_to_keep`` newest. The
    evaluations before this process are read from the event files that
    ``event_file_pattern`` (under model_dir) matches."""

    def __init__(self, name="best_exporter", serving_input_receiver_fn=None, event_file_pattern="eval/*.tfevents.*",
                 compare_fn=_loss_smaller, assets_extra=None, as_text=False, exports_to_keep=5):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        if not callable(compare_fn):
            raise ValueError("`compare_fn` must be callable")
        _check_keep(exports_to_keep)
        self._compare_fn, self._exports_to_keep = compare_fn, exports_to_keep
        self._event_file_pattern = event_file_pattern
        self._best = None
        self._read_events = False

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        if not self._read_events:
            self._read_events = True
            self._best = self._best_in_events(estimator.model_dir)
        if self._best is not None and not self._compare_fn(self._best, eval_result):
            return None
        self._best = dict(eval_result)
        path = self._export(estimator, export_path, checkpoint_path)
        _keep_newest(export_path, self._exports_to_keep)
        return path

    def _best_in_events(self, model_dir: str):
        if not self._event_file_pattern:
            return None
        best = None
        for path in sorted(glob.glob(os.path.join(model_dir, self._event_file_pattern))):
            results: dict = {}
            for event in summary_iterator(path):
                if event.HasField("summary"):
                    step = results.setdefault(event.step, {})
                    for value in event.summary.value:
                        if value.HasField("simple_value"):
                            step[value.tag] = value.simple_value
            for result in results.values():
                try:
                    if best is None or self._compare_fn(best, result):
                        best = result
                except ValueError:
                    continue  # (an evaluation without the metric compared)
        return best
