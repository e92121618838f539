#include "process_handover.hpp"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "handover_version.hpp"

namespace ringcast {
namespace {

constexpr std::string_view magic = "RCHO";
constexpr std::size_t header_size = 4 + 4 + 8 + 8;
// A descriptor number beyond this is not one a process of ours holds.
constexpr std::int64_t max_fd = 1 << 24;

std::uint64_t fnv1a(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

class writer {
 public:
  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v) { fixed(v); }
  void u64(std::uint64_t v) { fixed(v); }
  void i64(std::int64_t v) { fixed(static_cast<std::uint64_t>(v)); }
  void text(std::string_view s) {
    u64(s.size());
    out_.append(s);
  }
  void texts(const std::vector<std::string>& list) {
    u32(static_cast<std::uint32_t>(list.size()));
    for (const auto& s : list)
      text(s);
  }
  std::string& bytes() { return out_; }

 private:
  template <class T>
  void fixed(T v) {  // little-endian, whatever the host
    for (std::size_t i = 0; i < sizeof v; ++i)
      out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  std::string out_;
};

// Every read checks what is left first; the first failure sticks and says where.
class reader {
 public:
  explicit reader(std::string_view in) : in_(in) {}
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  bool done() const { return in_.empty(); }
  void fail(std::string why) {
    if (error_.empty()) error_ = std::move(why);
  }

  std::uint8_t u8(const char* what) { return static_cast<std::uint8_t>(fixed(1, what)); }
  std::uint32_t u32(const char* what) { return static_cast<std::uint32_t>(fixed(4, what)); }
  std::uint64_t u64(const char* what) { return fixed(8, what); }
  std::int64_t i64(const char* what) { return static_cast<std::int64_t>(fixed(8, what)); }
  bool flag(const char* what) {
    const auto v = u8(what);
    if (v > 1) fail(fmt::format("{}: {} is not 0 or 1", what, v));
    return v == 1;
  }
  int fd(const char* what) {
    const auto v = static_cast<std::int64_t>(u32(what));
    if (ok() && (v < 0 || v > max_fd)) fail(fmt::format("{}: descriptor {} out of range", what, v));
    return static_cast<int>(v);
  }
  std::string text(const char* what) {
    const std::uint64_t n = u64(what);
    if (!ok()) return {};
    if (n > in_.size()) {
      fail(fmt::format("{}: {} bytes announced, {} left", what, n, in_.size()));
      return {};
    }
    std::string s(in_.substr(0, n));
    in_.remove_prefix(n);
    return s;
  }
  std::vector<std::string> texts(const char* what) {
    const std::uint32_t n = count(what, 8);
    std::vector<std::string> out;
    for (std::uint32_t i = 0; ok() && i < n; ++i)
      out.push_back(text(what));
    return out;
  }
  // A count of items of at least `min_size` bytes each: never more than the bytes left hold.
  std::uint32_t count(const char* what, std::size_t min_size) {
    const std::uint32_t n = u32(what);
    if (ok() && n > in_.size() / min_size) {
      fail(fmt::format("{}: {} announced, the state cannot hold that many", what, n));
      return 0;
    }
    return ok() ? n : 0;
  }

 private:
  std::uint64_t fixed(std::size_t size, const char* what) {
    if (!ok()) return 0;
    if (in_.size() < size) {
      fail(fmt::format("{}: truncated", what));
      return 0;
    }
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < size; ++i)
      v |= std::uint64_t{static_cast<unsigned char>(in_[i])} << (8 * i);
    in_.remove_prefix(size);
    return v;
  }
  std::string_view in_;
  std::string error_;
};

void write_stream(writer& w, const moved_stream& s) {
  w.u32(static_cast<std::uint32_t>(s.fd));
  w.u8(s.v6);
  w.u8(static_cast<std::uint8_t>(s.kind));
  w.text(s.user);
  w.text(s.sid);
  w.texts(s.channels);
  w.u8(s.allowed_channels.has_value());
  if (s.allowed_channels) w.texts(*s.allowed_channels);
  w.u8(s.token_expires_ms.has_value());
  if (s.token_expires_ms) w.i64(*s.token_expires_ms);
  w.u64(s.highest_id);
  w.u8(s.deflate);
  w.u32(s.compress_min);
  w.text(s.partial);
  w.u32(static_cast<std::uint32_t>(s.queued.size()));
  for (const queued_frame& q : s.queued) {
    w.u32(q.message);
    if (q.message == queued_frame::own)
      w.text(q.text);
    else
      w.u8(q.unnumbered);
  }
  w.text(s.unread);
}

moved_stream read_stream(reader& r) {
  moved_stream s;
  s.fd = r.fd("stream fd");
  s.v6 = r.flag("stream family");
  const auto kind = r.u8("stream kind");
  if (kind > 1) r.fail(fmt::format("stream kind: {} is neither ws (0) nor sse (1)", kind));
  s.kind = static_cast<moved_stream::kind_t>(kind);
  s.user = r.text("user");
  s.sid = r.text("sid");
  s.channels = r.texts("channels");
  if (r.flag("grant")) s.allowed_channels = r.texts("granted channels");
  if (r.flag("token expiry")) s.token_expires_ms = r.i64("token expiry");
  s.highest_id = r.u64("highest id");
  s.deflate = r.flag("deflate");
  s.compress_min = r.u32("compress-min");
  s.partial = r.text("partly written frame");
  const std::uint32_t queued = r.count("queued frames", 4);
  for (std::uint32_t i = 0; r.ok() && i < queued; ++i) {
    queued_frame q;
    q.message = r.u32("queued frame");
    if (q.message == queued_frame::own) {
      q.text = r.text("queued frame");
      if (r.ok() && q.text.empty()) r.fail("queued frame: an empty frame of the stream's own");
    } else {
      q.unnumbered = r.flag("queued frame unnumbered");
    }
    s.queued.push_back(std::move(q));
  }
  s.unread = r.text("unread bytes");
  return s;
}

void write_http(writer& w, const moved_http& h) {
  w.u32(static_cast<std::uint32_t>(h.fd));
  w.u8(h.v6);
  w.u8(h.held_poll);
  w.text(h.unread);
}

moved_http read_http(reader& r) {
  moved_http h;
  h.fd = r.fd("http fd");
  h.v6 = r.flag("http family");
  h.held_poll = r.flag("held poll");
  h.unread = r.text("http unread bytes");
  return h;
}

void write_message(writer& w, const moved_message& m) {
  w.u64(m.id);
  w.u8(m.in_node_state);
  if (m.in_node_state) return;
  w.text(m.json);
  w.text(m.sse_prefix);
}

moved_message read_message(reader& r) {
  moved_message m;
  m.id = r.u64("message id");
  m.in_node_state = r.flag("message in the node's state");
  if (m.in_node_state || !r.ok()) return m;
  m.json = r.text("message envelope");
  m.sse_prefix = r.text("message SSE prefix");
  if (r.ok() && m.json.empty()) r.fail("message envelope: empty");
  return m;
}

// Every message of the table is named by a queued frame, and every name is in the table.
void check_references(reader& r, const process_handover& state) {
  std::vector<bool> named(state.messages.size());
  for (const moved_stream& s : state.streams) {
    for (const queued_frame& q : s.queued) {
      if (q.message == queued_frame::own) continue;
      if (q.message >= named.size())
        return r.fail(
            fmt::format("a queued frame names message {} of {}", q.message, state.messages.size()));
      named[q.message] = true;
    }
  }
  if (std::find(named.begin(), named.end(), false) != named.end())
    r.fail("a message no queued frame names");
}

}  // namespace

std::string encode_handover(const process_handover& state) {
  // The header first, its length and checksum filled in at the end: the payload (most of it the
  // node's state) is not copied again.
  writer payload;
  payload.bytes().append(magic);
  payload.u32(handover_format);
  payload.u64(0);
  payload.u64(0);
  payload.u64(state.last_id);
  payload.u64(state.upgrades);
  payload.u64(state.reconnected);
  payload.i64(state.paused_at_ns);
  payload.text(state.generated_admin_token);
  payload.u32(static_cast<std::uint32_t>(state.listeners.size()));
  for (const auto& l : state.listeners) {
    payload.u32(static_cast<std::uint32_t>(l.fd));
    payload.u8(l.v6);
  }
  payload.u32(static_cast<std::uint32_t>(state.streams.size()));
  for (const auto& s : state.streams)
    write_stream(payload, s);
  payload.u32(static_cast<std::uint32_t>(state.http.size()));
  for (const auto& h : state.http)
    write_http(payload, h);
  payload.u32(static_cast<std::uint32_t>(state.messages.size()));
  for (const auto& m : state.messages)
    write_message(payload, m);
  payload.text(state.node_id);
  payload.text(state.node_state);

  std::string& out = payload.bytes();
  const std::string_view body = std::string_view(out).substr(header_size);
  writer lengths;
  lengths.u64(body.size());
  lengths.u64(fnv1a(body));
  out.replace(magic.size() + 4, 16, lengths.bytes());
  return std::move(out);
}

parsed<process_handover> decode_handover(std::string_view bytes) {
  using result = parsed<process_handover>;
  if (bytes.size() < header_size || bytes.substr(0, magic.size()) != magic)
    return result::fail("not a ringcast upgrade state (no RCHO header)");
  reader header(bytes.substr(magic.size(), header_size - magic.size()));
  const std::uint32_t format = header.u32("format");
  const std::uint64_t length = header.u64("length");
  const std::uint64_t checksum = header.u64("checksum");
  if (format != handover_format)
    return result::fail(
        fmt::format("state format {}, this binary reads {}", format, handover_format));
  const std::string_view payload = bytes.substr(header_size);
  if (length != payload.size())
    return result::fail(
        fmt::format("state of {} bytes announced, {} there", length, payload.size()));
  if (checksum != fnv1a(payload)) return result::fail("state checksum does not match");

  reader r(payload);
  process_handover state;
  state.last_id = r.u64("last id");
  state.upgrades = r.u64("upgrades");
  state.reconnected = r.u64("reconnected");
  state.paused_at_ns = r.i64("pause start");
  state.generated_admin_token = r.text("admin token");
  const std::uint32_t listeners = r.count("listeners", 5);
  for (std::uint32_t i = 0; r.ok() && i < listeners; ++i) {
    listening_socket l;
    l.fd = r.fd("listener fd");
    l.v6 = r.flag("listener family");
    state.listeners.push_back(l);
  }
  const std::uint32_t streams = r.count("streams", 44);
  for (std::uint32_t i = 0; r.ok() && i < streams; ++i)
    state.streams.push_back(read_stream(r));
  const std::uint32_t http = r.count("http connections", 14);
  for (std::uint32_t i = 0; r.ok() && i < http; ++i)
    state.http.push_back(read_http(r));
  const std::uint32_t messages = r.count("messages", 9);
  for (std::uint32_t i = 0; r.ok() && i < messages; ++i)
    state.messages.push_back(read_message(r));
  if (r.ok()) check_references(r, state);
  state.node_id = r.text("node id");
  state.node_state = r.text("node state");
  if (r.ok() && !r.done()) r.fail("bytes after the node state");
  if (!r.ok()) return result::fail(r.error());
  return result::ok(std::move(state));
}

}  // namespace ringcast
