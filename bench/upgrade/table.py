#!/usr/bin/env python3
"""The table of bench/upgrade/upgrade_bench.sh: one row per run, from DIR/<name>.measured.json
(the script's own figures) and DIR/<name>.json (ringcast-load's report)."""
import glob
import json
import os
import sys

TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def main(out):
    print("| run | longest gap (ms) | reconnects | lost · duplicate | "
          "server CPU 15 s before → 15 s after the signal (ms) | every client back (s) | server log |")
    print("|---|---:|---:|---|---|---:|---|")
    for measured_file in sorted(glob.glob(os.path.join(out, "*.measured.json"))):
        m = json.load(open(measured_file))
        name = os.path.basename(measured_file)[: -len(".measured.json")]
        try:
            load = json.load(open(os.path.join(out, name + ".json")))
        except (OSError, ValueError) as e:
            print(f"| {name} | no load report ({e}) | | | | | |")
            continue
        msgs = load["messages"]
        cpu = lambda t: round(1000 * t / TICKS_PER_S)
        print(f"| {name} | {load['longest_gap_ms']:.0f} | {load['connections']['reconnects']:,} | "
              f"{msgs['lost']} · {msgs['duplicates']} of {msgs['expected']:,} | "
              f"{cpu(m['steady_cpu_ticks'])} → {cpu(m['after_signal_cpu_ticks'])} | "
              f"{m['back_s']:.2f} | {m['log'] or '–'} |")


if __name__ == "__main__":
    main(sys.argv[1])
