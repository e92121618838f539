#include "protocol/ws_deflate.hpp"

#include <zlib.h>

#include <memory>
#include <utility>
#include <vector>

#include "protocol/deflater.hpp"
#include "protocol/header_list.hpp"

namespace ringcast::ws {
namespace {

// A window size parameter's value: 8 to 15 (RFC 7692 section 7.1.2), quoted or not.
std::optional<int> window_bits(std::string_view value) {
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"')
    value = value.substr(1, value.size() - 2);
  if (value.empty() || value.size() > 2) return std::nullopt;
  int bits = 0;
  for (const char c : value) {
    if (c < '0' || c > '9') return std::nullopt;
    bits = bits * 10 + (c - '0');
  }
  if (value.size() == 2 && value.front() == '0') return std::nullopt;
  if (bits < 8 || bits > 15) return std::nullopt;
  return bits;
}

// One offer's parameters; the answer if ringcast can honour it.
std::optional<std::string> answer_offer(const std::vector<std::string_view>& params) {
  bool server_nct = false, client_nct = false, server_bits = false, client_bits = false;
  for (std::size_t i = 1; i < params.size(); ++i) {
    const auto eq = params[i].find('=');
    const std::string_view name = trim_ows(params[i].substr(0, eq));
    const std::optional<std::string_view> value =
        eq == std::string_view::npos
            ? std::nullopt
            : std::optional<std::string_view>(trim_ows(params[i].substr(eq + 1)));
    const auto once = [](bool& seen) { return !std::exchange(seen, true); };
    if (name == "server_no_context_takeover" || name == "client_no_context_takeover") {
      if (value || !once(name.front() == 's' ? server_nct : client_nct)) return std::nullopt;
    } else if (name == "server_max_window_bits") {
      // We deflate once with a 32 KiB window for every recipient: a smaller one cannot be met.
      if (!value || !once(server_bits)) return std::nullopt;
      const auto bits = window_bits(*value);
      if (!bits || *bits < 15) return std::nullopt;
    } else if (name == "client_max_window_bits") {
      // The client may use a smaller window; our inflater's 32 KiB one reads any.
      if (!once(client_bits) || (value && !window_bits(*value))) return std::nullopt;
    } else {
      return std::nullopt;
    }
  }
  std::string answer = "permessage-deflate; server_no_context_takeover; client_no_context_takeover";
  if (server_bits) answer += "; server_max_window_bits=15";
  return answer;
}

struct inflater {
  z_stream z{};
  inflater() { inflateInit2(&z, -MAX_WBITS); }
  ~inflater() { inflateEnd(&z); }
};

}  // namespace

std::optional<std::string> negotiate_deflate(std::string_view offers) {
  for (const std::string_view offer : split_trimmed(offers, ',')) {
    const auto params = split_trimmed(offer, ';');
    if (params.front() != "permessage-deflate") continue;
    if (auto answer = answer_offer(params)) return answer;
  }
  return std::nullopt;
}

std::string deflate_message(std::string_view payload) {
  std::string out = zlib::deflate_fresh(payload, zlib::framing::raw, zlib::ending::sync);
  // A sync flush ends with an empty stored block, 00 00 ff ff: the receiver puts it back.
  if (out.size() >= 4 && out.compare(out.size() - 4, 4, std::string_view("\0\0\xff\xff", 4)) == 0)
    out.resize(out.size() - 4);
  return out;
}

inflate_result inflate_message(std::string_view compressed, std::size_t limit, std::string& out) {
  thread_local std::unique_ptr<inflater> i;
  if (!i) i = std::make_unique<inflater>();
  inflateReset(&i->z);
  static const char tail[4] = {0, 0, '\xff', '\xff'};
  out.clear();
  char chunk[4096];
  for (const std::string_view in : {compressed, std::string_view(tail, 4)}) {
    i->z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    i->z.avail_in = static_cast<uInt>(in.size());
    do {
      i->z.next_out = reinterpret_cast<Bytef*>(chunk);
      i->z.avail_out = sizeof chunk;
      const int rc = inflate(&i->z, Z_SYNC_FLUSH);
      const std::size_t got = sizeof chunk - i->z.avail_out;
      if (out.size() + got > limit) return inflate_result::over_limit;
      out.append(chunk, got);
      if (rc == Z_STREAM_END) return inflate_result::ok;  // a final block: the rest is ignored
      if (rc == Z_BUF_ERROR) break;                       // no progress: this input is used up
      if (rc != Z_OK) return inflate_result::corrupt;
    } while (i->z.avail_in > 0 || i->z.avail_out == 0);
  }
  return inflate_result::ok;
}

}  // namespace ringcast::ws
