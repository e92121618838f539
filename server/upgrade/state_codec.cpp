#include "state_codec.hpp"

#include <algorithm>
#include <unordered_set>

#include <zlib.h>

#include "client_params.hpp"
#include "state_bytes.hpp"

namespace ringcast::upgrade {
namespace {

// Sections, in the order they are written and must be read.
enum section : std::uint32_t {
  node_section = 1,
  messages_section,
  loops_section,
  schedule_section
};

std::uint32_t crc_of(std::string_view bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  // zlib takes a uInt length: feed it in pieces below 4 GiB.
  while (!bytes.empty()) {
    const auto n = static_cast<uInt>(std::min<std::size_t>(bytes.size(), 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data()), n);
    bytes.remove_prefix(n);
  }
  return static_cast<std::uint32_t>(crc);
}

// ---- writing ----

void put_strings(byte_writer& w, const std::vector<std::string>& v) {
  w.put_count(v.size());
  for (const auto& s : v)
    w.put_string(s);
}

void put_ids(byte_writer& w, const std::vector<std::uint64_t>& v) {
  w.put_count(v.size());
  for (const auto id : v)
    w.put(id);
}

void write_node(byte_writer& w, const handover_state& s) {
  w.put(s.last_id);
  w.put(s.published);
  w.put_count(s.sticky_quota.size());
  for (const auto& e : s.sticky_quota) {
    w.put(e.id);
    w.put(e.expires_ms);
  }
}

void write_messages(byte_writer& w, const std::vector<message_state>& messages) {
  w.put_count(messages.size());
  for (const auto& m : messages) {
    w.put(m.id);
    w.put(m.ts_ms);
    w.put(m.audience);
    w.put_string(m.target);
    w.put(m.expires_ms);
    w.put(m.spread_ms);
    w.put_bool(m.sticky);
    w.put_string(m.json);
    w.put(m.recipients);
    w.put(m.delivered);
    w.put(m.acked);
    w.put_bool(m.expired);
  }
}

void write_session(byte_writer& w, const session_state& s) {
  w.put_string(s.user);
  w.put_string(s.sid);
  put_strings(w, s.channels);
  put_ids(w, s.joined_after);
  w.put_bool(s.allowed_channels.has_value());
  if (s.allowed_channels) put_strings(w, *s.allowed_channels);
  w.put(s.token_expires);
  w.put_bool(s.live);
  w.put(s.transport);
  w.put_bool(s.online);
  for (const auto id : {s.acked_id, s.paced_acked_id, s.sent_up_to, s.ack_floor, s.start_id})
    w.put(id);
  for (const auto t :
       {s.attached_at, s.last_activity, s.last_sent, s.detached_at, s.paced_until, s.timer_due})
    w.put(t);
}

void write_loops(byte_writer& w, const std::vector<loop_state>& loops) {
  w.put_count(loops.size());
  for (const auto& l : loops) {
    w.put(l.history_floor);
    put_ids(w, l.history);
    put_ids(w, l.sticky);
    w.put_count(l.expiring.size());
    for (const auto& e : l.expiring) {
      w.put(e.id);
      w.put(e.due);
    }
    w.put(l.paced_walked_to);
    w.put_count(l.paced.size());
    for (const auto& p : l.paced) {
      w.put(p.id);
      w.put(p.start);
      w.put(p.walked_lo);
      w.put(p.walked_hi);
    }
    w.put_count(l.sessions.size());
    for (const auto& s : l.sessions)
      write_session(w, s);
  }
}

void write_schedule(byte_writer& w, const schedule_state& s) {
  w.put_count(s.generations.size());
  for (const auto g : s.generations)
    w.put(g);
  w.put_count(s.waiting.size());
  for (const auto& p : s.waiting) {
    w.put(p.slot);
    w.put(p.at_ms);
    w.put(p.due);
    w.put_string(p.request_json);
  }
}

template <class Write>
void write_section(byte_writer& body, section tag, Write&& write) {
  byte_writer w;
  write(w);
  body.put(static_cast<std::uint32_t>(tag));
  body.put(static_cast<std::uint64_t>(w.bytes().size()));
  body.bytes() += w.bytes();
}

// ---- reading ----

// The smallest encoding of one element, for get_count: a corrupt count is refused before any
// allocation it would cause.
constexpr std::size_t id_bytes = 8;
constexpr std::size_t string_bytes = 4;
constexpr std::size_t message_bytes = 8 + 8 + 1 + 4 + 8 + 8 + 1 + 4 + 8 * 3 + 1;
constexpr std::size_t session_bytes = 4 + 4 + 4 + 4 + 1 + 8 + 1 + 1 + 1 + 8 * 5 + 8 * 6;
constexpr std::size_t loop_bytes = 8 + 4 + 4 + 4 + 8 + 4 + 4;

std::vector<std::string> get_strings(byte_reader& r, const char* what) {
  std::vector<std::string> v(r.get_count(string_bytes, what));
  for (auto& s : v)
    s = r.get_string(what);
  return v;
}

std::vector<std::uint64_t> get_ids(byte_reader& r, const char* what) {
  std::vector<std::uint64_t> v(r.get_count(id_bytes, what));
  for (auto& id : v)
    id = r.get<std::uint64_t>();
  return v;
}

void check(bool ok, const char* what) {
  if (!ok) throw state_error(what);
}

template <class T, class Key>
bool strictly_increasing(const std::vector<T>& v, Key key) {
  return std::adjacent_find(v.begin(), v.end(),
                            [&](const T& a, const T& b) { return key(a) >= key(b); }) == v.end();
}

void read_node(byte_reader& r, handover_state& s) {
  s.last_id = r.get<std::uint64_t>();
  s.published = r.get<std::uint64_t>();
  s.sticky_quota.resize(r.get_count(16, "sticky quota entries"));
  for (auto& e : s.sticky_quota) {
    e.id = r.get<std::uint64_t>();
    e.expires_ms = r.get<std::int64_t>();
    check(e.expires_ms >= 0, "a sticky message with a negative expiry");
  }
  check(strictly_increasing(s.sticky_quota, [](const auto& e) { return e.id; }),
        "sticky quota entries out of id order");
}

void read_messages(byte_reader& r, handover_state& s) {
  s.messages.resize(r.get_count(message_bytes, "messages"));
  for (auto& m : s.messages) {
    m.id = r.get<std::uint64_t>();
    m.ts_ms = r.get<std::int64_t>();
    m.audience = r.get<std::uint8_t>();
    check(m.audience <= max_audience, "a message with an unknown audience");
    m.target = r.get_string("a message's target");
    m.expires_ms = r.get<std::int64_t>();
    m.spread_ms = r.get<std::int64_t>();
    check(m.expires_ms >= 0 && m.spread_ms >= 0, "a message with a negative expiry or spread");
    m.sticky = r.get_bool();
    m.json = r.get_string("a message's envelope");
    check(!m.json.empty(), "a message without its envelope");
    m.recipients = r.get<std::uint64_t>();
    m.delivered = r.get<std::uint64_t>();
    m.acked = r.get<std::uint64_t>();
    m.expired = r.get_bool();
    check(m.id != 0 && m.id <= s.last_id, "a message id the sequencer never issued");
  }
  check(strictly_increasing(s.messages, [](const auto& m) { return m.id; }),
        "messages out of id order");
}

bool is_session_part(std::string_view text) {
  return valid_identifier(text);
}

session_state read_session(byte_reader& r) {
  session_state s;
  s.user = r.get_string("a session's user");
  s.sid = r.get_string("a session's sid");
  check(is_session_part(s.user) && is_session_part(s.sid), "a session that is not (user, sid)");
  s.channels = get_strings(r, "a session's channels");
  s.joined_after = get_ids(r, "a session's channel joins");
  check(s.joined_after.size() == s.channels.size(), "a session's channels and joins disagree");
  check(s.channels.size() <= max_channels_per_client, "a session with too many channels");
  check(std::all_of(s.channels.begin(), s.channels.end(), is_session_part),
        "a session's channel that is not an identifier");
  if (r.get_bool()) s.allowed_channels = get_strings(r, "a session's allowed channels");
  s.token_expires = r.get<rel_ns>();
  s.live = r.get_bool();
  s.transport = r.get<std::uint8_t>();
  check(s.transport <= max_transport, "a session with an unknown transport");
  s.online = r.get_bool();
  for (auto* id : {&s.acked_id, &s.paced_acked_id, &s.sent_up_to, &s.ack_floor, &s.start_id})
    *id = r.get<std::uint64_t>();
  for (auto* t : {&s.attached_at, &s.last_activity, &s.last_sent, &s.detached_at, &s.paced_until,
                  &s.timer_due})
    *t = r.get<rel_ns>();
  return s;
}

void read_loops(byte_reader& r, handover_state& s) {
  std::unordered_set<std::uint64_t> known;
  for (const auto& m : s.messages)
    known.insert(m.id);
  auto all_known = [&](const auto& v, auto id_of) {
    return std::all_of(v.begin(), v.end(), [&](const auto& e) { return known.contains(id_of(e)); });
  };
  auto same = [](std::uint64_t id) { return id; };
  auto by_id = [](const auto& e) { return e.id; };

  s.loops.resize(r.get_count(loop_bytes, "loops"));
  check(!s.loops.empty(), "a state without any loop");
  for (auto& l : s.loops) {
    l.history_floor = r.get<std::uint64_t>();
    l.history = get_ids(r, "history");
    check(strictly_increasing(l.history, same) && all_known(l.history, same) &&
              (l.history.empty() || l.history.front() > l.history_floor),
          "a loop's history is not messages of the state in id order above its floor");
    l.sticky = get_ids(r, "sticky messages");
    check(strictly_increasing(l.sticky, same) && all_known(l.sticky, same),
          "a loop's sticky set is not messages of the state in id order");
    l.expiring.resize(r.get_count(16, "message expiries"));
    for (auto& e : l.expiring) {
      e.id = r.get<std::uint64_t>();
      e.due = r.get<rel_ns>();
    }
    check(strictly_increasing(l.expiring, by_id) && all_known(l.expiring, by_id),
          "a loop's expiries are not of messages of the state, by id");
    l.paced_walked_to = r.get<rel_ns>();
    l.paced.resize(r.get_count(8 + 8 + 8 + 1, "paced messages"));
    for (auto& p : l.paced) {
      p.id = r.get<std::uint64_t>();
      p.start = r.get<rel_ns>();
      p.walked_lo = r.get<std::uint64_t>();
      p.walked_hi = r.get<std::uint8_t>();
      check(p.walked_hi == 0 || (p.walked_hi == 1 && p.walked_lo == 0),
            "a paced message walked past the whole ring");
    }
    check(strictly_increasing(l.paced, by_id) && all_known(l.paced, by_id),
          "a loop's paced log is not messages of the state in id order");
    l.sessions.resize(r.get_count(session_bytes, "sessions"));
    std::unordered_set<std::string> keys;
    for (auto& session : l.sessions) {
      session = read_session(r);
      check(keys.insert(session.user + '/' + session.sid).second, "a session twice in a loop");
    }
  }
}

void read_schedule(byte_reader& r, handover_state& s) {
  auto& sched = s.schedule;
  sched.generations.resize(r.get_count(4, "schedule slots"));
  for (auto& g : sched.generations)
    g = r.get<std::uint32_t>();
  sched.waiting.resize(r.get_count(4 + 8 + 8 + 4, "scheduled promotions"));
  for (auto& p : sched.waiting) {
    p.slot = r.get<std::uint32_t>();
    p.at_ms = r.get<std::int64_t>();
    p.due = r.get<rel_ns>();
    p.request_json = r.get_string("a scheduled request");
    check(p.slot < sched.generations.size(), "a scheduled promotion in a slot never handed out");
    check(!p.request_json.empty(), "a scheduled promotion without its request");
  }
  check(strictly_increasing(sched.waiting, [](const auto& p) { return p.slot; }),
        "scheduled promotions out of slot order");
}

// Reads the next section, which must be `tag`, with `read`; it must use the section exactly.
template <class Read>
void read_section(byte_reader& body, section tag, const char* name, Read&& read) {
  const auto got = body.get<std::uint32_t>();
  if (got != tag)
    throw state_error(std::string("expected the ") + name + " section, found tag " +
                      std::to_string(got));
  const auto length = body.get<std::uint64_t>();
  if (length > body.left())
    throw state_error(std::string("the ") + name + " section is longer than the state");
  byte_reader r(body.take(static_cast<std::size_t>(length), name));
  read(r);
  if (r.left() != 0) throw state_error(std::string("bytes left over in the ") + name + " section");
}

}  // namespace

std::string write_state(const handover_state& state) {
  byte_writer body;
  write_section(body, node_section, [&](byte_writer& w) { write_node(w, state); });
  write_section(body, messages_section, [&](byte_writer& w) { write_messages(w, state.messages); });
  write_section(body, loops_section, [&](byte_writer& w) { write_loops(w, state.loops); });
  write_section(body, schedule_section, [&](byte_writer& w) { write_schedule(w, state.schedule); });

  byte_writer out;
  out.bytes() += state_magic;
  out.put(state_format);
  out.put(crc_of(body.bytes()));
  out.put(static_cast<std::uint64_t>(body.bytes().size()));
  out.bytes() += body.bytes();
  return std::move(out.bytes());
}

read_result read_state(std::string_view bytes) {
  try {
    byte_reader head(bytes);
    if (head.left() < state_header_bytes || head.take(state_magic.size(), "") != state_magic)
      throw state_error("not a ringcast state (no magic)");
    const auto format = head.get<std::uint32_t>();
    if (format != state_format)
      throw state_error("state format " + std::to_string(format) + ", this binary reads " +
                        std::to_string(state_format));
    const auto crc = head.get<std::uint32_t>();
    const auto length = head.get<std::uint64_t>();
    if (length != head.left())
      throw state_error("the state is " + std::to_string(head.left()) +
                        " bytes after its header, " + "its header says " + std::to_string(length));
    const std::string_view body_bytes = head.take(static_cast<std::size_t>(length), "the body");
    if (crc_of(body_bytes) != crc) throw state_error("the state's checksum does not match");

    handover_state state;
    byte_reader body(body_bytes);
    read_section(body, node_section, "node", [&](byte_reader& r) { read_node(r, state); });
    read_section(body, messages_section, "messages",
                 [&](byte_reader& r) { read_messages(r, state); });
    read_section(body, loops_section, "loops", [&](byte_reader& r) { read_loops(r, state); });
    read_section(body, schedule_section, "schedule",
                 [&](byte_reader& r) { read_schedule(r, state); });
    if (body.left() != 0) throw state_error("bytes left over after the last section");
    return {std::move(state), {}};
  } catch (const state_error& e) {
    return {std::nullopt, e.what()};
  }
}

}  // namespace ringcast::upgrade
