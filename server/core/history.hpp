// The last N messages of one event loop, for resume by id (docs/protocol.md, "Message ids and
// resume").
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "core/message.hpp"

namespace ringcast {

class history {
 public:
  // `floor_id`: no message with an id at or below it is known (ids of an earlier run, or none).
  history(std::size_t capacity, std::uint64_t floor_id)
      : capacity_(capacity), floor_id_(floor_id) {}

  void append(message_ptr m);
  // Starts from messages retained elsewhere (oldest first, e.g. a Redis stream): they become the
  // history, and the floor moves below the first of them. Ignored once anything was appended.
  void seed(const std::vector<message_ptr>& retained);
  // The history of the binary this one replaced (core/loop_handover.cpp): its floor and its
  // messages, oldest first. Ignored once anything was appended.
  void restore(std::uint64_t floor_id, const std::vector<message_ptr>& retained);

  // The newest id this loop knows of (floor_id when nothing has been published).
  std::uint64_t newest_id() const { return messages_.empty() ? floor_id_ : messages_.back()->id; }
  std::uint64_t floor_id() const { return floor_id_; }

  struct resume_span {
    std::deque<message_ptr>::const_iterator begin, end;  // messages with id > since, oldest first
    bool gap;  // messages after `since` were evicted, or `since` is not an id this server issued
  };
  resume_span after(std::uint64_t since) const;

 private:
  std::size_t capacity_;
  std::uint64_t floor_id_;  // highest id no longer (or never) retained
  std::deque<message_ptr> messages_;
};

}  // namespace ringcast
