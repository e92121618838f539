#include "net/connection_registry.hpp"

namespace ringcast {

// Linked first in its kind's list: a walk under way does not meet it.
registered_connection::registered_connection(connection_registry& registry, connection_kind kind,
                                             connection_state state)
    : kind_(kind), state_(state) {
  connection_link& head = registry.heads_[static_cast<std::size_t>(kind)];
  prev = &head;
  next = head.next;
  head.next->prev = this;
  head.next = this;
}

registered_connection::~registered_connection() {
  prev->next = next;
  next->prev = prev;
}

std::size_t connection_registry::count(connection_kind kind, connection_state state) const {
  std::size_t n = 0;
  const connection_link& head = heads_[static_cast<std::size_t>(kind)];
  for (const connection_link* c = head.next; c != &head; c = c->next) {
    if (static_cast<const registered_connection*>(c)->state() == state) ++n;
  }
  return n;
}

}  // namespace ringcast
