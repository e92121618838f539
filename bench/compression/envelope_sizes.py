#!/usr/bin/env python3
"""Bytes on the wire per WebSocket delivery, computed (not measured) for one message in the forms
the compression benchmark compares (docs/performance.md, section 11), each deflated on its own as
permessage-deflate without context takeover sends it (zlib level 6, raw deflate, sync flush, the
trailing 00 00 ff ff cut, RFC 7692; a 32 KiB window for ringcast, Nchan's default 1 KiB,
nchan_permessage_deflate_compression_window 10), plus the frame header:

  nchan          Nchan's default frame: the published body alone (no id: a client cannot resume)
  nchan-meta     Nchan's ws+meta.nchan subprotocol, the form that carries the id a client resumes
                 from: "id: <time>:<tag>\\ncontent-type: application/json\\n\\n" + body
  ringcast       ringcast's envelope (docs/protocol.md): {"type":"message","id":..,"channel":"*",
                 "ts":..,"data":body}

The body is the benchmark's: the payload file's members behind the load tool's "t" and "seq".

usage: envelope_sizes.py [PAYLOAD.json ...]   (default: the three of this directory)
"""
import glob
import json
import os
import random
import sys
import zlib

SAMPLES = 200


def deflated(text, window_bits=15):
    c = zlib.compressobj(6, zlib.DEFLATED, -window_bits, 8)
    out = c.compress(text.encode()) + c.flush(zlib.Z_SYNC_FLUSH)
    assert out.endswith(b"\x00\x00\xff\xff")
    return len(out) - 4


def frame(payload_bytes):
    return payload_bytes + (2 if payload_bytes < 126 else 4 if payload_bytes < 65536 else 10)


def forms(members, rng, seq):
    t = 1_795_000_000_000_000 + rng.randrange(10**12)  # realtime µs, as the load tool stamps it
    extra = json.dumps(members, separators=(",", ":"))[1:-1]
    body = f'{{"t":{t},"seq":{seq},{extra}}}'
    ms = t // 1000 + rng.randrange(5)
    return {
        "nchan": body,
        "nchan-meta": f"id: {ms // 1000}:{seq % 4}\ncontent-type: application/json\n\n{body}",
        "ringcast": f'{{"type":"message","id":{ms * 1000 + rng.randrange(1000)},"channel":"*",'
                    f'"ts":{ms},"data":{body}}}',
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    files = sys.argv[1:] or sorted(glob.glob(os.path.join(here, "*.json")))
    rng = random.Random(1)
    names = ("nchan", "nchan-meta", "ringcast")
    print("| payload | " + " | ".join(f"{n} B/delivery" for n in names)
          + " | ringcast/nchan | ringcast/nchan-meta |")
    print("|---|" + "---:|" * (len(names) + 2))
    for path in files:
        with open(path) as f:
            members = json.load(f)
        totals = dict.fromkeys(names, 0)
        for seq in range(SAMPLES):
            for name, text in forms(members, rng, seq).items():
                totals[name] += frame(deflated(text, 10 if name.startswith("nchan") else 15))
        mean = {n: totals[n] / SAMPLES for n in names}
        print(f"| {os.path.basename(path)[:-5]} | "
              + " | ".join(f"{mean[n]:.1f}" for n in names)
              + f" | {mean['ringcast'] / mean['nchan']:.2f}"
              + f" | {mean['ringcast'] / mean['nchan-meta']:.2f} |")


if __name__ == "__main__":
    main()
