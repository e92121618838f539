#!/usr/bin/env python3
"""Markdown tables from compression_bench.sh's reports: <dir>/<kind>-<n>-<payload>.json for kind
ringcast-deflate, ringcast-plain and nchan-deflate.

usage: table.py DIR 5000,15000 promo-130,offer-400,catalog-2k
"""
import json
import os
import sys

KINDS = ("ringcast-deflate", "ringcast-plain", "nchan-deflate")


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def figures(r):
    s = r.get("server", {})
    m = r["messages"]
    return {
        "connected": s.get("connected_at_publish", 0),
        "wire": r.get("ws_wire", {}).get("bytes_per_delivery"),
        "cpu_d": s.get("cpu_us_per_delivery"),
        "rss": s.get("rss_per_idle_connection_bytes"),
        "pss": s.get("pss_per_idle_connection_bytes"),
        "published": m["published"],
        "received": m["received"],
        "lost": m["lost"],
        "errors": sum(r.get("errors", {}).values()),
    }


def fmt(v, digits=0):
    return "n/a" if v is None else f"{v:,.{digits}f}"


def ratio(a, b):
    return "n/a" if a is None or b is None or b == 0 else f"{a / b:.2f}"


def main():
    out = sys.argv[1]
    sizes = [int(x) for x in sys.argv[2].split(",")]
    payloads = sys.argv[3].split(",")
    rows, ratios = [], []
    for n in sizes:
        for p in payloads:
            f = {}
            for kind in KINDS:
                r = load(os.path.join(out, f"{kind}-{n}-{p}.json"))
                if r is None:
                    rows.append(f"| {n:,} | {p} | {kind} | (no report) |||||||")
                    continue
                f[kind] = x = figures(r)
                rows.append(
                    f"| {n:,} | {p} | {kind} | {x['connected']:,} | {fmt(x['wire'], 1)} "
                    f"| {fmt(x['cpu_d'], 2)} | {fmt(x['rss'])} | {fmt(x['pss'])} "
                    f"| {x['published']} | {x['lost']} | {x['errors']} |")
            d, pl, nc = (f.get(k) for k in KINDS)

            def g(x, key):
                return x[key] if x else None

            ratios.append(
                f"| {n:,} | {p} | {ratio(g(d, 'wire'), g(nc, 'wire'))} "
                f"| {ratio(g(d, 'wire'), g(pl, 'wire'))} | {ratio(g(d, 'cpu_d'), g(pl, 'cpu_d'))} "
                f"| {ratio(g(d, 'cpu_d'), g(nc, 'cpu_d'))} | {ratio(g(d, 'pss'), g(pl, 'pss'))} "
                f"| {ratio(g(d, 'rss'), g(pl, 'rss'))} |")
    print("| clients | payload | server | connected | wire B/delivery | CPU µs/delivery "
          "| RSS B/idle conn | PSS B/idle conn | published | lost | errors |")
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    print()
    print("Ratios (targets: wire deflate/Nchan ≤ 1, CPU deflate/plain ≤ 1.05, memory deflate/plain "
          "≈ 1):")
    print()
    print("| clients | payload | wire deflate/Nchan | wire deflate/plain | CPU deflate/plain "
          "| CPU deflate/Nchan | PSS deflate/plain | RSS deflate/plain |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    print("\n".join(ratios))


if __name__ == "__main__":
    main()
