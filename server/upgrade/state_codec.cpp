#include "upgrade/state_codec.hpp"

#include <algorithm>
#include <unordered_set>

#include <zlib.h>

#include "protocol/client_params.hpp"
#include "upgrade/record_walk.hpp"
#include "upgrade/state_bytes.hpp"

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

// Each section is a run of handover_state's fields, written and read by their declaration
// (record_walk.hpp); a field added to handover_state must be given to a section.
struct section_fields {
  section tag;
  const char* name;
  std::size_t first, end;  // field indexes [first, end)
};
constexpr section_fields sections[] = {{node_section, "node", 0, 3},
                                       {messages_section, "messages", 3, 4},
                                       {loops_section, "loops", 4, 5},
                                       {schedule_section, "schedule", 5, 6}};
static_assert(boost::pfr::tuple_size_v<handover_state> == 6,
              "every field of handover_state is in one of the sections");

template <class State, class F>
void for_fields_of(const section_fields& s, State& state, F&& f) {
  for_each_index<handover_state>([&](auto i) {
    if (i >= s.first && i < s.end) f(boost::pfr::get<i>(state));
  });
}

// ---- checks: what the fields read must mean ----

void check(bool ok, const char* what) {
  if (!ok) throw state_error(what);
}

template <class T, class Key>
bool strictly_increasing(const std::vector<T>& v, Key key) {
  return std::adjacent_find(v.begin(), v.end(),
                            [&](const T& a, const T& b) { return key(a) >= key(b); }) == v.end();
}

void check_node(const handover_state& s) {
  for (const auto& e : s.sticky_quota)
    check(e.expires_ms >= 0, "a sticky message with a negative expiry");
  check(strictly_increasing(s.sticky_quota, [](const auto& e) { return e.id; }),
        "sticky quota entries out of id order");
}

void check_messages(const handover_state& s) {
  for (const auto& m : s.messages) {
    check(m.to <= max_audience, "a message with an unknown audience");
    check(m.expires_ms >= 0 && m.spread >= 0, "a message with a negative expiry or spread");
    check(!m.json.empty(), "a message without its envelope");
    check(m.id != 0 && m.id <= s.last_id, "a message id the sequencer never issued");
  }
  check(strictly_increasing(s.messages, [](const auto& m) { return m.id; }),
        "messages out of id order");
}

bool is_session_part(std::string_view text) {
  return valid_identifier(text);
}

void check_session(const session_state& state) {
  const auto& s = state.record;
  check(is_session_part(s.user_) && is_session_part(s.sid_), "a session that is not (user, sid)");
  check(s.joined_after_.size() == s.channels_.size(), "a session's channels and joins disagree");
  check(s.channels_.size() <= max_channels_per_client, "a session with too many channels");
  check(std::all_of(s.channels_.begin(), s.channels_.end(), is_session_part),
        "a session's channel that is not an identifier");
  check(s.transport_ <= max_transport, "a session with an unknown transport");
}

void check_loops(const handover_state& s) {
  std::unordered_set<std::uint64_t> known;
  for (const auto& m : s.messages)
    known.insert(m.id);
  auto all_known = [&](const auto& v, auto id_of) {
    return std::all_of(v.begin(), v.end(), [&](const auto& e) { return known.contains(id_of(e)); });
  };
  auto same = [](std::uint64_t id) { return id; };
  auto by_id = [](const auto& e) { return e.msg; };

  check(!s.loops.empty(), "a state without any loop");
  for (const auto& l : s.loops) {
    check(strictly_increasing(l.history, same) && all_known(l.history, same) &&
              (l.history.empty() || l.history.front() > l.history_floor),
          "a loop's history is not messages of the state in id order above its floor");
    check(strictly_increasing(l.sticky, same) && all_known(l.sticky, same),
          "a loop's sticky set is not messages of the state in id order");
    check(strictly_increasing(l.expiring, by_id) && all_known(l.expiring, by_id),
          "a loop's expiries are not of messages of the state, by id");
    for (const auto& p : l.paced)
      check(p.walked.hi == 0 || (p.walked.hi == 1 && p.walked.lo == 0),
            "a paced message walked past the whole ring");
    check(strictly_increasing(l.paced, by_id) && all_known(l.paced, by_id),
          "a loop's paced log is not messages of the state in id order");
    std::unordered_set<std::string> keys;
    for (const auto& session : l.sessions) {
      check_session(session);
      check(keys.insert(session.record.user_ + '/' + session.record.sid_).second,
            "a session twice in a loop");
    }
  }
}

void check_schedule(const handover_state& s) {
  const auto& sched = s.schedule;
  for (const auto& p : sched.waiting) {
    check(p.slot < sched.generations.size(), "a scheduled promotion in a slot never handed out");
    check(!p.record.request_json.empty(), "a scheduled promotion without its request");
  }
  check(strictly_increasing(sched.waiting, [](const auto& p) { return p.slot; }),
        "scheduled promotions out of slot order");
}

// Reads the next section, which must be `tag`, with `read`; it must use the section exactly.
template <class Read>
void read_section(byte_reader& body, const section_fields& s, Read&& read) {
  const auto got = body.get<std::uint32_t>();
  if (got != s.tag)
    throw state_error(std::string("expected the ") + s.name + " section, found tag " +
                      std::to_string(got));
  const auto length = body.get<std::uint64_t>();
  if (length > body.left())
    throw state_error(std::string("the ") + s.name + " section is longer than the state");
  byte_reader r(body.take(static_cast<std::size_t>(length), s.name));
  read(r);
  if (r.left() != 0)
    throw state_error(std::string("bytes left over in the ") + s.name + " section");
}

}  // namespace

std::string write_state(const handover_state& state) {
  byte_writer body;
  for (const auto& s : sections) {
    byte_writer w;
    for_fields_of(s, state, [&](const auto& field) { put_field(w, field); });
    body.put(static_cast<std::uint32_t>(s.tag));
    body.put(static_cast<std::uint64_t>(w.bytes().size()));
    body.bytes() += w.bytes();
  }

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
    for (const auto& s : sections) {
      read_section(body, s, [&](byte_reader& r) {
        for_fields_of(s, state, [&](auto& field) { get_field(r, field); });
      });
    }
    if (body.left() != 0) throw state_error("bytes left over after the last section");
    for (const auto check_part : {check_node, check_messages, check_loops, check_schedule})
      check_part(state);
    return {std::move(state), {}};
  } catch (const state_error& e) {
    return {std::nullopt, e.what()};
  }
}

}  // namespace ringcast::upgrade
