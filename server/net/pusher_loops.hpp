// The Pusher connections of every loop, as the node reaches them (docs/pusher.md): the member
// events of presence channels, relayed from core/pusher_channels to the connections listening on
// each loop, and the per-loop part of terminating a signed-in user's connections. Kept apart from
// pusher_door (the node-wide parts a connection uses), so that the door knows no connection.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/pusher_channels.hpp"

namespace ringcast {

class connection_context;

class pusher_loops final : public pusher_member_events {
 public:
  // The loops whose connections hear member events: every loop, before any client.
  void add_loop(connection_context& loop) { loops_.push_back(&loop); }

  // pusher_member_events: posted to every loop, where the channel's Pusher connections are told.
  void member_added(const std::string& channel, const pusher_member& member) override;
  void member_removed(const std::string& channel, const std::string& user_id) override;

  // On `loop`'s thread, ends every Pusher connection there signed in as `user_id` with
  // pusher:error 4009 (docs/pusher.md, "User authentication"). Returns how many.
  static std::size_t terminate_on(connection_context& loop, std::string_view user_id);

 private:
  std::vector<connection_context*> loops_;
};

}  // namespace ringcast
