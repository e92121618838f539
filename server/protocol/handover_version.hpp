// The version of the state an upgrading process hands to its new binary (docs/operations.md,
// "Upgrading"). `ringcast --version` prints it, so the old process execs only a binary that reads
// what it writes; a change to the state's layout bumps it.
//   1  listeners, WebSocket and SSE streams, the node's state
//   2  plus the HTTP connections between requests and the held long-polls, and the Redis node id
//   3  a stream's queued messages by reference into one table of the state (each message once),
//      only its partly written frame as bytes
//   4  the node's state in its format 2 (a session's record first); each record written whole in
//      declaration order (a queued frame's text and a table message's bytes even when empty)
//   5  the node's state in its format 3 (a scheduled promotion's record after its slot and timer)
//   6  the node's state in its format 4 (a message's Pusher event name, excluded socket, sender)
//   7  a listening socket per event loop of the old process (one SO_REUSEPORT group), where 6
//      held exactly one: a binary of format 6 would refuse the state and exit
#pragma once

#include <cstdint>

namespace ringcast {

inline constexpr std::uint32_t handover_format = 7;

}  // namespace ringcast
