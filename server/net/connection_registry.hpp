// What is open on one event loop (Wangle's ConnectionManager, nginx's cycle): every connection
// object registers with its loop at construction, under its kind, and says what state it is in;
// drain, the upgrade's "at rest" and in-flight counts, and its capture read it here. One
// intrusive list per kind: a connection carries its own links (no allocation, no hash entry), so
// registering, leaving and changing state are O(1); the walks are O(connections of the kind) and
// happen only at a drain or an upgrade. Like the loop's other state, it is touched only on the
// loop's thread.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringcast {

enum class connection_kind : std::uint8_t { http, ws, sse, poll };

// http: `idle` waiting for its next request (or lingering after a refusal: a drain closes it at
// once), `busy` reading, handling or answering one (or closed), `parked` for an upgrade in place
// (http_connection::begin_handover). poll: `parked` while held, `busy` while its reply is
// written, `idle` once it is written. ws, sse: `busy` while they live (their state is their
// session's; an upgrade moves them as they are).
enum class connection_state : std::uint8_t { idle, busy, parked };

class connection_registry;

// A place in one of the registry's circular lists (a connection, or a list's head).
struct connection_link {
  connection_link* prev = this;
  connection_link* next = this;
};

// One connection's place in its loop's registry: a base of every connection class.
class registered_connection : private connection_link {
 public:
  registered_connection(const registered_connection&) = delete;
  registered_connection& operator=(const registered_connection&) = delete;

  connection_kind kind() const { return kind_; }
  connection_state state() const { return state_; }

 protected:
  registered_connection(connection_registry& registry, connection_kind kind,
                        connection_state state);
  ~registered_connection();  // leaves the registry
  void set_state(connection_state s) { state_ = s; }

 private:
  friend class connection_registry;

  connection_kind kind_;
  connection_state state_;
};

class connection_registry {
 public:
  connection_registry() = default;
  connection_registry(const connection_registry&) = delete;
  connection_registry& operator=(const connection_registry&) = delete;

  // `f(T&)` for every connection of `kind` (T: its class). `f` may end the connection it is
  // given, not another.
  template <class T, class F>
  void for_each(connection_kind kind, F&& f) {
    connection_link& head = heads_[static_cast<std::size_t>(kind)];
    for (connection_link* c = head.next; c != &head;) {
      connection_link* next = c->next;
      f(static_cast<T&>(static_cast<registered_connection&>(*c)));
      c = next;
    }
  }
  // The connections of `kind` in `state` now, for a walk whose steps may end any of them.
  template <class T>
  std::vector<T*> in_state(connection_kind kind, connection_state state) {
    std::vector<T*> out;
    for_each<T>(kind, [&](T& c) {
      if (c.state() == state) out.push_back(&c);
    });
    return out;
  }
  std::size_t count(connection_kind kind, connection_state state) const;

  // An upgrade in place is taking this loop's connections (http_connection::begin_handover).
  bool handing_over() const { return handing_over_; }
  void set_handing_over(bool on) { handing_over_ = on; }

 private:
  friend class registered_connection;

  std::array<connection_link, 4> heads_{};
  bool handing_over_ = false;
};

}  // namespace ringcast
