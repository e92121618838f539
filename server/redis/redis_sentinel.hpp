// Finding and following a Redis master through Sentinel (--redis sentinel://..., docs/scaling.md).
//
//   resolve  asks the Sentinels in turn `SENTINEL get-master-addr-by-name <master>`, then asks the
//            address it got for `ROLE`: only a server that says it is the master is used (a
//            Sentinel can lag behind a failover, or a demoted master come back as a replica).
//   watch    stays subscribed to `+switch-master` on one Sentinel (the next one when it goes away)
//            and reports a failover of our master as soon as a Sentinel announces it.
// All on one io_context (the bus's); nothing blocks.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "protocol/redis_url.hpp"
#include "redis/redis_connection.hpp"

namespace ringcast {

class redis_sentinel {
 public:
  // `url` is a sentinel:// URL (parse_redis_url): its Sentinels, master name and the master's
  // credentials, used for the ROLE check.
  redis_sentinel(boost::asio::io_context& ctx, redis_url url);
  ~redis_sentinel();
  redis_sentinel(const redis_sentinel&) = delete;
  redis_sentinel& operator=(const redis_sentinel&) = delete;

  // done(address of the master), or done(nullopt, why) when no Sentinel named a reachable master.
  using resolved = std::function<void(std::optional<redis_endpoint>, std::string why)>;
  void resolve(resolved done);

  // on_switch(new address) each time a Sentinel announces +switch-master for our master.
  void watch(std::function<void(redis_endpoint)> on_switch);

 private:
  void ask(std::size_t index, std::shared_ptr<resolved> done, std::string errors);
  void check_role(redis_endpoint master, std::size_t index, std::shared_ptr<resolved> done,
                  std::string errors);
  void subscribe(std::size_t index);
  redis_url endpoint_url(const redis_endpoint& e, bool sentinel) const;

  boost::asio::io_context& ctx_;
  redis_url url_;
  std::function<void(redis_endpoint)> on_switch_;
  // The connections of resolves in progress, closed when this object goes.
  std::vector<std::unique_ptr<redis_connection>> asking_;
  std::unique_ptr<redis_connection> watching_;
  boost::asio::steady_timer rewatch_;
  std::size_t watch_index_ = 0;
  std::uint64_t generation_ = 0;  // of resolve()
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace ringcast
