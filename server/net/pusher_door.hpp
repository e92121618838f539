// The Pusher door's node-wide parts as its connections reach them (docs/pusher.md): the app, the
// node's publish path (a client event is published like any message, so it reaches every node)
// and the channels' presence members (core/pusher_channels.hpp). What reaches the connections of
// every loop (member events, terminating a user) is net/pusher_loops.hpp.
#pragma once

#include <utility>

#include "core/node_messages.hpp"
#include "core/pusher_channels.hpp"
#include "pusher/pusher_app.hpp"

namespace ringcast {

class pusher_door final {
 public:
  pusher_door(pusher::app app, node_messages& messages, pusher_channels& channels)
      : app_(std::move(app)), messages_(messages), channels_(channels) {}
  pusher_door(const pusher_door&) = delete;
  pusher_door& operator=(const pusher_door&) = delete;

  const pusher::app& app() const { return app_; }
  node_messages& messages() { return messages_; }
  pusher_channels& channels() { return channels_; }

 private:
  pusher::app app_;
  node_messages& messages_;
  pusher_channels& channels_;
};

}  // namespace ringcast
