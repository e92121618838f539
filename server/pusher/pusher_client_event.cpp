#include "pusher/pusher_client_event.hpp"

#include <fmt/format.h>

#include "pusher/pusher_names.hpp"

namespace ringcast::pusher {

std::optional<frame_refusal> check_client_event(const app& app, const client_event_frame& event,
                                                bool subscribed) {
  auto refuse = [&event](std::string_view why) {
    return frame_refusal{std::nullopt, fmt::format("client event '{}' on '{}' refused: {}",
                                                   event.event, event.channel, why)};
  };
  if (!app.client_events) return refuse("client events are off (--pusher-client-events)");
  const auto name = check_channel_name(event.channel);
  if (!name) return refuse(name.error);
  switch (name.value->kind) {
    case channel_kind::public_:
      return refuse("client events are only supported on private and presence channels");
    case channel_kind::private_encrypted:
      return refuse("client events are not supported on private-encrypted- channels");
    case channel_kind::private_:
    case channel_kind::presence:
      break;
  }
  if (!subscribed) return refuse("not subscribed to the channel");
  return std::nullopt;
}

}  // namespace ringcast::pusher
