// The shared message stream's format in Redis (docs/scaling.md): its keys, the Lua that numbers a
// message and appends it (one text, used by a publish and by a scheduled publish coming due), and
// the reading of an entry back.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/loop_timers.hpp"
#include "core/message.hpp"

struct redisReply;

namespace ringcast {

// Every key carries the hash tag {ringcast}, so that on a Redis Cluster they are all in one slot:
// the scripts touch several of them, and one slot means one primary to talk to (the bus follows
// MOVED to it). docs/scaling.md#cluster.
inline const std::string stream_key = "{ringcast}:stream";
inline const std::string last_id_key = "{ringcast}:last_id";
// The sticky messages in force (docs/protocol.md, "Promotions in force"), kept beyond the stream's
// MAXLEN: a sorted set of ids by expiry (Unix ms; +inf: none), and per message the hash
// `{ringcast}:sticky:<id>` with the fields of its stream entry; both are written by the append
// script and removed by a take-down.
inline const std::string sticky_key = "{ringcast}:sticky";

// Lua defining `append(last_id_key, stream_key, node_us, maxlen, ts, to, target, data, token,
// expires, spread, sticky)`, which numbers a message and appends it to the stream, returning its
// id: the larger of last id + 1 and `node_us` (the calling node's clock in µs), so ids never go
// backwards, even if Redis loses its data. A script using it starts with this text.
extern const char* const stream_append_lua;

std::string_view reply_text(const redisReply* r);

struct stream_entry {
  std::string entry_id;
  message_ptr msg;    // null for a take-down
  std::string token;  // names the node's publish waiting for it; empty for a scheduled one
  // A take-down entry ("takedown" <id>, no message: DELETE /admin/messages/<id>): every node
  // expires that message at once. A node of a version before take-downs cannot read it and reads
  // it again and again until the next publish (docs/scaling.md: upgrade every node first).
  std::uint64_t take_down = 0;
};
// [entry id, [field, value, ...]] -> a message or a take-down; nullopt for an entry this version
// cannot read.
std::optional<stream_entry> parse_entry(const redisReply* e);
// The entry id of an entry, readable or not, so that one this version cannot read (a later
// version's kind) is passed over rather than read again; nullopt if `e` is not an entry at all.
std::optional<std::string> entry_id_of(const redisReply* e);

// The node's clock in µs since the Unix epoch, as the append script's `node_us`.
std::string now_micros(const loop_clock& clock);

}  // namespace ringcast
