"""``tf.keras.utils.Progbar``: the progress bar ``Model.fit`` prints."""

from __future__ import annotations

import math
import sys
import time


class Progbar:
    """Keras's progress bar: ``update(current, values)`` shows the count, a 30-character bar, the
    ETA (or the time per unit once done) and each value's running mean."""

    def __init__(self, target, width=30, verbose=1, interval=0.05, stateful_metrics=None, unit_name="step"):
        self.target, self.width, self.verbose, self.interval = target, width, verbose, interval
        self.stateful_metrics = set(stateful_metrics or ())
        self.unit_name = unit_name
        self._dynamic = (hasattr(sys.stdout, "isatty") and sys.stdout.isatty()) or "ipykernel" in sys.modules
        self._total_width = 0
        self._seen_so_far = 0
        self._values: dict = {}
        self._values_order: list = []
        self._start = time.time()
        self._last_update = 0.0

    def update(self, current, values=None) -> None:
        for k, v in values or ():
            if k not in self._values_order:
                self._values_order.append(k)
            if k not in self.stateful_metrics:
                seen = max(current - self._seen_so_far, 1)
                total, count = self._values.get(k, [0.0, 0])
                self._values[k] = [total + float(v) * seen, count + seen]
            else:
                self._values[k] = [float(v), 1]
        self._seen_so_far = current
        now = time.time()
        info = f" - {now - self._start:.0f}s"
        done = self.target is not None and current >= self.target
        if self.verbose == 1:
            if not done and now - self._last_update < self.interval:
                return
            previous = self._total_width
            if self._dynamic:
                sys.stdout.write("\b" * previous + "\r")
            else:
                sys.stdout.write("\n")
            if self.target is not None:
                digits = int(math.log10(self.target)) + 1 if self.target > 0 else 1
                bar = f"{current:{digits}d}/{self.target} ["
                filled = int(self.width * current / self.target) if self.target else self.width
                if filled > 0:
                    bar += "=" * (filled - 1) + (">" if current < self.target else "=")
                bar += "." * (self.width - filled) + "]"
            else:
                bar = f"{current:7d}/Unknown"
            self._total_width = len(bar)
            sys.stdout.write(bar)
            per_unit = (now - self._start) / current if current else 0.0
            if self.target is not None and current < self.target:
                eta = per_unit * (self.target - current)
                eta_text = (f"{int(eta // 3600)}:{int(eta % 3600) // 60:02d}:{int(eta % 60):02d}" if eta > 3600 else
                            f"{int(eta // 60)}:{int(eta % 60):02d}" if eta > 60 else f"{int(eta)}s")
                info = f" - ETA: {eta_text}"
            elif per_unit >= 1:
                info += f" {per_unit:.0f}s/{self.unit_name}"
            elif per_unit >= 1e-3:
                info += f" {per_unit * 1e3:.0f}ms/{self.unit_name}"
            else:
                info += f" {per_unit * 1e6:.0f}us/{self.unit_name}"
            info += self._values_text()
            self._total_width += len(info)
            if previous > self._total_width:
                info += " " * (previous - self._total_width)
            if done:
                info += "\n"
            sys.stdout.write(info)
            sys.stdout.flush()
        elif self.verbose == 2 and done:
            digits = int(math.log10(self.target)) + 1 if self.target > 0 else 1
            sys.stdout.write(f"{current:{digits}d}/{self.target}" + info + self._values_text() + "\n")
            sys.stdout.flush()
        self._last_update = now

    def _values_text(self) -> str:
        text = ""
        for k in self._values_order:
            total, count = self._values[k]
            mean = total / max(1, count)
            text += f" - {k}: {mean:.4f}" if abs(mean) > 1e-3 else f" - {k}: {mean:.4e}"
        return text

    def add(self, n, values=None) -> None:
        self.update(self._seen_so_far + n, values)
