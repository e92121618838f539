// The node on the process's loops (core/node.hpp), over the backplane the settings ask for: the
// one place that knows there are two kinds; everything else speaks to `backplane`.
#include "core/local_backplane.hpp"
#include "net/server.hpp"
#include "redis/redis_backplane.hpp"

namespace ringcast {

std::unique_ptr<node> server::make_node() {
  node::parts parts{.loops = {},
                    .floor_id = floor_id_,
                    .max_sticky = cfg_.max_sticky,
                    .presence = presence_,
                    .sessions = &sessions_,
                    .homes = &homes_};
  for (auto& l : loops_)
    parts.loops.push_back({&l->io(), &l->sessions(), &l->timers()});
  return std::make_unique<node>(
      std::move(parts),
      [this](backplane_node& self, sequencer& ids, const node_loop& home,
             const presence_counts& counts) -> std::unique_ptr<backplane> {
        if (!cfg_.redis)
          return std::make_unique<local_backplane>(self, ids, home.timers(), counts,
                                                   cfg_.max_scheduled);
        return std::make_unique<redis_backplane>(
            home.io(), self, ids, home.timers(), counts,
            redis_backplane::settings{.url = *cfg_.redis,
                                      .history = cfg_.history,
                                      .session_ttl = cfg_.session_ttl,
                                      .max_scheduled = cfg_.max_scheduled});
      });
}

}  // namespace ringcast
