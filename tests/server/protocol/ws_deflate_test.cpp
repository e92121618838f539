// permessage-deflate (server/protocol/ws_deflate, RFC 7692): the negotiation cases, the frames
// ringcast sends (inflated by zlib on its own, they are the plain payload), and the reader's
// compressed client messages, a decompression bomb among them.
#include "protocol/ws_deflate.hpp"

#include <zlib.h>

#include <string>

#include <gtest/gtest.h>

#include "protocol/gzip_stream.hpp"
#include "protocol/ws_codec.hpp"

namespace ringcast::ws {
namespace {

using namespace std::string_literals;

const std::string accepted =
    "permessage-deflate; server_no_context_takeover; client_no_context_takeover";

TEST(DeflateNegotiation, PlainOfferIsAnsweredWithNoContextTakeover) {
  EXPECT_EQ(negotiate_deflate("permessage-deflate"), accepted);
  EXPECT_EQ(negotiate_deflate("  permessage-deflate  "), accepted);
}

TEST(DeflateNegotiation, ClientMaxWindowBitsWithOrWithoutAValue) {
  // What browsers send.
  EXPECT_EQ(negotiate_deflate("permessage-deflate; client_max_window_bits"), accepted);
  EXPECT_EQ(negotiate_deflate("permessage-deflate; client_max_window_bits=10"), accepted);
  EXPECT_EQ(negotiate_deflate("permessage-deflate; client_max_window_bits=\"12\""), accepted);
  EXPECT_EQ(negotiate_deflate("permessage-deflate; client_max_window_bits=7"), std::nullopt);
  EXPECT_EQ(negotiate_deflate("permessage-deflate; client_max_window_bits=16"), std::nullopt);
  EXPECT_EQ(negotiate_deflate("permessage-deflate; client_max_window_bits=09"), std::nullopt);
}

TEST(DeflateNegotiation, NoContextTakeoverParametersAreAccepted) {
  EXPECT_EQ(negotiate_deflate("permessage-deflate; server_no_context_takeover; "
                              "client_no_context_takeover; client_max_window_bits"),
            accepted);
  // They take no value, and each comes at most once.
  EXPECT_EQ(negotiate_deflate("permessage-deflate; server_no_context_takeover=1"), std::nullopt);
  EXPECT_EQ(negotiate_deflate(
                "permessage-deflate; client_no_context_takeover; client_no_context_takeover"),
            std::nullopt);
}

TEST(DeflateNegotiation, ServerMaxWindowBitsUnder15IsRefused) {
  EXPECT_EQ(negotiate_deflate("permessage-deflate; server_max_window_bits=15"),
            accepted + "; server_max_window_bits=15");
  EXPECT_EQ(negotiate_deflate("permessage-deflate; server_max_window_bits=10"), std::nullopt);
  EXPECT_EQ(negotiate_deflate("permessage-deflate; server_max_window_bits"), std::nullopt);
}

TEST(DeflateNegotiation, UnknownParametersAndExtensionsAreRefused) {
  EXPECT_EQ(negotiate_deflate("permessage-deflate; mystery"), std::nullopt);
  EXPECT_EQ(negotiate_deflate("x-webkit-deflate-frame"), std::nullopt);
  EXPECT_EQ(negotiate_deflate(""), std::nullopt);
}

TEST(DeflateNegotiation, TheFirstOfferThatCanBeHonouredIsTaken) {
  // RFC 7692 section 5: offers in the client's order of preference.
  EXPECT_EQ(negotiate_deflate("permessage-deflate; server_max_window_bits=10, "
                              "permessage-deflate; client_max_window_bits"),
            accepted);
  EXPECT_EQ(negotiate_deflate("foo, permessage-deflate"), accepted);
}

// Inflates as a peer does (RFC 7692 section 7.2.2): raw inflate with 00 00 ff ff appended.
std::string zlib_inflate(std::string_view compressed) {
  z_stream z{};
  inflateInit2(&z, -MAX_WBITS);
  std::string in(compressed);
  in += "\0\0\xff\xff"s;
  std::string out(1 << 20, '\0');
  z.next_in = reinterpret_cast<Bytef*>(in.data());
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = inflate(&z, Z_SYNC_FLUSH);
  EXPECT_TRUE(rc == Z_OK || rc == Z_STREAM_END) << rc;
  out.resize(out.size() - z.avail_out);
  inflateEnd(&z);
  return out;
}

std::string catalog(std::size_t size) {
  std::string s = R"({"type":"message","data":[)";
  for (int i = 0; s.size() < size; ++i)
    s += R"({"sku":"A)" + std::to_string(1000 + i) + R"(","price":19.99,"url":"/p/)" +
         std::to_string(i) + R"("},)";
  s += "{}]}";
  return s;
}

TEST(DeflateFrames, AMessageInflatesToItsPayloadWithoutTheEmptyBlock) {
  for (const std::size_t size : {1, 130, 400, 2200, 70'000}) {
    const std::string plain = catalog(size);
    const std::string compressed = deflate_message(plain);
    ASSERT_GE(compressed.size(), 4u);
    EXPECT_NE(compressed.substr(compressed.size() - 4), "\0\0\xff\xff"s);
    EXPECT_EQ(zlib_inflate(compressed), plain);
  }
  // Deflating again gives the same bytes: no context is carried from one message to the next.
  EXPECT_EQ(deflate_message(catalog(400)), deflate_message(catalog(400)));
}

TEST(DeflateFrames, FrameHasRsv1AndTheShortestLength) {
  const std::string compressed = deflate_message(catalog(2200));
  const std::string frame = compressed_text_frame(compressed);
  EXPECT_EQ(static_cast<std::uint8_t>(frame[0]), 0xc1);  // FIN, RSV1, text
  const std::string plain_header(text_frame_header(compressed.size()).view());
  EXPECT_EQ(frame.substr(1, plain_header.size() - 1), plain_header.substr(1));
  EXPECT_EQ(frame.substr(plain_header.size()), compressed);
}

// A masked client frame.
std::string client_frame(std::uint8_t first, std::string_view payload) {
  const char key[4] = {0x11, 0x22, 0x33, 0x44};
  std::string f(1, static_cast<char>(first));
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

event read_all(reader& r, std::string_view bytes) {
  event e = r.next(bytes);
  return e;
}

TEST(DeflateReader, CompressedClientMessagesAreInflated) {
  reader r(4096, 32);
  r.accept_compressed();
  const std::string text = R"({"type":"ack","id":42})";
  event e = read_all(r, client_frame(0xc1, deflate_message(text)));
  ASSERT_EQ(e.type, event_type::text);
  EXPECT_EQ(e.message, text);
  // The next message is plain: RSV1 says so per message.
  e = read_all(r, client_frame(0x81, text));
  ASSERT_EQ(e.type, event_type::text);
  EXPECT_EQ(e.message, text);
}

TEST(DeflateReader, FragmentedCompressedMessage) {
  reader r(4096, 32);
  r.accept_compressed();
  const std::string text = catalog(1000);
  const std::string c = deflate_message(text);
  const std::string bytes = client_frame(0x41, c.substr(0, 10)) + client_frame(0x80, c.substr(10));
  std::string_view in = bytes;
  EXPECT_EQ(r.next(in).type, event_type::fragment);
  event e = r.next(in);
  ASSERT_EQ(e.type, event_type::text);
  EXPECT_EQ(e.message, text);
}

TEST(DeflateReader, Rsv1IsRefusedWhenNotNegotiatedOrOnAContinuation) {
  reader plain(4096, 32);
  EXPECT_EQ(read_all(plain, client_frame(0xc1, deflate_message("hi"))).why, error::reserved_bits);
  reader r(4096, 32);
  r.accept_compressed();
  const std::string bytes = client_frame(0x01, "hel") + client_frame(0xc0, "lo");
  std::string_view in = bytes;
  EXPECT_EQ(r.next(in).type, event_type::fragment);
  event e = r.next(in);
  EXPECT_EQ(e.type, event_type::failed);
  EXPECT_EQ(e.why, error::reserved_bits);
  reader r2(4096, 32);
  r2.accept_compressed();
  EXPECT_EQ(read_all(r2, client_frame(0xc9, "")).why, error::reserved_bits);  // a ping
}

TEST(DeflateReader, DecompressionBombIsClosed1009) {
  reader r(4096, 32);
  r.accept_compressed();
  const std::string bomb = deflate_message(std::string(3'000'000, 'a'));
  ASSERT_LT(bomb.size(), 4096u);  // small on the wire
  const event e = read_all(r, client_frame(0xc1, bomb));
  ASSERT_EQ(e.type, event_type::failed);
  EXPECT_EQ(e.why, error::message_too_big);
  EXPECT_EQ(e.code, too_big);
  // At the limit exactly, it is read.
  reader ok(4096, 32);
  ok.accept_compressed();
  const event at = read_all(ok, client_frame(0xc1, deflate_message(std::string(4096, 'a'))));
  ASSERT_EQ(at.type, event_type::text);
  EXPECT_EQ(at.message.size(), 4096u);
}

TEST(DeflateReader, CorruptOrNonUtf8InflatedTextIsRefused) {
  reader r(4096, 32);
  r.accept_compressed();
  const event bad = read_all(r, client_frame(0xc1, "\xff\xff\xff\xff"));
  ASSERT_EQ(bad.type, event_type::failed);
  EXPECT_EQ(bad.why, error::bad_compression);
  EXPECT_EQ(bad.code, protocol_error);
  reader r2(4096, 32);
  r2.accept_compressed();
  const event latin1 = read_all(r2, client_frame(0xc1, deflate_message("caf\xe9")));
  ASSERT_EQ(latin1.type, event_type::failed);
  EXPECT_EQ(latin1.code, bad_payload);
}

TEST(DeflateReader, InflateStopsAtTheLimit) {
  std::string out;
  EXPECT_EQ(inflate_message(deflate_message(std::string(100'000, 'x')), 5000, out),
            inflate_result::over_limit);
  EXPECT_LE(out.size(), 5000u);
}

TEST(GzipStream, AcceptEncoding) {
  EXPECT_TRUE(gzip::accepted("gzip"));
  EXPECT_TRUE(gzip::accepted("gzip, deflate, br"));
  EXPECT_TRUE(gzip::accepted("br;q=1.0, GZIP;q=0.5"));
  EXPECT_TRUE(gzip::accepted("x-gzip"));
  EXPECT_FALSE(gzip::accepted("gzip;q=0"));
  EXPECT_FALSE(gzip::accepted("gzip; q=0.000, deflate"));
  EXPECT_FALSE(gzip::accepted("identity"));
  EXPECT_FALSE(gzip::accepted("gzipped"));
  EXPECT_FALSE(gzip::accepted(""));
}

// A gzip reader over the stream so far: everything the pieces hold, without waiting for an end.
std::string gunzip(std::string_view stream) {
  z_stream z{};
  inflateInit2(&z, 16 + MAX_WBITS);
  std::string out(1 << 20, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(stream.data()));
  z.avail_in = static_cast<uInt>(stream.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = inflate(&z, Z_SYNC_FLUSH);
  EXPECT_EQ(rc, Z_OK);
  EXPECT_EQ(z.avail_in, 0u);
  out.resize(out.size() - z.avail_out);
  inflateEnd(&z);
  return out;
}

TEST(GzipStream, PiecesSpliceInAnyOrderAndEachIsComplete) {
  const std::string a = "event: hello\ndata: {}\n\n",
                    b = "id: 7\nevent: message\ndata: " + catalog(2000) + "\n\n", hb = ": hb\n\n";
  EXPECT_EQ(gzip::piece(b), gzip::piece(b));  // the same bytes for every subscriber
  const std::string stream = std::string(gzip::header()) + gzip::piece(a) + gzip::piece(b);
  EXPECT_EQ(gunzip(stream), a + b);
  EXPECT_EQ(gunzip(stream + gzip::piece(hb) + gzip::piece(b)), a + b + hb + b);
  EXPECT_LT(gzip::piece(b).size(), b.size() / 2);
}

// The whole member `gz` inflated with its end, CRC-32 and size checked by zlib.
std::string gunzip_finished(std::string_view gz, std::size_t capacity) {
  z_stream z{};
  inflateInit2(&z, 16 + MAX_WBITS);
  std::string out(capacity, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
  EXPECT_EQ(z.avail_in, 0u);
  out.resize(out.size() - z.avail_out);
  inflateEnd(&z);
  return out;
}

TEST(GzipStream, SplicedPiecesAreOneFinishedMemberWithTheirCombinedCrc) {
  const std::string head = R"({"type":"messages","messages":[)", a = catalog(2000),
                    b = catalog(700), tail = R"(],"last_id":9})";
  const auto ph = gzip::measure(head), pa = gzip::measure(a), pb = gzip::measure(b),
             pt = gzip::measure(tail);
  const std::vector<const gzip::measured_piece*> pieces{&ph, &pa, &pb, &pa, &pt};
  std::string gz(gzip::header());
  for (const auto* p : pieces)
    gz += p->deflated;
  gz += gzip::member_end(pieces);
  EXPECT_EQ(gunzip_finished(gz, 16'384), head + a + b + a + tail);
  EXPECT_EQ(gunzip_finished(std::string(gzip::header()) + gzip::member_end({}), 16), "");
}

TEST(GzipStream, WholeBodyIsAFinishedGzipMember) {
  const std::string body = R"({"type":"messages","messages":[)" + catalog(2000) + "]}";
  const std::string gz = gzip::whole(body);
  z_stream z{};
  inflateInit2(&z, 16 + MAX_WBITS);
  std::string out(body.size() + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);  // with its CRC-32 and size checked
  out.resize(out.size() - z.avail_out);
  inflateEnd(&z);
  EXPECT_EQ(out, body);
  EXPECT_EQ(gzip::whole(body), gz);
}

}  // namespace
}  // namespace ringcast::ws
