#!/usr/bin/env python3
"""Markdown tables from compare.sh's reports in DIR:
  <kind>-<n>-<r>.json        ringcast-load's report of one broadcast run (kind ringcast,
                             ringcast_before, nchan, and with --doors ringcast_channel and
                             pusher: the two doors on one channel; floor for the floor before the servers,
                             floor with run "<r>-after" for the floor after them);
  <kind>-tls-<n>-<r>.tls.json  the TLS leg's memory samples.

usage: table.py DIR SIZES REPEATS [TLS_SIZES]     (sizes comma separated)
"""
import json
import os
import statistics
import sys

LOOPS = 2  # the servers' event loops (ringcast --threads 2, nginx worker_processes 2)
ARRIVAL = "read"  # ringcast-load --arrival of the broadcast runs (compare.sh --arrival)
SERVERS = ("ringcast_before", "ringcast", "nchan", "ringcast_channel", "pusher")


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def figures(r):
    s = r.get("server", {})
    return {
        "connected": s.get("connected_at_publish", 0),
        "rss": s.get("rss_per_idle_connection_bytes"),
        "pss": s.get("pss_per_idle_connection_bytes"),
        "cpu_d": s.get("cpu_us_per_delivery"),
        # TCP connect -> the 101 read: the same event for every server (reports of an older
        # ringcast-load have none).
        "up50": r.get("upgrade_ms", {}).get("p50"),
        "up99": r.get("upgrade_ms", {}).get("p99"),
        # TCP connect -> the first message: ringcast's hello, Nchan's 101 (it sends no hello).
        "hs50": r["connect_ms"]["p50"],
        "hs99": r["connect_ms"]["p99"],
        "reach50": r["broadcast_reach_ms"]["p50"],
        "reachmax": r["broadcast_reach_ms"]["max"],
        "published": r["messages"]["published"],
        "lost": r["messages"]["lost"],
        "errors": sum(r.get("errors", {}).values()),
    }


def fmt(v, digits=0):
    return "n/a" if v is None else f"{v:,.{digits}f}"


def ratio(a, b):
    return "n/a" if a is None or not b else f"{a / b:.2f}"


def floor_of(out, n, r):
    """The floor's CPU per delivery for this size and repeat: the mean of before and after."""
    runs = [load(os.path.join(out, f"floor-{n}-{x}.json")) for x in (r, f"{r}-after")]
    cpus = [figures(x)["cpu_d"] for x in runs if x]
    return (sum(cpus) / len(cpus) if cpus else None), [figures(x) if x else None for x in runs]


def broadcast_tables(out, sizes, repeats):
    print("Broadcast to N idle WebSockets (connecting at 2,000/s). × floor: CPU per delivery over "
          "the floor's (the mean of the floor before and after); limit: 1.2 × N × floor ÷ "
          f"{LOOPS} loops, the issue-40 bound for the last delivery of a broadcast. "
          "101: TCP connect to the 101 read, the same event for every server; first message: to "
          "ringcast's (and the floor's) hello, to Nchan's 101 (it sends no hello).")
    if ARRIVAL == "kernel":
        print()
        print("Last delivery (compare.sh --arrival kernel): when the message's bytes reached the "
              "client's socket, the kernel's receive time; the clients ran at idle priority while "
              "publishing, so that the server had the two cores as with clients on other machines "
              "(docs/loadtest.md).")
    print()
    print("| clients | run | server | connected | broadcasts | RSS B/idle conn | PSS B/idle conn "
          "| CPU µs/delivery | × floor | 101 p50 / p99 ms | first message p50 / p99 ms "
          "| last delivery p50 ms | limit ms | last/limit | max ms | lost | errors |")
    print("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    medians = {}
    for n in sizes:
        for r in range(1, repeats + 1):
            floor, floor_runs = floor_of(out, n, r)
            rows = [("floor (before)", floor_runs[0])]
            rows += [(k, (lambda x: figures(x) if x else None)(load(os.path.join(
                out, f"{k}-{n}-{r}.json")))) for k in SERVERS
                if os.path.exists(os.path.join(out, f"{k}-{n}-{r}.json"))]
            rows.append(("floor (after)", floor_runs[1]))
            for name, x in rows:
                if x is None:
                    print(f"| {n:,} | {r} | {name} | (no report) ||||||||||||||")
                    continue
                limit = 1.2 * x["connected"] * floor / LOOPS / 1000 if floor else None
                print(f"| {n:,} | {r} | {name} | {x['connected']:,} | {x['published']} "
                      f"| {fmt(x['rss'])} "
                      f"| {fmt(x['pss'])} | {fmt(x['cpu_d'], 2)} | {ratio(x['cpu_d'], floor)} "
                      f"| {fmt(x['up50'], 2)} / {fmt(x['up99'], 2)} "
                      f"| {fmt(x['hs50'], 2)} / {fmt(x['hs99'], 2)} | {fmt(x['reach50'], 1)} "
                      f"| {fmt(limit, 1)} | {ratio(x['reach50'], limit)} "
                      f"| {fmt(x['reachmax'], 1)} | {x['lost']} | {x['errors']} |")
                if not name.startswith("floor"):
                    m = medians.setdefault((n, name), [])
                    m.append({**x, "x_floor": x["cpu_d"] / floor if floor and x["cpu_d"] else None,
                              "x_limit": x["reach50"] / limit if limit else None})
    if repeats > 1:
        print()
        print(f"Medians of the {repeats} runs:")
        print()
        print("| clients | server | RSS B/idle conn | CPU µs/delivery | × floor "
              "| 101 p50 / p99 ms | first message p50 / p99 ms | last delivery p50 ms | last/limit "
              "| lost |")
        print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for (n, name), xs in medians.items():
            def med(key):
                v = [x[key] for x in xs if x[key] is not None]
                return statistics.median(v) if v else None
            print(f"| {n:,} | {name} | {fmt(med('rss'))} | {fmt(med('cpu_d'), 2)} "
                  f"| {fmt(med('x_floor'), 2)} | {fmt(med('up50'), 2)} / {fmt(med('up99'), 2)} "
                  f"| {fmt(med('hs50'), 2)} / {fmt(med('hs99'), 2)} "
                  f"| {fmt(med('reach50'), 1)} | {fmt(med('x_limit'), 2)} | "
                  f"{sum(x['lost'] for x in xs)} |")


def tls_table(out, tls_sizes, repeats):
    print()
    print("Idle WSS (TLS 1.3, P-256 certificate), memory summed over the server's processes, "
          "3 s after the last client connected:")
    print()
    print("| clients | run | server | connected | PSS B/idle WSS | RSS B/idle WSS | PSS / Nchan's |")
    print("|---:|---|---|---:|---:|---:|---:|")
    for n in tls_sizes:
        for r in range(1, repeats + 1):
            got = {k: load(os.path.join(out, f"{k}-tls-{n}-{r}.tls.json")) for k in SERVERS}
            per = {}
            for k, x in got.items():
                if x and x["connected"]:
                    per[k] = ((x["pss_connected_kb"] - x["pss_base_kb"]) * 1024 / x["connected"],
                              (x["rss_connected_kb"] - x["rss_base_kb"]) * 1024 / x["connected"])
            nchan = per.get("nchan", (None,))[0]
            for k, x in got.items():
                if x is None:
                    continue
                pss, rss = per.get(k, (None, None))
                print(f"| {n:,} | {r} | {k} | {x['connected']:,} | {fmt(pss)} | {fmt(rss)} "
                      f"| {ratio(pss, nchan)} |")


def main():
    global ARRIVAL
    out, repeats = sys.argv[1], int(sys.argv[3])
    sizes = [int(x) for x in sys.argv[2].split(",") if x]
    tls_sizes = [int(x) for x in sys.argv[4].split(",") if x] if len(sys.argv) > 4 else []
    ARRIVAL = sys.argv[5] if len(sys.argv) > 5 else "read"
    if sizes:
        broadcast_tables(out, sizes, repeats)
    if tls_sizes:
        tls_table(out, tls_sizes, repeats)
    print()
    print("The floor keeps 72 bytes per connection in user space (the socket buffers are kernel "
          "memory, which RSS and PSS count for none of them); its CPU per delivery is the point, "
          "its handshake and last delivery are one thread's.")


if __name__ == "__main__":
    main()
