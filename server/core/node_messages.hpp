// Publishing and kicking across the node, as POST /admin/publish and /admin/kick see it.
// Implemented by the node (core/node.hpp).
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "protocol/admin_request.hpp"

namespace ringcast {

class node_messages {
 public:
  struct publish_receipt {
    std::uint64_t id;
    std::size_t recipients;  // live sessions it was queued to (with --redis: on this node)
    bool too_many = false;   // a sticky publish refused: --max-sticky are in force; no id
  };
  // Numbers the message and delivers it on every loop in id order (with --redis: through the
  // shared stream, on every node). `done` runs on `origin`; nullopt means Redis is unreachable
  // and nothing was published.
  virtual void publish(const publish_request& req, boost::asio::any_io_executor origin,
                       std::function<void(std::optional<publish_receipt>)> done) = 0;
  // Closes the user's live connections (close/kicked) on every node; `done(closed here)`.
  virtual void kick(std::string user, boost::asio::any_io_executor origin,
                    std::function<void(std::size_t)> done) = 0;

 protected:
  ~node_messages() = default;
};

}  // namespace ringcast
