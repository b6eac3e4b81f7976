#!/usr/bin/env python3
"""Draws the relay benchmark's plot from its JSON lines.

Usage: plot_relay.py RESULTS.jsonl OUTPUT_DIR
RESULTS.jsonl holds one object per (participants, server) level, server "relay" or "echo" (the bare
UDP echo baseline), plus optionally one {"soak_participants": …, "rss_samples_bytes": […]} line.
Writes relay.png: packets/s per core, p50/p99 delay, memory per participant, and the soak's RSS.
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
    levels = [row for row in rows if "server" in row]
    soak = next((row for row in rows if "rss_samples_bytes" in row), None)
    os.makedirs(output_dir, exist_ok=True)

    figure, axes = plt.subplots(1, 4, figsize=(18, 4.2))
    for server, style in (("relay", "o-"), ("echo", "s--")):
        points = sorted((row for row in levels if row["server"] == server), key=lambda row: row["participants"])
        counts = [row["participants"] for row in points]
        axes[0].plot(counts, [row["per_core_per_s"] / 1000 for row in points], style, label=f"{server} per core")
        axes[0].plot(counts, [row["forwarded_per_s"] / 1000 for row in points], style, alpha=0.4,
                     label=f"{server} total")
        # Levels where nothing stamped in the window arrived have no delay to show.
        delivered = [row for row in points if row["forwarded_per_s"] > 0]
        delivered_counts = [row["participants"] for row in delivered]
        axes[1].plot(delivered_counts, [row["p50_us"] / 1000 for row in delivered], style, label=f"{server} p50")
        axes[1].plot(delivered_counts, [row["p99_us"] / 1000 for row in delivered], style, alpha=0.5,
                     label=f"{server} p99")
        if server == "relay":
            axes[2].plot(counts, [row["memory_per_participant_bytes"] / 1024 for row in points], style, label=server)
    axes[0].axhline(250, color="grey", linestyle=":", label="target 250 k/core")
    axes[0].set_ylabel("thousand packets/s")
    axes[0].set_title("forwarded packets/s")
    axes[1].axhline(2, color="grey", linestyle=":", label="target p99 2 ms")
    axes[1].set_yscale("log")
    axes[1].set_ylabel("ms")
    axes[1].set_title("forwarding delay")
    axes[2].set_ylabel("KiB")
    axes[2].set_title("relay RSS growth per participant")
    for axis in axes[:3]:
        axis.set_xlabel("participants")
        axis.set_xscale("log")
        axis.grid(alpha=0.3)
        axis.legend(fontsize=7)
    if soak:
        samples = soak["rss_samples_bytes"]
        axes[3].plot(range(1, len(samples) + 1), [value / 1048576 for value in samples], "o-")
        axes[3].set_title(f'relay RSS during soak, {soak["soak_participants"]} participants')
        axes[3].set_xlabel("seconds")
        axes[3].set_ylabel("MiB")
        axes[3].grid(alpha=0.3)
    else:
        axes[3].axis("off")
    figure.tight_layout()
    figure.savefig(os.path.join(output_dir, "relay.png"), dpi=110)


if __name__ == "__main__":
    main()
