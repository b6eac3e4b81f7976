#!/usr/bin/env python3
"""Draws the quality benchmark's plots from its JSON lines.

Usage: plot.py RESULTS.jsonl OUTPUT_DIR
RESULTS.jsonl holds one object per simulated condition:
  {"receiver": "engine"|"baseline", "fixture": …, "loss": 0.1, "burst": 1|3, "burst_ms": …,
   "delay_change": "none"|"drifting"|"stepping", "jitter_ms": …, "pesq_wb": …,
   "delay_trace": "path/to/trace.csv" (optional)}
Writes pesq-vs-loss.png (random and bursty loss, engine against baseline) and
buffer-delay.png (buffer delay over time for the traces given).
"""

import csv
import json
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)


def main():
    results_path, output_dir = sys.argv[1], sys.argv[2]
    rows = [json.loads(line) for line in open(results_path) if line.strip()]
    os.makedirs(output_dir, exist_ok=True)

    figure, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    for axis, burst, title in ((axes[0], 1, "random loss"), (axes[1], 3, "bursty loss (mean burst 3)")):
        for receiver, style in (("engine", "o-"), ("baseline", "s--")):
            points = defaultdict(list)
            for row in rows:
                if row["receiver"] == receiver and row["jitter_ms"] == 0 and row.get("burst_ms", 0) == 0 and row.get("delay_change", "none") == "none" and (row["loss"] == 0 or row["burst"] == burst):
                    points[row["loss"]].append(row["pesq_wb"])
            losses = sorted(points)
            axis.plot([100 * loss for loss in losses], [sum(points[l]) / len(points[l]) for l in losses], style,
                      label=receiver)
        axis.set_title(title)
        axis.set_xlabel("packet loss (%)")
        axis.grid(alpha=0.3)
    axes[0].set_ylabel("PESQ-WB (mean over fixtures)")
    axes[0].legend()
    figure.tight_layout()
    figure.savefig(os.path.join(output_dir, "pesq-vs-loss.png"), dpi=110)

    traces = [row for row in rows if row.get("delay_trace")]
    if traces:
        figure, axis = plt.subplots(figsize=(11, 4.2))
        for row in traces:
            seconds, delays = [], []
            with open(row["delay_trace"]) as handle:
                for record in csv.DictReader(handle):
                    seconds.append(float(record["seconds"]))
                    delays.append(float(record["buffer_delay_ms"]))
            axis.plot(seconds, delays, label=f'{row["receiver"]}, jitter {row["jitter_ms"]:g} ms', linewidth=1)
        axis.set_xlabel("time (s)")
        axis.set_ylabel("buffer delay (ms)")
        axis.grid(alpha=0.3)
        axis.legend()
        figure.tight_layout()
        figure.savefig(os.path.join(output_dir, "buffer-delay.png"), dpi=110)


if __name__ == "__main__":
    main()
