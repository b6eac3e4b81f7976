#!/usr/bin/env python3
"""Draws the latency benchmark's plot from its JSON lines.

Usage: plot_latency.py RESULTS.jsonl OUTPUT_DIR
RESULTS.jsonl holds one object per click: {"mode": …, "kind": "engine"|"baseline", "sent_s": …,
"latency_ms": … (null when the click was lost), "correlation": …}. "baseline" is the bare device
round trip (capture copied to playback, no engine).
Writes latency.png: per mode, a histogram of mouth-to-ear latency (engine call and baseline) and
the per-click series.
"""

import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)


def main():
    results_path, output_dir = sys.argv[1], sys.argv[2]
    rows = [json.loads(line) for line in open(results_path) if line.strip()]
    os.makedirs(output_dir, exist_ok=True)
    modes = []
    for row in rows:
        if row["mode"] not in modes:
            modes.append(row["mode"])
    if not modes:
        return
    figure, axes = plt.subplots(len(modes), 2, figsize=(12, 3.8 * len(modes)), squeeze=False)
    for line, mode in enumerate(modes):
        histogram, series = axes[line]
        for kind, color, label in (("engine", "tab:blue", "call (two engines)"),
                                   ("baseline", "tab:gray", "bare device copy")):
            points = [row for row in rows if row["mode"] == mode and row["kind"] == kind]
            found = [row for row in points if row["latency_ms"] is not None]
            latencies = [row["latency_ms"] for row in found]
            if not latencies:
                continue
            ordered = sorted(latencies)
            p50 = ordered[(len(ordered) - 1) // 2]
            histogram.hist(latencies, bins=40, color=color, alpha=0.7, label=f"{label}, p50 {p50:.1f} ms")
            series.plot([row["sent_s"] for row in found], latencies, "o-", color=color, markersize=3,
                        linewidth=0.8, label=label)
            lost = len(points) - len(found)
            if lost:
                series.plot([], [], " ", label=f"{lost} clicks lost ({kind})")
        histogram.set_title(f"{mode}: mouth-to-ear latency")
        histogram.set_xlabel("ms")
        histogram.set_ylabel("clicks")
        histogram.grid(alpha=0.3)
        histogram.legend(fontsize=8)
        series.set_title(f"{mode}: per click")
        series.set_xlabel("time (s)")
        series.set_ylabel("ms")
        series.grid(alpha=0.3)
        series.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(os.path.join(output_dir, "latency.png"), dpi=110)


if __name__ == "__main__":
    main()
