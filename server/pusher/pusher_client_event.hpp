// Whether a client-* event may be relayed (docs/pusher.md, "Frames"): only when the app allows
// client events, on a private or presence channel (never private-encrypted-, whose data the server
// cannot vouch for), and by a subscriber of that channel. The rate limit (Pusher's 10 a second) is
// counted by the connection, not here.
#pragma once

#include <optional>

#include "pusher/pusher_app.hpp"
#include "pusher/pusher_client_frame.hpp"

namespace ringcast::pusher {

// Nothing when allowed, else the pusher:error (code null) for the sender.
std::optional<frame_refusal> check_client_event(const app& app, const client_event_frame& event,
                                                bool subscribed);

}  // namespace ringcast::pusher
