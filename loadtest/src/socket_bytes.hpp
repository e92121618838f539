// What the kernel says a TCP socket received: the bytes on the wire (after TLS and WebSocket
// framing, compressed or not), not the payloads the client read from them.
#pragma once

#include <cstdint>
#include <optional>

namespace ringcast::load {

// tcpi_bytes_received of the connected socket `fd` (Linux 4.1 and later); nullopt when the kernel
// does not tell.
std::optional<std::uint64_t> socket_bytes_received(int fd);

}  // namespace ringcast::load
