#include "api/pusher_api_hub.hpp"

namespace ringcast {

void pusher_api_hub::members(const std::string& channel, boost::asio::any_io_executor origin,
                             std::function<void(std::optional<std::vector<std::string>>)> done) {
  channels_.members(channel, std::move(origin),
                    [done = std::move(done)](std::optional<std::vector<pusher_member>> members) {
                      if (!members) return done(std::nullopt);
                      std::vector<std::string> ids;
                      ids.reserve(members->size());
                      for (auto& m : *members)
                        ids.push_back(std::move(m.user_id));
                      done(std::move(ids));
                    });
}

}  // namespace ringcast
