#!/usr/bin/env python3
"""Draws the end-to-end benchmark's plot from its JSON lines.

Usage: plot_e2e.py RESULTS.jsonl OUTPUT.png
RESULTS.jsonl holds one object per run: {"topology": …, "frame_ms": …, "condition": …, "pesq_wb": …,
"engine_delay_ms": …, "engine_delay_p95_ms": …, "opusenc_pesq_wb": …}.
Plots PESQ-WB against the engine's mouth-to-ear delay (the device floor taken off), one marker
per condition and frame length, the per-second p95 as a bar to the right, and opusenc's score as
a line.
"""

import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)


def main():
    results_path, output_path = sys.argv[1], sys.argv[2]
    rows = [json.loads(line) for line in open(results_path) if line.strip()]
    figure, axes = plt.subplots(figsize=(8, 5))
    markers = {20.0: "o", 10.0: "s", 5.0: "^"}
    for row in rows:
        delay, p95 = row["engine_delay_ms"], row["engine_delay_p95_ms"]
        marker = markers.get(float(row["frame_ms"]), "x")
        axes.plot([delay, max(delay, p95)], [row["pesq_wb"]] * 2, color="0.7", linewidth=1)
        axes.scatter([delay], [row["pesq_wb"]], marker=marker)
        axes.annotate(f'{row.get("topology", "")} {row["condition"]} ({row["frame_ms"]:g} ms)', (delay, row["pesq_wb"]), fontsize=7,
                      xytext=(4, 3), textcoords="offset points")
    if rows:
        axes.axhline(rows[0]["opusenc_pesq_wb"], linestyle="--", color="0.4", label="opusenc/opusdec")
    axes.set_xlabel("engine delay, mouth to ear less the device loop (ms); bar to the per-second p95")
    axes.set_ylabel("PESQ-WB")
    axes.set_title("voicechat end to end: quality against delay")
    axes.legend(loc="lower left")
    figure.tight_layout()
    figure.savefig(output_path, dpi=120)


if __name__ == "__main__":
    main()
