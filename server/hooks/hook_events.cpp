#include "hook_events.hpp"

#include <fmt/format.h>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "session.hpp"

namespace ringcast {

namespace json = boost::json;

namespace {

json::array array_of(const std::vector<std::string>& names) {
  json::array a;
  for (const auto& n : names)
    a.emplace_back(n);
  return a;
}

}  // namespace

hook_event_writer::hook_event_writer(hook_outbox& out, std::string node, unsigned loop,
                                     std::function<std::int64_t()> unix_ms)
    : out_(out),
      node_(std::move(node)),
      id_prefix_(fmt::format("{}-{}-", node_, loop)),
      unix_ms_(std::move(unix_ms)) {}

// The fields every event has, in the order the backend sees them.
class hook_event_writer::event {
 public:
  event(hook_event_writer& w, std::string_view type, const session& s) {
    o_["event_id"] = w.id_prefix_ + std::to_string(++w.next_);
    o_["type"] = type;
    o_["ts"] = w.unix_ms_();
    o_["user"] = s.user();
    o_["session"] = s.key();
    o_["sid"] = s.sid();  // as in the connect hook's question
  }
  json::object& fields() { return o_; }
  std::string text() const { return json::serialize(o_); }

 private:
  json::object o_;
};

void hook_event_writer::on_connect(const session& s, bool resumed) {
  event e(*this, "connect", s);
  e.fields()["transport"] = name_of(s.kind());
  e.fields()["resumed"] = resumed;
  e.fields()["channels"] = array_of(s.channels());
  e.fields()["node"] = node_;
  out_.push(e.text());
}

void hook_event_writer::on_disconnect(const session& s, std::string_view reason) {
  event e(*this, "disconnect", s);
  e.fields()["reason"] = reason;
  out_.push(e.text());
}

void hook_event_writer::on_subscribe(const session& s, const std::vector<std::string>& channels) {
  event e(*this, "subscribe", s);
  e.fields()["channels"] = array_of(channels);
  out_.push(e.text());
}

void hook_event_writer::on_unsubscribe(const session& s, const std::vector<std::string>& channels) {
  event e(*this, "unsubscribe", s);
  e.fields()["channels"] = array_of(channels);
  out_.push(e.text());
}

}  // namespace ringcast
