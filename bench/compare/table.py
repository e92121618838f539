#!/usr/bin/env python3
"""Markdown tables from compare.sh's reports: <dir>/<kind>-<n>.json for kind ringcast, nchan and
floor (ringcast-bare-sender, one send() of the same frame per connection).

usage: table.py DIR 1000,5000,15000
"""
import json
import os
import sys


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def figures(r):
    s = r.get("server", {})
    m = r["messages"]
    reach = r["broadcast_reach_ms"]
    return {
        "connected": s.get("connected_at_publish", 0),
        "rss": s.get("rss_per_idle_connection_bytes"),
        "pss": s.get("pss_per_idle_connection_bytes"),
        "cpu": s.get("cpu_us_per_publish"),
        "cpu_d": s.get("cpu_us_per_delivery"),
        "reach50": reach["p50"],
        "reachmax": reach["max"],
        "p50": r["latency_ms"]["p50"],
        "p99": r["latency_ms"]["p99"],
        "published": m["published"],
        "lost": m["lost"],
        "dup": m["duplicates"],
        "errors": sum(r.get("errors", {}).values()),
    }


def fmt(v, digits=0):
    if v is None:
        return "n/a"
    return f"{v:,.{digits}f}"


def ratio(a, b):
    if a is None or b is None or b == 0:
        return "n/a"
    return f"{a / b:.2f}"


def main():
    out, sizes = sys.argv[1], [int(x) for x in sys.argv[2].split(",")]
    rows, ratios, floor_ratios = [], [], []
    for n in sizes:
        f = {}
        for kind in ("ringcast", "nchan", "floor"):
            r = load(os.path.join(out, f"{kind}-{n}.json"))
            if r is None:
                rows.append(f"| {n:,} | {kind} | (no report) |||||||||")
                continue
            f[kind] = x = figures(r)
            rows.append(
                f"| {n:,} | {kind} | {x['connected']:,} | {fmt(x['rss'])} | {fmt(x['pss'])} "
                f"| {fmt(x['cpu'])} | {fmt(x['cpu_d'], 2)} | {fmt(x['reach50'], 1)} "
                f"| {fmt(x['reachmax'], 1)} | {fmt(x['p50'], 2)} | {fmt(x['p99'], 2)} "
                f"| {x['published']} | {x['lost']} | {x['dup']} | {x['errors']} |")
        if "ringcast" in f and "nchan" in f:
            a, b = f["ringcast"], f["nchan"]
            ratios.append(
                f"| {n:,} | {ratio(a['rss'], b['rss'])} | {ratio(a['pss'], b['pss'])} "
                f"| {ratio(a['cpu'], b['cpu'])} | {ratio(a['reach50'], b['reach50'])} "
                f"| {ratio(a['reachmax'], b['reachmax'])} | {ratio(a['p99'], b['p99'])} "
                f"| {a['lost']} / {b['lost']} |")
        # Per idle connection and per delivery, against Nchan and against the floor.
        r, c, fl = f.get("ringcast"), f.get("nchan"), f.get("floor")

        def g(x, key):
            return x[key] if x else None

        floor_ratios.append(
            f"| {n:,} | {ratio(g(r, 'pss'), g(c, 'pss'))} | {ratio(g(r, 'pss'), g(fl, 'pss'))} "
            f"| {ratio(g(c, 'pss'), g(fl, 'pss'))} | {ratio(g(r, 'cpu_d'), g(c, 'cpu_d'))} "
            f"| {ratio(g(r, 'cpu_d'), g(fl, 'cpu_d'))} | {ratio(g(c, 'cpu_d'), g(fl, 'cpu_d'))} "
            f"| {' / '.join(str(x['lost']) if x else 'n/a' for x in (r, c, fl))} |")
    print("| clients | server | connected | RSS B/idle conn | PSS B/idle conn | CPU µs/broadcast "
          "| CPU µs/delivery | reach-all p50 ms | reach-all max ms | latency p50 ms "
          "| latency p99 ms | published | lost | dup | errors |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("\n".join(rows))
    print()
    print("Ratios ringcast / Nchan (below 1: ringcast uses less / is faster):")
    print()
    print("| clients | RSS/conn | PSS/conn | CPU/broadcast | reach-all p50 | reach-all max "
          "| latency p99 | lost (ringcast / Nchan) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---|")
    print("\n".join(ratios))
    print()
    print("Memory per idle connection (PSS) and CPU per delivery, against Nchan and against the "
          "floor (ringcast-bare-sender: one thread, one send() of the same frame per connection):")
    print()
    print("| clients | PSS/conn ringcast/Nchan | PSS/conn ringcast/floor | PSS/conn Nchan/floor "
          "| CPU/delivery ringcast/Nchan | CPU/delivery ringcast/floor | CPU/delivery Nchan/floor "
          "| lost (ringcast / Nchan / floor) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---|")
    print("\n".join(floor_ratios))
    print()
    print("The floor keeps 72 bytes per connection in user space (the socket buffers are kernel "
          "memory, which RSS and PSS count for none of the three): a few pages over N "
          "connections, within the noise at small N (PSS also moves when other processes map the "
          "same libraries), so the memory ratios against it are n/a or noise there. Its CPU per "
          "delivery is the point; its reach-all and latency are one thread's, not a floor.")


if __name__ == "__main__":
    main()
