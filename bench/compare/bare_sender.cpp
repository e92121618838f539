// ringcast-bare-sender: the physical floor of a broadcast, the third row of bench/compare
// (docs/performance.md, section 2).
//
// One thread, one epoll set, plain POSIX sockets. It speaks just enough of ringcast's protocol
// (docs/protocol.md) for `ringcast-load --server-kind ringcast --mix ws` to run against it
// unmodified:
//   GET /ws?user=U&sid=S        the WebSocket upgrade, then a `hello` envelope ({"type":"hello",
//                               "session":"U/S","last_id":…}); client frames are read and dropped,
//                               except close (answered, then closed), ping (pong) and the JSON
//                               {"type":"ping"} (answered {"type":"pong"});
//   POST /admin/publish         {"data":…} (broadcast only) → {"id":N,"recipients":K}, after the
//                               sends; ids start at the Unix time in µs, as ringcast's do;
//                               with "spread" (a duration: "30s", "500ms"), each connection at
//                               its turn instead (below);
//   GET /admin/stats            the counters the load tool reads; GET /healthz → 200 ok.
// There is no history, resume, heartbeat or idle expiry: nothing runs between publishes.
//
// Why it is the floor: a publish serializes ringcast's `message` envelope once
// ({"type":"message","id":N,"channel":"*","ts":…,"data":…}, the same bytes per delivery), wraps it
// in one unmasked text frame, and then does nothing per recipient but one send() of that frame:
// no queue, no per-recipient allocation, no executor, no timer. A socket whose buffer is full
// keeps the unsent rest and finishes on EPOLLOUT (counted; it does not happen to idle clients
// that read). An idle connection costs the kernel's socket and one small slot in a vector. What a
// real server spends above this per delivery or per connection is its own overhead; what this
// spends is the kernel's (on loopback the sender also runs the receiver's TCP input path).
//
// The paced floor (docs/performance.md, section 9; paced_turns.hpp): a publish with a spread
// sends each connection its frame at the first tick (--tick-ms, 100 as ringcast's default) at or
// after its turn, one send() per turn, with the wake-ups ringcast's loop needs at those ticks.
//
//   ringcast-bare-sender [--listen 127.0.0.1:0] [--admin-token T] [--tick-ms 100]
//                        (the token else from RINGCAST_ADMIN_TOKEN)
// Prints "listening on 127.0.0.1:PORT with 1 thread(s)" on stderr; exits 0 on SIGTERM/SIGINT.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <fmt/format.h>
#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "paced_turns.hpp"
#include "protocol/duration.hpp"

namespace {

namespace json = boost::json;

constexpr std::size_t max_request = 64 * 1024;      // request line, headers and body
constexpr std::size_t max_client_frame = 4 * 1024;  // as ringcast: larger → close 1009

std::int64_t unix_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// An unmasked, final server frame carrying `payload` (RFC 6455 §5.2).
std::string frame(std::uint8_t opcode, std::string_view payload) {
  std::string f;
  f.reserve(payload.size() + 10);
  f += static_cast<char>(0x80 | opcode);
  const std::uint64_t n = payload.size();
  if (n < 126) {
    f += static_cast<char>(n);
  } else if (n <= 0xffff) {
    f += static_cast<char>(126);
    for (int shift = 8; shift >= 0; shift -= 8)
      f += static_cast<char>((n >> shift) & 0xff);
  } else {
    f += static_cast<char>(127);
    for (int shift = 56; shift >= 0; shift -= 8)
      f += static_cast<char>((n >> shift) & 0xff);
  }
  f += payload;
  return f;
}

// base64(SHA-1(key + GUID)), RFC 6455 §4.2.2.
std::string websocket_accept(std::string_view key) {
  const std::string text = std::string(key) + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
  unsigned char out[4 * ((SHA_DIGEST_LENGTH + 2) / 3) + 1];
  const int n = EVP_EncodeBlock(out, digest, SHA_DIGEST_LENGTH);
  return std::string(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
}

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool icontains(std::string_view haystack, std::string_view needle) {
  for (std::size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    if (iequals(haystack.substr(i, needle.size()), needle)) return true;
  }
  return false;
}

// ringcast's identifier rule (docs/protocol.md, Sessions): it keeps the hello valid JSON.
bool valid_identifier(std::string_view s) {
  return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || std::strchr("_.:@-", c);
  });
}

struct request {
  std::string_view method, path, query, body;
  std::string_view authorization, upgrade, websocket_key;
  bool keep_alive = true;
};

// The value of `name` in a query string (no percent-decoding: identifiers need none).
std::string_view query_param(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    const auto amp = query.find('&');
    const auto pair = query.substr(0, amp);
    const auto eq = pair.find('=');
    if (pair.substr(0, eq) == name) return eq == std::string_view::npos ? "" : pair.substr(eq + 1);
    query = amp == std::string_view::npos ? "" : query.substr(amp + 1);
  }
  return {};
}

std::string http_response(int status, std::string_view reason, std::string_view type,
                          std::string_view body, bool keep_alive) {
  return fmt::format(
      "HTTP/1.1 {} {}\r\nServer: ringcast-bare-sender\r\nContent-Type: {}\r\n"
      "Content-Length: {}\r\nConnection: {}\r\n\r\n{}",
      status, reason, type, body.size(), keep_alive ? "keep-alive" : "close", body);
}

std::string json_error(int status, std::string_view reason, std::string_view code,
                       std::string_view message, bool keep_alive) {
  return http_response(
      status, reason, "application/json",
      fmt::format(R"({{"error":"{}","message":{}}})", code, json::serialize(json::string(message))),
      keep_alive);
}

class bare_sender {
 public:
  bare_sender(int listener, std::string token, std::chrono::milliseconds tick)
      : listener_(listener), token_(std::move(token)), paced_(tick) {
    epoll_ = epoll_create1(EPOLL_CLOEXEC);
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGTERM);
    sigaddset(&signals, SIGINT);
    sigprocmask(SIG_BLOCK, &signals, nullptr);
    signals_ = signalfd(-1, &signals, SFD_NONBLOCK | SFD_CLOEXEC);
    watch(listener_, EPOLLIN, EPOLL_CTL_ADD);
    watch(signals_, EPOLLIN, EPOLL_CTL_ADD);
  }

  // Until SIGTERM or SIGINT.
  void run() {
    std::vector<epoll_event> events(1024);
    for (;;) {
      const int n = epoll_wait(epoll_, events.data(), static_cast<int>(events.size()),
                               paced_.timeout_ms(bare::steady::now()));
      if (n < 0 && errno != EINTR)
        throw std::runtime_error(fmt::format("epoll_wait: {}", std::strerror(errno)));
      if (paced_.walk_due(bare::steady::now())) walk_paced();
      for (int i = 0; i < n; ++i) {
        const int fd = events[i].data.fd;
        if (fd == signals_) return;
        if (fd == listener_) {
          accept_all();
          continue;
        }
        if (conns_[fd].st == state::free) continue;  // closed by an earlier event of this batch
        if (events[i].events & EPOLLOUT) flush(fd);
        if (conns_[fd].st != state::free && (events[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP)))
          readable(fd);
      }
    }
  }

  void summary() const {
    fmt::print(stderr,
               "bare sender: {} publishes, {} sends, {} partial (finished on EPOLLOUT), "
               "{} failed; {} WebSockets open\n",
               published_, sends_, partial_sends_, failed_sends_, websockets_.size());
  }

 private:
  enum class state : std::uint8_t { free, http, websocket };
  struct conn {
    state st = state::free;
    bool close_when_flushed = false;
    std::uint32_t slot = 0;    // index in websockets_
    std::uint64_t serial = 0;  // which accepted connection holds the descriptor
    std::uint64_t place = 0;   // its session's place on ringcast's pacing ring (WebSockets)
    std::string in;            // an incomplete request or client frame
    std::string out;           // what send() did not take yet
  };

  void watch(int fd, std::uint32_t events, int op) {
    epoll_event ev{};
    ev.events = events;
    ev.data.fd = fd;
    epoll_ctl(epoll_, op, fd, &ev);
  }

  void accept_all() {
    for (;;) {
      const int fd = accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;  // EAGAIN, or out of descriptors: the client sees the refusal
      const int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // as ringcast
      if (static_cast<std::size_t>(fd) >= conns_.size()) conns_.resize(fd + 1024);
      ++accepted_, ++open_;
      conns_[fd] = conn{state::http, false, 0, accepted_, 0, {}, {}};
      watch(fd, EPOLLIN, EPOLL_CTL_ADD);
    }
  }

  void close_conn(int fd) {
    auto& c = conns_[fd];
    if (c.st == state::websocket) {
      // Swap-remove from the broadcast list.
      const int last = websockets_.back();
      websockets_[c.slot] = last;
      conns_[last].slot = c.slot;
      websockets_.pop_back();
    }
    c = conn{};
    --open_;
    ::close(fd);
  }

  // Sends `bytes` after whatever is still queued; keeps what the socket does not take.
  // False when the connection is gone.
  bool deliver(int fd, std::string_view bytes) {
    auto& c = conns_[fd];
    if (!c.out.empty()) {
      c.out += bytes;
      return true;
    }
    const auto n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n == static_cast<ssize_t>(bytes.size())) return true;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return false;
    ++partial_sends_;
    c.out.assign(bytes.substr(n < 0 ? 0 : static_cast<std::size_t>(n)));
    watch(fd, EPOLLIN | EPOLLOUT, EPOLL_CTL_MOD);
    return true;
  }

  void flush(int fd) {
    auto& c = conns_[fd];
    while (!c.out.empty()) {
      const auto n = ::send(fd, c.out.data(), c.out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n < 0) return close_conn(fd);
      c.out.erase(0, static_cast<std::size_t>(n));
    }
    std::string{}.swap(c.out);
    if (c.close_when_flushed) return close_conn(fd);
    watch(fd, EPOLLIN, EPOLL_CTL_MOD);
  }

  void reply(int fd, const std::string& bytes, bool keep_alive) {
    if (!deliver(fd, bytes)) return close_conn(fd);
    if (keep_alive) return;
    if (conns_[fd].out.empty()) return close_conn(fd);
    conns_[fd].close_when_flushed = true;
  }

  void readable(int fd) {
    char buf[16 * 1024];
    const auto n = ::recv(fd, buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) return;
    if (n <= 0) return close_conn(fd);
    auto& c = conns_[fd];
    c.in.append(buf, static_cast<std::size_t>(n));
    if (c.st == state::http) return http_input(fd);
    websocket_input(fd);
  }

  // Every complete request in the buffer, in order (keep-alive and pipelining). Bytes after an
  // upgrade request are the first client frames.
  void http_input(int fd) {
    while (conns_[fd].st == state::http && !conns_[fd].close_when_flushed) {
      auto& c = conns_[fd];
      const auto end = c.in.find("\r\n\r\n");
      if (end == std::string::npos) {
        if (c.in.size() > max_request)
          reply(fd, json_error(431, "Request Header Fields Too Large", "too_large", "", false),
                false);
        return;
      }
      request req;
      std::size_t length = 0;
      if (!parse_head(std::string_view(c.in).substr(0, end + 2), req, length)) {
        return reply(fd, json_error(400, "Bad Request", "bad_request", "unparsable HTTP", false),
                     false);
      }
      if (length > max_request)
        return reply(fd, json_error(413, "Payload Too Large", "too_large", "", false), false);
      const std::size_t total = end + 4 + length;
      if (c.in.size() < total) return;  // the body is still coming
      req.body = std::string_view(c.in).substr(end + 4, length);
      handle(fd, req);  // may close the connection (its buffer is then empty) or upgrade it
      conns_[fd].in.erase(0, total);
    }
    if (conns_[fd].st == state::websocket) websocket_input(fd);
  }

  // Request line and headers; `head` ends with the last header's CRLF.
  static bool parse_head(std::string_view head, request& req, std::size_t& length) {
    auto line_end = head.find("\r\n");
    const auto line = head.substr(0, line_end);
    const auto sp1 = line.find(' '), sp2 = line.rfind(' ');
    if (sp1 == std::string_view::npos || sp2 == sp1) return false;
    req.method = line.substr(0, sp1);
    const auto target = line.substr(sp1 + 1, sp2 - sp1 - 1);
    const auto version = line.substr(sp2 + 1);
    const auto q = target.find('?');
    req.path = target.substr(0, q);
    req.query = q == std::string_view::npos ? "" : target.substr(q + 1);
    req.keep_alive = version == "HTTP/1.1";
    length = 0;
    for (auto rest = head.substr(line_end + 2); !rest.empty();) {
      line_end = rest.find("\r\n");
      const auto h = rest.substr(0, line_end);
      rest = rest.substr(line_end + 2);
      const auto colon = h.find(':');
      if (colon == std::string_view::npos) return false;
      const auto name = h.substr(0, colon);
      auto value = h.substr(colon + 1);
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove_prefix(1);
      while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
        value.remove_suffix(1);
      if (iequals(name, "content-length")) {
        if (std::from_chars(value.data(), value.data() + value.size(), length).ec != std::errc{})
          return false;
      } else if (iequals(name, "authorization")) {
        req.authorization = value;
      } else if (iequals(name, "upgrade")) {
        req.upgrade = value;
      } else if (iequals(name, "connection")) {
        if (icontains(value, "close")) req.keep_alive = false;
        if (icontains(value, "keep-alive")) req.keep_alive = true;
      } else if (iequals(name, "sec-websocket-key")) {
        req.websocket_key = value;
      }
    }
    return true;
  }

  bool authorized(const request& req) const {
    return !token_.empty() && req.authorization == "Bearer " + token_;
  }

  void handle(int fd, const request& req) {
    const bool ka = req.keep_alive;
    if (req.path == "/ws") {
      if (req.method != "GET" || !iequals(req.upgrade, "websocket") || req.websocket_key.empty())
        return reply(fd, json_error(426, "Upgrade Required", "bad_request", "use WebSocket", ka),
                     ka);
      return upgrade(fd, req);
    }
    if (req.path == "/healthz")
      return reply(fd, http_response(200, "OK", "text/plain", "ok", ka), ka);
    if (req.path != "/admin/publish" && req.path != "/admin/stats")
      return reply(fd, json_error(404, "Not Found", "not_found", "unknown path", ka), ka);
    if (!authorized(req))
      return reply(fd, json_error(401, "Unauthorized", "unauthorized", "admin token", ka), ka);
    if (req.path == "/admin/stats") return reply(fd, stats(ka), ka);
    if (req.method != "POST")
      return reply(fd, json_error(405, "Method Not Allowed", "method_not_allowed", "use POST", ka),
                   ka);
    reply(fd, publish(req.body, ka), ka);
  }

  void upgrade(int fd, const request& req) {
    const auto user = query_param(req.query, "user");
    const auto sid = query_param(req.query, "sid");
    if (!valid_identifier(user) || !valid_identifier(sid)) {
      return reply(fd, json_error(400, "Bad Request", "bad_request", "user and sid", false), false);
    }
    // No history: a resume from before the newest id cannot be served.
    std::uint64_t since = last_id_;
    const auto s = query_param(req.query, "since");
    std::from_chars(s.data(), s.data() + s.size(), since);
    const auto hello =
        fmt::format(R"({{"type":"hello","session":"{}/{}","resumed":false,"last_id":{},"gap":{},)"
                    R"("heartbeat_s":0,"idle_timeout_s":0,"session_ttl_s":0}})",
                    user, sid, last_id_, since != last_id_);
    const auto head = fmt::format(
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Accept: {}\r\nServer: ringcast-bare-sender\r\n\r\n",
        websocket_accept(req.websocket_key));
    auto& c = conns_[fd];
    c.st = state::websocket;
    c.place = ringcast::pacing::place_of(fmt::format("{}/{}", user, sid));
    c.slot = static_cast<std::uint32_t>(websockets_.size());
    websockets_.push_back(fd);
    if (!deliver(fd, head + frame(0x1, hello))) close_conn(fd);
  }

  std::string publish(std::string_view body, bool ka) {
    boost::system::error_code ec;
    const auto value = json::parse(body, ec);
    const auto* object = ec ? nullptr : value.if_object();
    const auto* data = object ? object->if_contains("data") : nullptr;
    if (!data) return json_error(400, "Bad Request", "bad_request", "data: required", ka);
    if (object->contains("channel") || object->contains("user"))
      return json_error(400, "Bad Request", "bad_request", "the bare sender only broadcasts", ka);

    std::chrono::milliseconds spread{0};  // a duration as ringcast takes it; no --max-spread here
    if (const auto* text = object->if_contains("spread")) {
      // Not a string: parsed as "", which is no duration either.
      const auto parsed = ringcast::parse_duration(
          text->is_string() ? std::string_view(text->get_string()) : std::string_view());
      if (!parsed)
        return json_error(400, "Bad Request", "bad_request", "spread: " + parsed.error, ka);
      spread = *parsed.value;
    }

    const auto id = ++last_id_;
    const auto spread_field =
        spread.count() > 0 ? fmt::format(R"(,"spread_ms":{})", spread.count()) : "";
    const auto message =
        fmt::format(R"({{"type":"message","id":{},"channel":"*","ts":{}{},"data":{}}})", id,
                    unix_us() / 1000, spread_field, json::serialize(*data));
    auto bytes = frame(0x1, message);
    ++published_;
    if (spread.count() > 0) {
      const std::size_t recipients = pace(id, std::move(bytes), spread);
      return http_response(200, "OK", "application/json",
                           fmt::format(R"({{"id":{},"recipients":{}}})", id, recipients), ka);
    }
    std::size_t recipients = 0;
    dead_.clear();
    for (const int fd : websockets_) {
      ++sends_;
      if (deliver(fd, bytes)) {
        ++recipients;
      } else {
        ++failed_sends_;
        dead_.push_back(fd);
      }
    }
    for (const int fd : dead_)
      close_conn(fd);
    delivered_ += recipients;
    return http_response(200, "OK", "application/json",
                         fmt::format(R"({{"id":{},"recipients":{}}})", id, recipients), ka);
  }

  // A paced publish: every WebSocket gets its turn; those at offset 0 get it now. Returns the
  // recipients.
  std::size_t pace(std::uint64_t id, std::string bytes, std::chrono::milliseconds spread) {
    std::vector<bare::recipient> to;
    to.reserve(websockets_.size());
    for (const int fd : websockets_)
      to.push_back({fd, conns_[fd].serial, conns_[fd].place});
    paced_.add(id, std::move(bytes), spread, to, bare::steady::now());
    walk_paced();
    return to.size();
  }

  // One send per turn that has come, to the connection it was drawn for if it is still open.
  void walk_paced() {
    paced_.walk(bare::steady::now(), [this](const bare::recipient& r, std::string_view bytes) {
      if (conns_[r.fd].st != state::websocket || conns_[r.fd].serial != r.serial) return;
      ++sends_;
      if (deliver(r.fd, bytes)) {
        ++delivered_;
      } else {
        ++failed_sends_;
        close_conn(r.fd);
      }
    });
  }

  std::string stats(bool ka) const {
    return http_response(
        200, "OK", "application/json",
        fmt::format(R"({{"threads":1,"connections":{{"ws":{},"total":{}}},)"
                    R"("messages":{{"published":{},"delivered":{},"last_id":{}}},)"
                    R"("accepted":{},"sessions_reused":0,"expirations":{{}}}})",
                    websockets_.size(), open_, published_, delivered_, last_id_, accepted_),
        ka);
  }

  // Client frames (RFC 6455 §5.2): masked, at most max_client_frame bytes.
  void websocket_input(int fd) {
    for (;;) {
      auto& c = conns_[fd];
      const auto* p = reinterpret_cast<const unsigned char*>(c.in.data());
      if (c.in.size() < 2) break;
      const unsigned opcode = p[0] & 0x0f;
      std::uint64_t length = p[1] & 0x7f;
      std::size_t at = 2;
      const std::size_t extra = length == 126 ? 2 : length == 127 ? 8 : 0;
      if (c.in.size() < at + extra) break;
      if (extra) {
        length = 0;
        for (std::size_t i = 0; i < extra; ++i)
          length = length << 8 | p[at + i];
        at += extra;
      }
      if (!(p[1] & 0x80) || length > max_client_frame) {
        // Unmasked (protocol error) or too big: close with 1002 / 1009 and hang up.
        const char code[2] = {0x03, static_cast<char>(!(p[1] & 0x80) ? 0xea : 0xf1)};
        deliver(fd, frame(0x8, std::string_view(code, 2)));
        return close_conn(fd);
      }
      if (c.in.size() < at + 4 + length) break;
      const auto* mask = p + at;
      std::string payload(length, '\0');
      for (std::size_t i = 0; i < length; ++i)
        payload[i] = static_cast<char>(p[at + 4 + i] ^ mask[i % 4]);
      c.in.erase(0, at + 4 + length);
      if (opcode == 0x8) {
        deliver(fd, frame(0x8, std::string_view(payload).substr(0, 2)));
        return close_conn(fd);
      }
      if (opcode == 0x9 && !deliver(fd, frame(0xa, payload))) return close_conn(fd);
      if (opcode == 0x1 && payload == R"({"type":"ping"})" &&
          !deliver(fd, frame(0x1, R"({"type":"pong"})")))
        return close_conn(fd);
    }
    if (conns_[fd].in.empty()) std::string{}.swap(conns_[fd].in);
  }

  int listener_;
  int epoll_ = -1;
  int signals_ = -1;
  std::string token_;
  std::vector<conn> conns_;  // by descriptor
  std::vector<int> websockets_;
  std::vector<int> dead_;
  std::uint64_t last_id_ = static_cast<std::uint64_t>(unix_us());
  std::uint64_t published_ = 0, delivered_ = 0, accepted_ = 0, open_ = 0;
  std::uint64_t sends_ = 0, partial_sends_ = 0, failed_sends_ = 0;

  bare::paced_turns paced_;
};

// 127.0.0.1:PORT (IPv4 only: the bench is loopback).
int listen_on(std::string_view where) {
  const auto colon = where.rfind(':');
  if (colon == std::string_view::npos) throw std::runtime_error("--listen: expected HOST:PORT");
  const std::string host(where.substr(0, colon));
  unsigned port = 0;
  const auto p = where.substr(colon + 1);
  if (std::from_chars(p.data(), p.data() + p.size(), port).ec != std::errc{} || port > 65535)
    throw std::runtime_error("--listen: bad port");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1)
    throw std::runtime_error("--listen: expected an IPv4 address");
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(fd, 4096) != 0)
    throw std::runtime_error(fmt::format("--listen {}: {}", where, std::strerror(errno)));
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  fmt::print(stderr, "listening on {}:{} with 1 thread(s)\n", host, ntohs(addr.sin_port));
  return fd;
}

}  // namespace

int main(int argc, char** argv) {
  std::string where = "127.0.0.1:8080";
  const char* env_token = std::getenv("RINGCAST_ADMIN_TOKEN");
  std::string token = env_token ? env_token : "";
  std::chrono::milliseconds tick{100};
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    int tick_ms = 0;
    if ((arg == "--listen" || arg == "--admin-token") && i + 1 < argc) {
      (arg == "--listen" ? where : token) = argv[++i];
    } else if (arg == "--tick-ms" && i + 1 < argc &&
               std::from_chars(argv[i + 1], argv[i + 1] + std::strlen(argv[i + 1]), tick_ms).ec ==
                   std::errc{} &&
               tick_ms > 0) {
      tick = std::chrono::milliseconds(tick_ms);
      ++i;
    } else {
      fmt::print(stderr,
                 "usage: ringcast-bare-sender [--listen 127.0.0.1:0] [--admin-token T] "
                 "[--tick-ms 100]\n"
                 "  (the admin token defaults to RINGCAST_ADMIN_TOKEN)\n");
      return arg == "--help" || arg == "-h" ? 0 : 2;
    }
  }
  if (token.empty()) {
    fmt::print(stderr, "ringcast-bare-sender: give --admin-token or RINGCAST_ADMIN_TOKEN\n");
    return 2;
  }
  // As many connections as the hard limit allows.
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
  signal(SIGPIPE, SIG_IGN);
  // OpenSSL sets itself up on first use (about 2 MB): do it now, so that it is part of the
  // baseline and not billed to the first connection.
  websocket_accept("dGhlIHNhbXBsZSBub25jZQ==");
  try {
    bare_sender server(listen_on(where), token, tick);
    server.run();
    server.summary();
  } catch (const std::exception& e) {
    fmt::print(stderr, "ringcast-bare-sender: {}\n", e.what());
    return 1;
  }
  return 0;
}
