#include "redis/redis_stream.hpp"

#include <hiredis/hiredis.h>

#include <charconv>
#include <chrono>
#include <cstdint>

namespace ringcast {

// Lua numbers are doubles: ids stay exact below 2^53 (the year 2255 in microseconds). `expires`
// (Unix ms, 0: none), `spread` (ms, 0: none) and `sticky` ("1" or "0"; nil for a promotion
// scheduled by an earlier version) are ignored by a node of an earlier version, as are `event`,
// `except` and `sender` (the Pusher door's event name, excluded socket id and a client event's
// user id), written only when not empty.
const char* const stream_append_lua = R"lua(
local function append(last_key, stream, node_us, maxlen, ts, to, target, data, token, expires, spread, sticky, event, except, sender)
  local last = tonumber(redis.call('GET', last_key) or '0')
  local id = string.format('%.0f', math.max(last + 1, tonumber(node_us)))
  redis.call('SET', last_key, id)
  local fields = {'id', id, 'ts', ts, 'to', to, 'target', target, 'data', data, 'token', token,
                  'expires', expires, 'spread', spread, 'sticky', sticky or '0'}
  if event and event ~= '' then
    table.insert(fields, 'event')
    table.insert(fields, event)
  end
  if except and except ~= '' then
    table.insert(fields, 'except')
    table.insert(fields, except)
  end
  if sender and sender ~= '' then
    table.insert(fields, 'sender')
    table.insert(fields, sender)
  end
  redis.call('XADD', stream, 'MAXLEN', '~', maxlen, '*', unpack(fields))
  if sticky == '1' then
    -- In force beyond the stream's MAXLEN: kept apart until its expiry or a take-down.
    local item = '{ringcast}:sticky:' .. id
    redis.call('HSET', item, 'id', id, 'ts', ts, 'to', to, 'target', target, 'data', data,
               'expires', expires, 'spread', spread, 'sticky', '1', 'event', event or '')
    local e = tonumber(expires) or 0
    if e > 0 then redis.call('PEXPIREAT', item, e) end
    redis.call('ZADD', '{ringcast}:sticky', e > 0 and e or '+inf', id)
  end
  return id
end
)lua";

std::string_view reply_text(const redisReply* r) {
  return {r->str, r->len};
}

namespace {

std::optional<std::uint64_t> to_u64(std::string_view s) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::string now_micros(const loop_clock& clock) {
  return std::to_string(clock.unix_us());
}

std::optional<std::string> entry_id_of(const redisReply* e) {
  if (e->type != REDIS_REPLY_ARRAY || e->elements != 2) return std::nullopt;
  if (e->element[0]->type != REDIS_REPLY_STRING) return std::nullopt;
  return std::string(reply_text(e->element[0]));
}

std::optional<stream_entry> parse_entry(const redisReply* e) {
  if (e->type != REDIS_REPLY_ARRAY || e->elements != 2) return std::nullopt;
  const redisReply* fields = e->element[1];
  if (fields->type != REDIS_REPLY_ARRAY) return std::nullopt;
  std::optional<std::uint64_t> id, ts, expires, spread_ms, take_down;
  std::string_view to, target, data, token, event, except, sender;
  bool sticky = false;
  for (std::size_t i = 0; i + 1 < fields->elements; i += 2) {
    const std::string_view name = reply_text(fields->element[i]);
    const std::string_view value = reply_text(fields->element[i + 1]);
    if (name == "id")
      id = to_u64(value);
    else if (name == "ts")
      ts = to_u64(value);
    else if (name == "to")
      to = value;
    else if (name == "target")
      target = value;
    else if (name == "data")
      data = value;
    else if (name == "token")
      token = value;
    else if (name == "expires")
      expires = to_u64(value);
    else if (name == "spread")  // absent in entries of versions without paced publish: 0
      spread_ms = to_u64(value);
    else if (name == "sticky")
      sticky = value == "1";
    else if (name == "event")  // absent in entries of versions without the Pusher door: empty
      event = value;
    else if (name == "except")
      except = value;
    else if (name == "sender")
      sender = value;
    else if (name == "takedown")
      take_down = to_u64(value);
  }
  if (take_down)
    return stream_entry{std::string(reply_text(e->element[0])), nullptr, {}, *take_down};
  if (!id || !ts || data.empty()) return std::nullopt;
  return stream_entry{
      std::string(reply_text(e->element[0])),
      make_message(*id, static_cast<std::int64_t>(*ts),
                   {audience_named(to).value_or(audience::broadcast), std::string(target)}, data,
                   static_cast<std::int64_t>(expires.value_or(0)),
                   std::chrono::milliseconds(spread_ms.value_or(0)), sticky,
                   pusher_shape{std::string(event), std::string(except), std::string(sender)}),
      std::string(token)};
}

}  // namespace ringcast
