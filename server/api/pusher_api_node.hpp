// What the Pusher HTTP API (api/pusher_api.hpp) asks of the node beyond publishing: the counts of
// channels and the members of presence channels (node-wide, and with --redis cluster-wide), and
// ending a signed-in user's Pusher connections on every loop and node. Each answer runs on
// `origin`; nullopt means the cluster's figures could not be had (Redis unreachable).
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pusher/pusher_api_answers.hpp"

namespace ringcast {

class pusher_api_node {
 public:
  using counts_list = std::vector<pusher::channel_counts>;

  // The occupied channels whose name starts with `prefix` (GET channels).
  virtual void channels(const std::string& prefix, boost::asio::any_io_executor origin,
                        std::function<void(std::optional<counts_list>)> done) = 0;
  // One channel's counts (zero for a channel nobody is on).
  virtual void channel(const std::string& name, boost::asio::any_io_executor origin,
                       std::function<void(std::optional<pusher::channel_counts>)> done) = 0;
  // The user ids of a presence channel's members, each once.
  virtual void members(const std::string& channel, boost::asio::any_io_executor origin,
                       std::function<void(std::optional<std::vector<std::string>>)> done) = 0;
  // Closes every Pusher connection signed in as `user` on every loop and node; `done(closed on
  // this node)`.
  virtual void terminate_user(std::string user, boost::asio::any_io_executor origin,
                              std::function<void(std::size_t)> done) = 0;

 protected:
  ~pusher_api_node() = default;
};

}  // namespace ringcast
