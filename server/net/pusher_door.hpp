// The Pusher door's node-wide parts as its connections reach them (docs/pusher.md): the app, the
// node's publish path (a client event is published like any message, so it reaches every node),
// the channels' presence members (core/pusher_channels.hpp), and the relay of member events to
// every loop's connections.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/node_messages.hpp"
#include "core/pusher_channels.hpp"
#include "pusher/pusher_app.hpp"

namespace ringcast {

class connection_context;

class pusher_door final : public pusher_member_events {
 public:
  // Tells `channels` of itself (set_member_events); both outlive it.
  pusher_door(pusher::app app, node_messages& messages, pusher_channels& channels);
  ~pusher_door();
  pusher_door(const pusher_door&) = delete;
  pusher_door& operator=(const pusher_door&) = delete;

  const pusher::app& app() const { return app_; }
  node_messages& messages() { return messages_; }
  pusher_channels& channels() { return channels_; }

  // The loops whose connections hear member events: every loop, before any client.
  void add_loop(connection_context& loop) { loops_.push_back(&loop); }

  // pusher_member_events: posted to every loop, where the channel's Pusher connections are told.
  void member_added(const std::string& channel, const pusher_member& member) override;
  void member_removed(const std::string& channel, const std::string& user_id) override;

  // The per-loop part of terminating a user's connections (docs/pusher.md, "User
  // authentication"): on `loop`'s thread, ends every Pusher connection there signed in as
  // `user_id` with pusher:error 4009. Returns how many.
  static std::size_t terminate_on(connection_context& loop, std::string_view user_id);

 private:
  pusher::app app_;
  node_messages& messages_;
  pusher_channels& channels_;
  std::vector<connection_context*> loops_;
};

}  // namespace ringcast
