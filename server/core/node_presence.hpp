// Who is online, as GET /admin/presence sees it. Implemented by the node (core/node.hpp).
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <functional>
#include <optional>

#include "core/presence.hpp"
#include "protocol/presence_query.hpp"

namespace ringcast {

class node_presence {
 public:
  // Online users and sessions (with --redis: of every live node). `done` runs on `origin`;
  // nullopt means Redis is unreachable.
  virtual void presence(const presence_query& q, boost::asio::any_io_executor origin,
                        std::function<void(std::optional<presence_figures>)> done) = 0;

 protected:
  ~node_presence() = default;
};

}  // namespace ringcast
