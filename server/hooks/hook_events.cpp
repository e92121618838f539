#include "hooks/hook_events.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "core/session.hpp"

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
      unix_ms_(std::move(unix_ms)) {
  out_.set_pending_source(this);
}

hook_event_writer::~hook_event_writer() {
  out_.set_pending_source(nullptr);
}

// The fields every event has, in the order the backend sees them.
class hook_event_writer::event {
 public:
  event(hook_event_writer& w, std::string_view type, const session& s)
      : event(w, type, s.user(), s.key(), w.unix_ms_()) {}
  event(hook_event_writer& w, std::string_view type, std::string_view user, std::string_view key,
        std::int64_t ts) {
    o_["event_id"] = w.id_prefix_ + std::to_string(++w.next_);
    o_["type"] = type;
    o_["ts"] = ts;
    o_["user"] = user;
    o_["session"] = key;
    o_["sid"] = key.substr(user.size() + 1);  // key is user/sid; as in the connect hook's question
  }
  json::object& fields() { return o_; }
  std::string text() const { return json::serialize(o_); }

 private:
  json::object o_;
};

void hook_event_writer::on_connect(const session& s, bool resumed) {
  send_pending_of(s);
  event e(*this, "connect", s);
  e.fields()["transport"] = name_of(s.kind());
  e.fields()["resumed"] = resumed;
  e.fields()["channels"] = array_of(s.channels());
  e.fields()["node"] = node_;
  out_.push(e.text());
}

void hook_event_writer::on_disconnect(const session& s, std::string_view reason) {
  send_pending_of(s);
  event e(*this, "disconnect", s);
  e.fields()["reason"] = reason;
  out_.push(e.text());
}

hook_event_writer::change& hook_event_writer::pending_for(const session& s) {
  const auto [at, added] = pending_at_.try_emplace(s.key(), pending_.size());
  if (added) pending_.push_back({s.user(), s.key(), {}, {}, 0});
  change& c = pending_[at->second];
  c.ts = unix_ms_();
  return c;
}

namespace {

// Records `name` as changed one way: it cancels a change the other way, or is added to `to`.
void note(std::vector<std::string>& to, std::vector<std::string>& other, const std::string& name) {
  if (const auto it = std::find(other.begin(), other.end(), name); it != other.end()) {
    other.erase(it);
  } else if (std::find(to.begin(), to.end(), name) == to.end()) {
    to.push_back(name);
  }
}

}  // namespace

// The outbox is told after the change is noted: while draining it takes it at once.
void hook_event_writer::on_subscribe(const session& s, const std::vector<std::string>& channels) {
  const bool first = pending_.empty();
  change& c = pending_for(s);
  for (const auto& name : channels)
    note(c.added, c.removed, name);
  if (first) out_.pending_added();
}

void hook_event_writer::on_unsubscribe(const session& s, const std::vector<std::string>& channels) {
  const bool first = pending_.empty();
  change& c = pending_for(s);
  for (const auto& name : channels)
    note(c.removed, c.added, name);
  if (first) out_.pending_added();
}

void hook_event_writer::write_change(change& c, std::vector<std::string>& out) {
  if (!c.added.empty()) {
    event e(*this, "subscribe", c.user, c.key, c.ts);
    e.fields()["channels"] = array_of(c.added);
    out.push_back(e.text());
  }
  if (!c.removed.empty()) {
    event e(*this, "unsubscribe", c.user, c.key, c.ts);
    e.fields()["channels"] = array_of(c.removed);
    out.push_back(e.text());
  }
  c.added.clear();
  c.removed.clear();
}

void hook_event_writer::send_pending_of(const session& s) {
  const auto at = pending_at_.find(s.key());
  if (at == pending_at_.end()) return;
  std::vector<std::string> events;
  write_change(pending_[at->second], events);  // its entry stays, empty, until the batch
  for (auto& e : events)
    out_.push(std::move(e));
}

void hook_event_writer::take_pending(std::vector<std::string>& out) {
  for (auto& c : pending_)
    write_change(c, out);
  pending_.clear();
  pending_at_.clear();
}

}  // namespace ringcast
