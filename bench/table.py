#!/usr/bin/env python3
"""Turns wheel_bench's JSON output (--benchmark_out) into the Markdown tables of docs/wheel.md.

Takes the median of repeated runs when there are several."""
import json
import sys

SETS = ["wheel", "wheel64", "rounds", "multimap", "asio"]
SIZES = ["1000", "100000", "1000000"]
# (operation, counter, scale to the printed unit, unit, format)
TABLES = [
    ("schedule", "per_op", 1e9, "ns/op", "{:.1f}"),
    ("cancel", "per_op", 1e9, "ns/op", "{:.1f}"),
    ("move", "per_op", 1e9, "ns/op", "{:.1f}"),
    ("expire", "per_op", 1e9, "ns/op", "{:.1f}"),
    ("churn", "per_fire", 1e9, "ns per fired timer", "{:.1f}"),
    ("worst_tick", "boundary_tick", 1e3, "ms, the tick at 2^18", "{:.3f}"),
    ("worst_tick", "worst_tick", 1e3, "ms, slowest of 9000 ticks, wall clock", "{:.3f}"),
    ("memory", "B/node", 1, "bytes per armed timer", "{:.1f}"),
]

def load(path):
    values = {}
    for bench in json.load(open(path))["benchmarks"]:
        if bench.get("run_type") == "aggregate" and bench.get("aggregate_name") != "median":
            continue
        operation, set_name, size = bench["run_name"].split("/")[:3]
        values.setdefault((operation, set_name, size), {}).update(
            {k: v for k, v in bench.items() if isinstance(v, (int, float))})
    return values


def main():
    values = load(sys.argv[1])
    for operation, counter, scale, unit, fmt in TABLES:
        present = [s for s in SETS if any((operation, s, n) in values for n in SIZES)]
        print(f"**{operation}** ({unit})\n")
        print("| armed | " + " | ".join(present) + " |")
        print("|---:|" + "---:|" * len(present))
        for size in SIZES:
            cells = []
            for set_name in present:
                v = values.get((operation, set_name, size), {}).get(counter)
                cells.append("—" if v is None else fmt.format(v * scale))
            print(f"| {int(size):,} | " + " | ".join(cells) + " |")
        print()


if __name__ == "__main__":
    main()
