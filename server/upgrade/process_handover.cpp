#include "upgrade/process_handover.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "protocol/handover_version.hpp"
#include "upgrade/record_walk.hpp"

namespace ringcast {
namespace {

using upgrade::state_error;

constexpr std::string_view magic = "RCHO";
constexpr std::size_t header_size = 4 + 4 + 8 + 8;
// A descriptor number beyond this is not one a process of ours holds.
constexpr int max_fd = 1 << 24;

std::uint64_t fnv1a(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// ---- checks: what the fields read must mean ----

void check(bool ok, std::string_view what) {
  if (!ok) throw state_error(std::string(what));
}

void check_fd(int fd, const char* what) {
  check(fd >= 0 && fd <= max_fd, fmt::format("{}: descriptor {} out of range", what, fd));
}

void check_stream(const moved_stream& s) {
  check_fd(s.fd, "stream fd");
  const auto kind = static_cast<unsigned>(s.kind);
  check(kind <= 1, fmt::format("stream kind: {} is neither ws (0) nor sse (1)", kind));
  for (const queued_frame& q : s.queued) {
    if (q.message == queued_frame::own)
      check(!q.text.empty(), "queued frame: an empty frame of the stream's own");
    else
      check(q.text.empty(), "queued frame: a message's reference with a text of its own");
  }
}

void check_message(const moved_message& m) {
  if (m.in_node_state)
    check(m.json.empty() && m.sse_prefix.empty(),
          "message in the node's state: with bytes of its own");
  else
    check(!m.json.empty(), "message envelope: empty");
}

// Every message of the table is named by a queued frame, and every name is in the table.
void check_references(const process_handover& state) {
  std::vector<bool> named(state.messages.size());
  for (const moved_stream& s : state.streams) {
    for (const queued_frame& q : s.queued) {
      if (q.message == queued_frame::own) continue;
      check(q.message < named.size(),
            fmt::format("a queued frame names message {} of {}", q.message, state.messages.size()));
      named[q.message] = true;
    }
  }
  check(std::find(named.begin(), named.end(), false) == named.end(),
        "a message no queued frame names");
}

void check_state(const process_handover& state) {
  for (const auto& l : state.listeners)
    check_fd(l.fd, "listener fd");
  for (const auto& h : state.http)
    check_fd(h.fd, "http fd");
  for (const auto& s : state.streams)
    check_stream(s);
  for (const auto& m : state.messages)
    check_message(m);
  check_references(state);
}

}  // namespace

std::string encode_handover(const process_handover& state) {
  // The header first, its length and checksum filled in at the end: the payload (most of it the
  // node's state) is not copied again.
  upgrade::byte_writer w(upgrade::length_bytes::eight);
  w.bytes().append(magic);
  w.put(handover_format);
  w.put(std::uint64_t{0});
  w.put(std::uint64_t{0});
  upgrade::put_field(w, state);

  std::string& out = w.bytes();
  const std::string_view body = std::string_view(out).substr(header_size);
  upgrade::byte_writer lengths;
  lengths.put(static_cast<std::uint64_t>(body.size()));
  lengths.put(fnv1a(body));
  out.replace(magic.size() + 4, 16, lengths.bytes());
  return std::move(out);
}

parsed<process_handover> decode_handover(std::string_view bytes) {
  using result = parsed<process_handover>;
  if (bytes.size() < header_size || bytes.substr(0, magic.size()) != magic)
    return result::fail("not a ringcast upgrade state (no RCHO header)");
  upgrade::byte_reader header(bytes.substr(magic.size(), header_size - magic.size()));
  const auto format = header.get<std::uint32_t>();
  const auto length = header.get<std::uint64_t>();
  const auto checksum = header.get<std::uint64_t>();
  if (format != handover_format)
    return result::fail(
        fmt::format("state format {}, this binary reads {}", format, handover_format));
  const std::string_view payload = bytes.substr(header_size);
  if (length != payload.size())
    return result::fail(
        fmt::format("state of {} bytes announced, {} there", length, payload.size()));
  if (checksum != fnv1a(payload)) return result::fail("state checksum does not match");

  try {
    upgrade::byte_reader r(payload, upgrade::length_bytes::eight);
    process_handover state;
    upgrade::get_field(r, state);
    check(r.left() == 0, "bytes after the node state");
    check_state(state);
    return result::ok(std::move(state));
  } catch (const state_error& e) {
    return result::fail(e.what());
  }
}

}  // namespace ringcast
