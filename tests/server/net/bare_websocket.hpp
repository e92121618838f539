// A WebSocket client by hand on a bare loopback descriptor, for the connection tests that must see
// the server's bytes as they come (the 101 and the hello in one segment) or must allocate nothing
// on the client side (idle_memory_test counts the process's heap): the upgrade request, bounded
// reads, and small frames. Blocking Asio sockets (test_loop::connect) read through their
// native_handle().
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

namespace ringcast::test {

// RFC 6455's example key and the accept it yields (section 1.3).
inline constexpr std::string_view sample_key = "dGhlIHNhbXBsZSBub25jZQ==";
inline constexpr std::string_view sample_accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

// The upgrade request for `target`, with the sample key.
std::string upgrade_request(std::string_view target);

// Blocking reads wait forever; a test that expects bytes waits at most 5 s for them, so a server
// that stays silent fails the test instead of hanging it.
bool readable_within_5s(int fd);

// Reads until `enough` holds of what was read, the peer closes, or 5 s pass without a byte;
// returns what was read.
std::string read_until(int fd, const std::function<bool(const std::string&)>& enough);
// Reads until `text` has arrived (or as above).
std::string read_until(int fd, std::string_view text);

// A new connection to 127.0.0.1:`port` that sent `request` and read until `opened` held of what
// arrived; the descriptor, or -1 (closed) if it never did.
int open_connection(std::uint16_t port, std::string_view request,
                    const std::function<bool(const std::string&)>& opened);

// A WebSocket upgraded on a new connection to 127.0.0.1:`port` at `target`, read up to a frame
// ending in '}' after `first_frame` arrived; the descriptor, or -1.
int open_websocket(std::uint16_t port, std::string_view target, std::string_view first_frame);

// A client frame (masked with a zero key, so the payload reads as sent), under 126 bytes.
std::string client_frame(std::uint8_t first_byte, std::string_view payload);
inline constexpr std::uint8_t text_start = 0x01, continuation_end = 0x80, text_whole = 0x81;

// The next server frame (unmasked, under 126 bytes): its opcode byte and payload; {0, ""} if
// none came within 5 s or the connection closed.
std::pair<std::uint8_t, std::string> next_frame(int fd);

}  // namespace ringcast::test
