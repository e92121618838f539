#!/usr/bin/env python3
"""The table of bench/paced/paced_bench.sh from its raw ringcast-load reports.

usage: table.py --spread SECONDS [--cpu-until SECONDS] [--idle-span SECONDS] DIR
       (DIR holds spread<S>s-run<K>.json and .load files)

Per run: memory = server RSS/PSS at t = spread/2 minus at the publish (t = 0); CPU = server
CPU time (schedstat, else utime+stime) from t = 0 to t = --cpu-until (default spread + 1 s),
minus the idle rate of the --idle-span (default 10) s before the publish times that span, over
the deliveries; peak = the busiest second of the arrival histogram.
The same sample times are used for both modes, so the immediate runs are the baseline.
"""
import argparse
import glob
import json
import os
import re
import statistics


def nearest(timeline, t):
    return min(timeline, key=lambda s: abs(s["t_s"] - t))


def cpu(sample):
    # schedstat's nanoseconds where the kernel has them; utime+stime moves in 10 ms steps.
    return sample.get("cpu_sched_s") or sample["cpu_s"]


def measure(path, spread, cpu_until, idle_span):
    r = json.load(open(path))
    tl = r["server_timeline"]
    n = r["messages"]["received"]
    at0 = nearest(tl, 0.0)
    mid = nearest(tl, spread / 2)
    end = nearest(tl, cpu_until)
    before = nearest(tl, -idle_span)
    idle_rate = (cpu(at0) - cpu(before)) / max(at0["t_s"] - before["t_s"], 1e-9)
    span = end["t_s"] - at0["t_s"]
    cpu_window = cpu(end) - cpu(at0)
    cpu_delivery = cpu_window - idle_rate * span
    a = r["arrivals"]
    load = ""
    load_path = path[:-5] + ".load"
    if os.path.exists(load_path):
        load = open(load_path).read().split('"')[1]
    return {
        "name": os.path.basename(path)[:-5],
        "spread": r["config"]["spread_s"],
        "n": n,
        "lost": r["messages"]["lost"],
        "dpss_kb": mid["pss_kb"] - at0["pss_kb"],
        "drss_kb": mid["rss_kb"] - at0["rss_kb"],
        "pss0_kb": at0["pss_kb"],
        "t_mid": mid["t_s"],
        "t_end": end["t_s"],
        "cpu_window_s": cpu_window,
        "cpu_idle_s": idle_rate * span,
        "cpu_us_per_delivery": cpu_delivery * 1e6 / n if n else float("nan"),
        "worst_per_s": a["worst_per_s"],
        "worst_second": a["worst_second"],
        "worst_to_mean": a["worst_to_mean"],
        "after_window": a["after_window"],
        "load": load,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spread", type=float, required=True)
    ap.add_argument("--cpu-until", type=float)
    ap.add_argument("--idle-span", type=float, default=10.0)
    ap.add_argument("dir")
    args = ap.parse_args()
    cpu_until = args.spread + 1 if args.cpu_until is None else args.cpu_until
    runs = []
    for path in sorted(glob.glob(os.path.join(args.dir, "spread*s-run*.json"))):
        runs.append(measure(path, args.spread, cpu_until, args.idle_span))
    print("| run | deliveries | ΔPSS mid-window (KiB) | ΔRSS mid-window (KiB) | server CPU publish→+%gs (s) | "
          "idle part (s) | CPU per delivery (µs) | worst second (/s) | worst/mean | after window | "
          "load after |" % cpu_until)
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for m in runs:
        print(f"| {m['name']} | {m['n']} | {m['dpss_kb']} | {m['drss_kb']} | "
              f"{m['cpu_window_s']:.2f} | {m['cpu_idle_s']:.2f} | {m['cpu_us_per_delivery']:.2f} | "
              f"{m['worst_per_s']} (s {m['worst_second']}) | {m['worst_to_mean']:.2f} | "
              f"{m['after_window']} | {m['load']} |")
    imm = [m for m in runs if m["spread"] == 0]
    paced = [m for m in runs if m["spread"] > 0]
    if not imm or not paced:
        return
    mean = lambda ms, k: statistics.mean(m[k] for m in ms)
    n = mean(paced, "n")
    extra_b = (mean(paced, "dpss_kb") - mean(imm, "dpss_kb")) * 1024 / n
    extra_rss_b = (mean(paced, "drss_kb") - mean(imm, "drss_kb")) * 1024 / n
    cpu_ratio = mean(paced, "cpu_us_per_delivery") / mean(imm, "cpu_us_per_delivery")
    ideal = n / args.spread
    peak_ratio = mean(paced, "worst_per_s") / ideal
    print()
    print("| figure (means of the runs) | paced | immediate | ratio / difference | target |")
    print("|---|---:|---:|---:|---|")
    # RSS first: ringcast is one process, and its PSS moves with other processes that map the
    # same library pages (other servers and tests on a shared machine) by hundreds of KiB.
    print(f"| ΔRSS mid-window (KiB) | {mean(paced, 'drss_kb'):.0f} | {mean(imm, 'drss_kb'):.0f} | "
          f"{extra_rss_b:+.1f} B per recipient | ≤ +16 B |")
    print(f"| ΔPSS mid-window (KiB) | {mean(paced, 'dpss_kb'):.0f} | {mean(imm, 'dpss_kb'):.0f} | "
          f"{extra_b:+.1f} B per recipient | ≤ +16 B |")
    print(f"| CPU per delivery (µs) | {mean(paced, 'cpu_us_per_delivery'):.2f} | "
          f"{mean(imm, 'cpu_us_per_delivery'):.2f} | ×{cpu_ratio:.2f} | ≤ ×1.10 |")
    print(f"| peak deliveries per second | {mean(paced, 'worst_per_s'):.0f} | "
          f"{mean(imm, 'worst_per_s'):.0f} | ×{peak_ratio:.2f} of N/{args.spread:g} = {ideal:.0f} | "
          f"≤ ×1.25 |")


if __name__ == "__main__":
    main()
