// A published message as the Pusher door sends it (docs/pusher.md, "One hub, two doors"): a
// channel message becomes one Pusher event frame, built once per node, lazily, by the first loop
// whose Pusher connection needs it, and shared by every Pusher recipient as the plain bytes are.
#pragma once

#include <string>
#include <string_view>

#include "core/message.hpp"

namespace ringcast {

// Whether a Pusher connection with this socket id is sent `m`: a message on a channel (a
// broadcast, a message to users and an `expired` notice are ringcast's own), not excluded by its
// except_socket.
bool pusher_receives(const message& m, std::string_view socket_id);

// {"event":E,"channel":C,"data":D[,"user_id":U]}: E the message's event (default_pusher_event
// when it has none), C its channel, D its data as a JSON string (a string's text as is, any other
// value's JSON text, so pusher-js parses an object back), U a client event's sender on a presence
// channel. Only for a message pusher_receives() would send.
std::string_view pusher_event_frame(const message& m);
// The WebSocket text frame of it (header and payload), shared the same way.
const std::string& pusher_ws_frame(const message& m);

}  // namespace ringcast
