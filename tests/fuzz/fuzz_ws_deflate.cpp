// permessage-deflate (server/protocol/ws_deflate) against zlib as the oracle, both ways:
// - the input as a payload: ringcast's compressed frame, inflated by zlib as a peer does (RFC 7692
//   section 7.2.2, 00 00 ff ff appended), is the payload again, and the frame is the codec's
//   header with RSV1 set;
// - the input as a client's compressed message (first byte: a limit selector, the rest the
//   compressed bytes): the reader, with the extension negotiated, gives exactly what zlib inflates
//   when that is within the limit and valid UTF-8 text, fails with 1009 when zlib's output is
//   over the limit, and never gives more than the limit.
// - Beast's permessage-deflate (server role, no context takeover both ways) as a second oracle:
//   it reads ringcast's compressed bytes (sent as a masked client frame) as the payload, and the
//   frame Beast compresses the payload into, re-masked as a client frame, is read by ringcast's
//   reader as the payload.
#include <zlib.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/_experimental/test/stream.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "fuzz_check.hpp"
#include "protocol/ws_codec.hpp"
#include "protocol/ws_deflate.hpp"

namespace {

namespace ws = ringcast::ws;

// What zlib makes of `compressed` (tail appended): the bytes up to `cap` + 1, and whether the
// data was valid up to there.
struct zlib_result {
  std::string out;
  bool ok = true;
};

zlib_result zlib_inflate(std::string_view compressed, std::size_t cap) {
  zlib_result r;
  z_stream z{};
  inflateInit2(&z, -MAX_WBITS);
  std::string in(compressed);
  in.append("\0\0\xff\xff", 4);
  r.out.resize(cap + 1);
  z.next_in = reinterpret_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(r.out.data());
  z.avail_out = static_cast<uInt>(r.out.size());
  int rc = Z_OK;
  while (rc == Z_OK && z.avail_in > 0 && z.avail_out > 0)
    rc = inflate(&z, Z_SYNC_FLUSH);
  r.ok = rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR;
  r.out.resize(r.out.size() - z.avail_out);
  inflateEnd(&z);
  return r;
}

std::string client_frame(std::string_view payload) {
  std::string f(1, static_cast<char>(0xc1));  // FIN, RSV1, text
  const char key[4] = {0x5a, 0x13, 0x7e, 0x21};
  if (payload.size() < 126) {
    f += static_cast<char>(0x80 | payload.size());
  } else {
    f += static_cast<char>(0x80 | 126);
    f += static_cast<char>(payload.size() >> 8);
    f += static_cast<char>(payload.size() & 0xff);
  }
  f.append(key, 4);
  for (std::size_t i = 0; i < payload.size(); ++i)
    f += static_cast<char>(payload[i] ^ key[i % 4]);
  return f;
}

bool utf8(std::string_view s) {
  // The reader's own check is the subject elsewhere (fuzz_ws_codec); here a plain reader of the
  // same bytes, uncompressed, is the judge.
  ws::reader plain(1 << 20, 1);
  std::string frame(1, static_cast<char>(0x81));
  const std::string masked = client_frame(s);
  frame += masked.substr(1);
  std::string_view in = frame;
  return plain.next(in).type == ws::event_type::text;
}

namespace beast = boost::beast;
namespace websocket = beast::websocket;

// A Beast server stream with permessage-deflate negotiated, over an in-memory stream.
struct beast_peer {
  boost::asio::io_context io;
  beast::test::stream client{io};
  websocket::stream<beast::test::stream> server{io};

  beast_peer() {
    server.next_layer().connect(client);
    websocket::permessage_deflate pmd;
    pmd.server_enable = true;
    pmd.server_no_context_takeover = true;
    pmd.client_no_context_takeover = true;
    server.set_option(pmd);
    server.read_message_max(1 << 20);
    server.auto_fragment(false);
    server.next_layer().append(
        "GET /ws HTTP/1.1\r\nHost: fuzz\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Extensions: permessage-deflate; client_no_context_takeover; "
        "server_no_context_takeover\r\n\r\n");
    bool accepted = false;
    server.async_accept([&accepted](boost::system::error_code ec) { accepted = !ec; });
    io.poll();
    FUZZ_CHECK(accepted);
    FUZZ_CHECK(std::string(client.str()).find("permessage-deflate") != std::string::npos);
    client.clear();
  }

  // Beast reads `frame` (a client frame); the message, or nothing on failure.
  std::optional<std::string> read(std::string_view frame) {
    beast::flat_buffer buffer;
    std::optional<std::string> got;
    server.async_read(buffer, [&](boost::system::error_code ec, std::size_t) {
      if (!ec) got = beast::buffers_to_string(buffer.data());
    });
    boost::asio::write(client, boost::asio::buffer(frame.data(), frame.size()));
    io.restart();
    io.poll();
    return got;
  }

  // What Beast writes for `payload` as a text message: one frame.
  std::string write(std::string_view payload) {
    server.text(true);
    boost::system::error_code ec;
    server.write(boost::asio::buffer(payload.data(), payload.size()), ec);
    FUZZ_CHECK(!ec);
    std::string out(client.str());
    client.clear();
    return out;
  }
};

// A server frame's first byte and payload (unmasked, one frame).
std::pair<std::uint8_t, std::string_view> server_frame(std::string_view f) {
  std::size_t len = static_cast<std::uint8_t>(f[1]) & 0x7f, at = 2;
  if (len == 126) {
    len = static_cast<std::uint8_t>(f[2]) << 8 | static_cast<std::uint8_t>(f[3]);
    at = 4;
  } else if (len == 127) {
    len = 0;
    for (int i = 0; i < 8; ++i)
      len = len << 8 | static_cast<std::uint8_t>(f[2 + i]);
    at = 10;
  }
  FUZZ_CHECK(f.size() == at + len);
  return {static_cast<std::uint8_t>(f[0]), f.substr(at)};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  if (input.size() > 60000) return 0;

  // Server to client.
  const std::string compressed = ws::deflate_message(input);
  const zlib_result back = zlib_inflate(compressed, input.size());
  FUZZ_CHECK(back.ok);
  FUZZ_CHECK(back.out == input);
  const std::string frame = ws::compressed_text_frame(compressed);
  const ws::frame_header plain = ws::text_frame_header(compressed.size());
  FUZZ_CHECK(static_cast<std::uint8_t>(frame[0]) == 0xc1);
  FUZZ_CHECK(frame.substr(1, plain.size - 1) == plain.view().substr(1));
  FUZZ_CHECK(frame.substr(plain.size) == compressed);

  // Beast, both ways (text only: it checks UTF-8).
  if (utf8(input) && input.size() < 16000) {
    beast_peer beast_side;
    FUZZ_CHECK(beast_side.read(client_frame(compressed)) == std::string(input));
    const std::string written = beast_side.write(input);
    const auto [first, payload] = server_frame(written);
    ws::reader reader(1 << 20, 1);
    reader.accept_compressed();
    std::string wire = client_frame(payload);
    wire[0] = static_cast<char>(first);  // Beast's FIN, RSV1 (when it compressed), opcode
    std::string_view in = wire;
    const ws::event e = reader.next(in);
    FUZZ_CHECK(e.type == ws::event_type::text);
    FUZZ_CHECK(e.message == input);
  }

  // Client to server.
  if (input.empty() || input.size() - 1 > 4096) return 0;
  const std::uint32_t limit = 1 + static_cast<std::uint8_t>(input[0]) * 16;
  const std::string_view body = input.substr(1);
  ws::reader reader(limit, 1);
  reader.accept_compressed();
  const std::string wire = client_frame(body);
  std::string_view in = wire;
  const ws::event e = reader.next(in);
  const zlib_result oracle = zlib_inflate(body, limit);
  if (e.type == ws::event_type::text) {
    FUZZ_CHECK(e.message.size() <= limit);
    FUZZ_CHECK(oracle.out == e.message);
    FUZZ_CHECK(utf8(e.message));
  } else if (body.size() <= limit + limit / 64 + 64) {
    FUZZ_CHECK(e.type == ws::event_type::failed);
    if (oracle.out.size() > limit && oracle.ok) {
      // Over the limit (a bomb): 1009, unless the data broke before the limit was reached.
      FUZZ_CHECK(e.code == ws::too_big || e.code == ws::protocol_error);
    } else if (oracle.ok && oracle.out.size() <= limit) {
      FUZZ_CHECK(e.code == ws::bad_payload && !utf8(oracle.out));
    }
  }
  return 0;
}
