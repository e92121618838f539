// How a client is connected: the one name of ws/sse/poll, from the connect's route to the
// session and the hooks. Its names are the wire's ("transport" of a hook event, a connect
// question, a scheduled publish's target).
#pragma once

#include <cstdint>
#include <string_view>

namespace ringcast {

enum class transport : std::uint8_t { ws, sse, poll };

constexpr std::string_view name_of(transport t) {
  switch (t) {
    case transport::ws:
      return "ws";
    case transport::sse:
      return "sse";
    case transport::poll:
      return "poll";
  }
  return "unknown";
}

}  // namespace ringcast
