// The node's side of the Pusher HTTP API (api/pusher_api_node.hpp) over the hub: the counts and
// presence members that core/pusher_channels holds (node-wide, and with --redis cluster-wide),
// and the ending of a signed-in user's Pusher connections, which the door does on every loop
// and node (`terminate`, given by the server that holds the door).
#pragma once

#include <functional>

#include "api/pusher_api_node.hpp"
#include "core/pusher_channels.hpp"

namespace ringcast {

class pusher_api_hub final : public pusher_api_node {
 public:
  using terminate_call = std::function<void(std::string user, boost::asio::any_io_executor origin,
                                            std::function<void(std::size_t)> done)>;
  // Both outlive this.
  pusher_api_hub(const pusher_channels& channels, terminate_call terminate)
      : channels_(channels), terminate_(std::move(terminate)) {}

  void channels(const std::string& prefix, boost::asio::any_io_executor origin,
                std::function<void(std::optional<counts_list>)> done) override {
    channels_.channels(prefix, std::move(origin), std::move(done));
  }
  void channel(const std::string& name, boost::asio::any_io_executor origin,
               std::function<void(std::optional<pusher::channel_counts>)> done) override {
    channels_.channel(name, std::move(origin), std::move(done));
  }
  void members(const std::string& channel, boost::asio::any_io_executor origin,
               std::function<void(std::optional<std::vector<std::string>>)> done) override;
  void terminate_user(std::string user, boost::asio::any_io_executor origin,
                      std::function<void(std::size_t)> done) override {
    terminate_(std::move(user), std::move(origin), std::move(done));
  }

 private:
  const pusher_channels& channels_;
  terminate_call terminate_;
};

}  // namespace ringcast
