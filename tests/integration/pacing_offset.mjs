// A session's offset for a paced message, as the server computes it (server/core/pacing.cpp):
// FNV-1a of the key "user/sid" and the message id, each through SplitMix64's finalizer, added on a
// ring of 2^64 and scaled onto the window. Tests use it to know each client's turn.
const MASK = (1n << 64n) - 1n;

function mix(x) {
  x ^= x >> 30n; x = (x * 0xbf58476d1ce4e5b9n) & MASK;
  x ^= x >> 27n; x = (x * 0x94d049bb133111ebn) & MASK;
  return x ^ (x >> 31n);
}

function placeOf(key) {
  let h = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(key)) h = ((h ^ BigInt(byte)) * 0x100000001b3n) & MASK;
  return mix(h);
}

// Milliseconds after the publish at which `user` (sid "0" unless given) gets message `id`.
export function offsetMs(user, id, spreadMs, sid = '0') {
  const x = (placeOf(`${user}/${sid}`) + mix((BigInt(id) + 0x9e3779b97f4a7c15n) & MASK)) & MASK;
  return Number((x * BigInt(spreadMs) * 1_000_000n) >> 64n) / 1e6;
}
