#!/usr/bin/env python3
"""A short run of wheel_bench (CTest wheel_bench_smoke): every benchmark at 1,000 timers, briefly,
so that the benchmarks' own checks (expire fires exactly the due batch, churn fires every timer
exactly on time) run on every build. Fails when a benchmark reports an error or one is missing.
    bench/smoke.py <wheel_bench binary>
    bench/smoke.py --check <wheel_bench JSON output>   (only the error check, for bench/run.sh)"""
import json
import subprocess
import sys
import tempfile

OPERATIONS = ["schedule", "cancel", "move", "expire", "churn", "worst_tick", "memory"]
SETS = ["wheel", "rounds", "multimap", "asio"]


def main():
    if sys.argv[1] == "--check":
        runs = json.load(open(sys.argv[2]))["benchmarks"]
        errors = [f"{r['name']}: {r.get('error_message')}" for r in runs if r.get("error_occurred")]
        for line in errors:
            print("error:", line)
        sys.exit(1 if errors else 0)
    binary = sys.argv[1]
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        subprocess.run([binary, "--benchmark_filter=/1000(/|$)", "--benchmark_min_time=0.01",
                        f"--benchmark_out={out.name}", "--benchmark_out_format=json"],
                       check=True, stdout=subprocess.DEVNULL)
        runs = json.load(open(out.name))["benchmarks"]
    errors = [f"{r['name']}: {r.get('error_message')}" for r in runs if r.get("error_occurred")]
    ran = {"/".join(r["run_name"].split("/")[:3]) for r in runs}  # without "/iterations:1"
    missing = [f"{op}/{s}/1000" for op in OPERATIONS for s in SETS if f"{op}/{s}/1000" not in ran]
    for line in errors:
        print("error:", line)
    for name in missing:
        print("missing:", name)
    print(f"wheel_bench smoke: {len(runs)} benchmarks, {len(errors)} errors, {len(missing)} missing")
    sys.exit(1 if errors or missing else 0)


if __name__ == "__main__":
    main()
