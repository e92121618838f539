#!/usr/bin/env python3
"""The table of bench/paced/paced_bench.sh from its raw ringcast-load reports.

usage: table.py --spread SECONDS [--cpu-until SECONDS] [--idle-span SECONDS] DIR [DIR ...]
       (DIR holds spread<S>s-run<K>.json and .load files, and floor-spread<S>s-run<K>.json for
       the floor, ringcast-bare-sender; the runs of several DIRs are pooled)

Per run: memory = server RSS/PSS at t = spread/2 minus at the publish (t = 0); CPU = server
CPU time (schedstat, else utime+stime) from t = 0 to t = --cpu-until (default spread + 1 s),
minus the idle rate of the --idle-span (default 10) s before the publish times that span, over
the deliveries; peak = the busiest second of the arrival histogram.
The same sample times are used for both modes, so the immediate runs are the baseline.
With floor runs, a last table sets ringcast's CPU per delivery against the floor's, mode by mode.
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


def summary(runs, spread):
    """The means of the paced and the immediate runs of one server; None without both."""
    imm = [m for m in runs if m["spread"] == 0]
    paced = [m for m in runs if m["spread"] > 0]
    if not imm or not paced:
        return None
    mean = lambda ms, k: statistics.mean(m[k] for m in ms)
    n = mean(paced, "n")
    return {
        "n": n,
        "drss": (mean(paced, "drss_kb"), mean(imm, "drss_kb")),
        "dpss": (mean(paced, "dpss_kb"), mean(imm, "dpss_kb")),
        "cpu": (mean(paced, "cpu_us_per_delivery"), mean(imm, "cpu_us_per_delivery")),
        "peak": (mean(paced, "worst_per_s"), mean(imm, "worst_per_s")),
        "ideal": n / spread,
    }


def print_runs(runs, cpu_until):
    print("| run | deliveries | ΔPSS mid-window (KiB) | ΔRSS mid-window (KiB) | server CPU publish→+%gs (s) | "
          "idle part (s) | CPU per delivery (µs) | worst second (/s) | worst/mean | after window | "
          "load after |" % cpu_until)
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for m in runs:
        print(f"| {m['name']} | {m['n']} | {m['dpss_kb']} | {m['drss_kb']} | "
              f"{m['cpu_window_s']:.2f} | {m['cpu_idle_s']:.2f} | {m['cpu_us_per_delivery']:.2f} | "
              f"{m['worst_per_s']} (s {m['worst_second']}) | {m['worst_to_mean']:.2f} | "
              f"{m['after_window']} | {m['load']} |")


def print_targets(s, spread, targets):
    """The issue's figures; `targets` False for the floor, which keeps its turns in a sorted
    vector (24 B a recipient) and is there for its CPU."""
    per_b = lambda pair: (pair[0] - pair[1]) * 1024 / s["n"]
    t = (lambda text: text) if targets else (lambda text: "")
    print("| figure (means of the runs) | paced | immediate | ratio / difference | target |")
    print("|---|---:|---:|---:|---|")
    # RSS first: ringcast is one process, and its PSS moves with other processes that map the
    # same library pages (other servers and tests on a shared machine) by hundreds of KiB.
    print(f"| ΔRSS mid-window (KiB) | {s['drss'][0]:.0f} | {s['drss'][1]:.0f} | "
          f"{per_b(s['drss']):+.1f} B per recipient | {t('≤ +16 B')} |")
    print(f"| ΔPSS mid-window (KiB) | {s['dpss'][0]:.0f} | {s['dpss'][1]:.0f} | "
          f"{per_b(s['dpss']):+.1f} B per recipient | {t('≤ +16 B')} |")
    print(f"| CPU per delivery (µs) | {s['cpu'][0]:.2f} | {s['cpu'][1]:.2f} | "
          f"×{s['cpu'][0] / s['cpu'][1]:.2f} | {t('≤ ×1.10')} |")
    print(f"| peak deliveries per second | {s['peak'][0]:.0f} | {s['peak'][1]:.0f} | "
          f"×{s['peak'][0] / s['ideal']:.2f} of N/{spread:g} = {s['ideal']:.0f} | {t('≤ ×1.25')} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spread", type=float, required=True)
    ap.add_argument("--cpu-until", type=float)
    ap.add_argument("--idle-span", type=float, default=10.0)
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    cpu_until = args.spread + 1 if args.cpu_until is None else args.cpu_until
    runs = {"ringcast": [], "floor": []}
    for d in args.dirs:
        for path in sorted(glob.glob(os.path.join(d, "*spread*s-run*.json"))):
            kind = "floor" if os.path.basename(path).startswith("floor-") else "ringcast"
            run = measure(path, args.spread, cpu_until, args.idle_span)
            if len(args.dirs) > 1:
                run["name"] = f"{os.path.basename(os.path.normpath(d))}/{run['name']}"
            runs[kind].append(run)
    print_runs(runs["ringcast"] + runs["floor"], cpu_until)
    ringcast, floor = (summary(runs[k], args.spread) for k in ("ringcast", "floor"))
    for title, s in (("ringcast", ringcast), ("the floor (ringcast-bare-sender)", floor)):
        if s:
            print(f"\n{title}:\n")
            print_targets(s, args.spread, targets=s is ringcast)
    if ringcast and floor:
        print("\nCPU per delivery against the floor (µs):\n")
        print("| mode | ringcast | floor | ringcast / floor |")
        print("|---|---:|---:|---:|")
        for i, mode in enumerate(("paced", "immediate")):
            print(f"| {mode} | {ringcast['cpu'][i]:.2f} | {floor['cpu'][i]:.2f} | "
                  f"×{ringcast['cpu'][i] / floor['cpu'][i]:.2f} |")
        print(f"| paced / immediate | ×{ringcast['cpu'][0] / ringcast['cpu'][1]:.2f} | "
              f"×{floor['cpu'][0] / floor['cpu'][1]:.2f} | |")


if __name__ == "__main__":
    main()
