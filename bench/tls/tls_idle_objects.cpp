// tls-idle-objects: what OpenSSL holds for one idle TLS connection of ringcast, object by object
// (docs/performance.md, "TLS: what an idle connection holds").
//
// The server side is ringcast's own (tls_context::for_server, the context every TLS listener
// uses); the clients are ringcast-load's (tls_context::for_client) in a child process, so that
// the parent's heap holds the server side only. Each connection does what an idle WebSocket over
// TLS does: the handshake (TLS 1.3, P-256 certificate), one small server record (the hello), one
// read that finds nothing (the idle connection's wait). Then, with every connection open and
// idle, it prints
//   - every live allocation made through OpenSSL's allocator since the first SSL_new, grouped by
//     the OpenSSL source line that made it (CRYPTO_set_mem_functions passes file and line), as
//     bytes per connection (asked for, and malloc_usable_size: what the heap really gives);
//   - with --rss instead, the parent's RSS growth per connection and nothing counted (the
//     counting's own table would be in it): heap fragmentation included, as the handshake's
//     short-lived buffers are freed between the long-lived objects;
//   - with --keep-buffers, the same with SSL_MODE_RELEASE_BUFFERS cleared on the context, to show
//     what releasing the buffers is worth.
// As ringcast does, a server connection leaves OpenSSL when its TLS 1.3 handshake is over
// (tls/record_handover.hpp): its SSL is freed and record_stream sends the hello and waits; the
// table then also shows the record layer's own heap per connection. With --openssl-records the
// SSL stays and carries the records, as before that change.
//
//   tls-idle-objects --cert FILE --key FILE [--connections 2000] [--in-flight 64] [--keep-buffers]
//                    [--openssl-records] [--rss] [--top 25]
#include <malloc.h>
#include <openssl/crypto.h>
#include <openssl/ssl.h>
#include <poll.h>

#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <boost/asio/error.hpp>

#include "tls/record_handover.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "tls/tls_context.hpp"

namespace {

// Every OpenSSL allocation while `counting`, by address: where it was made and how big it is.
struct site {
  const char* file;
  int line;
  bool operator<(const site& o) const {
    const int c = std::strcmp(file ? file : "", o.file ? o.file : "");
    return c != 0 ? c < 0 : line < o.line;
  }
};
struct block {
  site where;
  std::size_t asked;
};
bool counting = false;
std::unordered_map<void*, block>* live = nullptr;  // a pointer: no static destruction order

void* counted_malloc(std::size_t n, const char* file, int line) {
  void* p = std::malloc(n);
  if (p && counting) live->insert_or_assign(p, block{{file, line}, n});
  return p;
}
void counted_free(void* p, const char*, int) {
  if (p && live) live->erase(p);
  std::free(p);
}
void* counted_realloc(void* p, std::size_t n, const char* file, int line) {
  if (p && live) live->erase(p);
  void* q = std::realloc(p, n);
  if (q && counting) live->insert_or_assign(q, block{{file, line}, n});
  return q;
}

long rss_kb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return 0;
}

struct options {
  std::string cert, key;
  std::size_t connections = 2000;
  std::size_t in_flight = 64;
  std::size_t top = 25;
  bool keep_buffers = false;
  bool openssl_records = false;  // keep the SSL after the handshake (ringcast before its own layer)
  bool rss_only = false;
  bool trim = false;  // with --rss: malloc_trim(0) afterwards, and the RSS after it
};

bool number(const char* text, std::size_t& out) {
  const auto end = text + std::strlen(text);
  return std::from_chars(text, end, out).ec == std::errc{} && out > 0;
}

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const bool has = i + 1 < argc;
    if (a == "--cert" && has) {
      o.cert = argv[++i];
    } else if (a == "--key" && has) {
      o.key = argv[++i];
    } else if (a == "--connections" && has && number(argv[i + 1], o.connections)) {
      ++i;
    } else if (a == "--in-flight" && has && number(argv[i + 1], o.in_flight)) {
      ++i;
    } else if (a == "--top" && has && number(argv[i + 1], o.top)) {
      ++i;
    } else if (a == "--keep-buffers") {
      o.keep_buffers = true;
    } else if (a == "--openssl-records") {
      o.openssl_records = true;
    } else if (a == "--rss") {
      o.rss_only = true;
    } else if (a == "--trim") {
      o.trim = true;
    } else {
      fmt::print(stderr,
                 "usage: tls-idle-objects --cert FILE --key FILE [--connections 2000] "
                 "[--in-flight 64] [--keep-buffers] [--openssl-records] [--rss [--trim]] "
                 "[--top 25]\n");
      std::exit(a == "--help" ? 0 : 2);
    }
  }
  if (o.cert.empty() || o.key.empty()) {
    fmt::print(stderr, "tls-idle-objects: --cert and --key are required\n");
    std::exit(2);
  }
  return o;
}

// One side's connections, driven without blocking until each has done `steps` (handshake, then
// the side's part of the exchange). `step` returns true when that connection is finished, false
// when it waits for its socket.
template <class Step>
void drive(std::vector<ringcast::tls_session>& sessions, const std::vector<int>& fds,
           std::size_t in_flight, Step step) {
  std::vector<std::size_t> active;
  std::size_t next = 0, done = 0;
  std::vector<pollfd> waits;
  while (done < sessions.size()) {
    while (active.size() < in_flight && next < sessions.size())
      active.push_back(next++);
    waits.clear();
    for (std::size_t i = 0; i < active.size();) {
      const std::size_t c = active[i];
      short events = 0;
      if (step(c, sessions[c].get(), events)) {
        ++done;
        active[i] = active.back();
        active.pop_back();
        continue;
      }
      waits.push_back({fds[c], events, 0});
      ++i;
    }
    if (!waits.empty()) poll(waits.data(), waits.size(), 1000);
  }
}

// SSL_ERROR_WANT_* as the poll event to wait for; anything else is fatal here.
short wanted(ssl_st* ssl, int result, const char* what) {
  switch (SSL_get_error(ssl, result)) {
    case SSL_ERROR_WANT_READ:
      return POLLIN;
    case SSL_ERROR_WANT_WRITE:
      return POLLOUT;
    default:
      fmt::print(stderr, "tls-idle-objects: {} failed\n", what);
      std::exit(1);
  }
}

// The clients: handshake, then read the server's hello; then hold the connection until the
// parent closes its end.
[[noreturn]] void run_clients(const options& o, std::vector<int> fds) {
  counting = false;
  auto ctx = ringcast::tls_context::for_client("");
  if (!ctx) {
    fmt::print(stderr, "tls-idle-objects: {}\n", ctx.error);
    std::_Exit(1);
  }
  std::vector<ringcast::tls_session> sessions;
  for (const int fd : fds)
    sessions.push_back(ctx.value->new_session(fd, "127.0.0.1"));
  std::vector<int> stage(fds.size(), 0);
  drive(sessions, fds, o.in_flight, [&](std::size_t c, ssl_st* ssl, short& events) {
    if (stage[c] == 0) {
      const int r = SSL_do_handshake(ssl);
      if (r != 1) return (events = wanted(ssl, r, "client handshake")), false;
      stage[c] = 1;
    }
    char hello[256];
    std::size_t n = 0;
    const int r = SSL_read_ex(ssl, hello, sizeof hello, &n);
    if (r != 1) return (events = wanted(ssl, r, "client read")), false;
    return true;
  });
  // Hold every connection open until the parent hangs up (its end of the first connection).
  char byte;
  while (::recv(fds.front(), &byte, 1, 0) > 0) {
  }
  std::_Exit(0);
}

// Makes one TLS 1.3 connection per pair, then leaves it idle; returns the number of sessions
// and keeps them alive in `sessions`.
void run_servers(const options& o, const ringcast::tls_context& ctx,
                 std::vector<ringcast::tls_session>& sessions,
                 std::vector<std::unique_ptr<ringcast::record_stream>>& records,
                 const std::vector<int>& fds) {
  records.resize(fds.size());
  for (const int fd : fds) {
    sessions.push_back(ctx.new_session(fd));
    if (o.keep_buffers) SSL_clear_mode(sessions.back().get(), SSL_MODE_RELEASE_BUFFERS);
  }
  static constexpr std::string_view hello =
      R"({"type":"hello","session":"load-1/s1","resumed":false,"last_id":1764241234567890,)"
      R"("gap":false,"heartbeat_s":25,"idle_timeout_s":60,"session_ttl_s":120})";
  std::vector<int> stage(fds.size(), 0);
  drive(sessions, fds, o.in_flight, [&](std::size_t c, ssl_st* ssl, short& events) {
    if (stage[c] == 0) {
      const int r = SSL_do_handshake(ssl);
      if (r != 1) return (events = wanted(ssl, r, "server handshake")), false;
      stage[c] = 1;
      if (!o.openssl_records) {
        records[c] = ringcast::take_over(ssl);
        if (!records[c]) {
          fmt::print(stderr, "tls-idle-objects: the record layer did not take the connection\n");
          std::exit(1);
        }
        sessions[c].reset();
      }
    }
    if (records[c]) {
      boost::system::error_code ec;
      const auto bytes =
          std::span(reinterpret_cast<const unsigned char*>(hello.data()), hello.size());
      if (stage[c] == 1 && records[c]->write(fds[c], std::span(&bytes, 1), ec) != hello.size()) {
        fmt::print(stderr, "tls-idle-objects: the hello did not go out at once\n");
        std::exit(1);
      }
      stage[c] = 2;
      unsigned char buffer[256];
      if (records[c]->read(fds[c], buffer, ec) != 0 || ec != boost::asio::error::would_block) {
        fmt::print(stderr, "tls-idle-objects: the idle read did not wait\n");
        std::exit(1);
      }
      return true;
    }
    if (stage[c] == 1) {
      std::size_t n = 0;
      const int r = SSL_write_ex(ssl, hello.data(), hello.size(), &n);
      if (r != 1) return (events = wanted(ssl, r, "server write")), false;
      stage[c] = 2;
    }
    // The idle connection's read: nothing comes (SSL_ERROR_WANT_READ), as ringcast's read_now.
    char buffer[256];
    std::size_t n = 0;
    const int r = SSL_read_ex(ssl, buffer, sizeof buffer, &n);
    if (r == 1 || SSL_get_error(ssl, r) != SSL_ERROR_WANT_READ) {
      fmt::print(stderr, "tls-idle-objects: the idle read did not wait\n");
      std::exit(1);
    }
    return true;
  });
}

void report(const options& o, const char* version,
            const std::vector<std::unique_ptr<ringcast::record_stream>>& records) {
  struct total {
    std::size_t blocks = 0, asked = 0, usable = 0;
  };
  std::map<site, total> by_site;
  total all;
  for (const auto& [p, b] : *live) {
    auto& t = by_site[b.where];
    const std::size_t usable = malloc_usable_size(p);
    ++t.blocks, t.asked += b.asked, t.usable += usable;
    ++all.blocks, all.asked += b.asked, all.usable += usable;
  }
  std::vector<std::pair<site, total>> rows(by_site.begin(), by_site.end());
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.second.usable > b.second.usable; });
  const double n = static_cast<double>(o.connections);
  fmt::print("tls-idle-objects: {} idle TLS connections ({}), SSL_MODE_RELEASE_BUFFERS {}\n",
             o.connections, version, o.keep_buffers ? "cleared" : "as ringcast sets it");
  fmt::print("| OpenSSL source line | blocks/conn | B/conn asked | B/conn usable |\n");
  fmt::print("|---|---:|---:|---:|\n");
  std::size_t shown = 0;
  total rest;
  for (const auto& [s, t] : rows) {
    if (shown++ < o.top) {
      const std::string_view file = s.file ? s.file : "?";
      fmt::print("| {}:{} | {:.2f} | {:.0f} | {:.0f} |\n",
                 file.substr(file.find_last_of('/') == std::string_view::npos
                                 ? 0
                                 : file.find_last_of('/') + 1),
                 s.line, t.blocks / n, t.asked / n, t.usable / n);
    } else {
      rest.blocks += t.blocks, rest.asked += t.asked, rest.usable += t.usable;
    }
  }
  if (rest.blocks)
    fmt::print("| (other lines) | {:.2f} | {:.0f} | {:.0f} |\n", rest.blocks / n, rest.asked / n,
               rest.usable / n);
  fmt::print("| **all OpenSSL blocks held** | {:.2f} | {:.0f} | {:.0f} |\n", all.blocks / n,
             all.asked / n, all.usable / n);
  std::size_t held = 0, usable = 0, buffered = 0;
  for (const auto& r : records) {
    if (!r) continue;
    ++held;
    usable += malloc_usable_size(r.get());
    buffered += r->buffered();
  }
  if (held) {
    fmt::print(
        "| ringcast's record layer (record_stream, not OpenSSL's) | {:.2f} | {} | {:.0f} |\n",
        static_cast<double>(held) / n, sizeof(ringcast::record_stream),
        static_cast<double>(usable + buffered) / n);
  }
}

const char* version_name(int v) {
  return v == TLS1_3_VERSION ? "TLS 1.3" : v == TLS1_2_VERSION ? "TLS 1.2" : "other";
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  if (!CRYPTO_set_mem_functions(counted_malloc, counted_realloc, counted_free)) {
    fmt::print(stderr, "tls-idle-objects: OpenSSL allocated before main; cannot count\n");
    return 1;
  }
  live = new std::unordered_map<void*, block>;
  live->reserve(o.connections * 64);
  auto ctx = ringcast::tls_context::for_server(o.cert, o.key);
  if (!ctx) {
    fmt::print(stderr, "tls-idle-objects: {}\n", ctx.error);
    return 1;
  }
  std::vector<int> server_fds, client_fds;
  for (std::size_t i = 0; i < o.connections; ++i) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, pair) != 0) {
      fmt::print(stderr, "tls-idle-objects: socketpair: {} (raise ulimit -n)\n",
                 std::strerror(errno));
      return 1;
    }
    server_fds.push_back(pair[0]);
    client_fds.push_back(pair[1]);
  }
  const pid_t child = fork();
  if (child == 0) {
    for (const int fd : server_fds)
      ::close(fd);
    run_clients(o, client_fds);
  }
  for (const int fd : client_fds)
    ::close(fd);
  std::vector<ringcast::tls_session> sessions;
  sessions.reserve(o.connections);
  std::vector<std::unique_ptr<ringcast::record_stream>> records;
  const long rss_before = rss_kb();
  counting = !o.rss_only;
  run_servers(o, *ctx.value, sessions, records, server_fds);
  counting = false;
  const long rss_after = rss_kb();
  // Only TLS 1.3 connections leave OpenSSL.
  const char* version = records.front() ? "TLS 1.3, ringcast's record layer"
                                        : version_name(SSL_version(sessions.front().get()));
  if (o.rss_only && o.trim) {
    const auto start = std::chrono::steady_clock::now();
    malloc_trim(0);
    const auto took = std::chrono::steady_clock::now() - start;
    fmt::print(
        "tls-idle-objects: malloc_trim(0) took {} µs; RSS growth after it {:.0f} B per "
        "connection\n",
        std::chrono::duration_cast<std::chrono::microseconds>(took).count(),
        static_cast<double>(rss_kb() - rss_before) * 1024.0 / static_cast<double>(o.connections));
  }
  if (o.rss_only) {
    fmt::print(
        "tls-idle-objects: {} idle TLS connections ({}), SSL_MODE_RELEASE_BUFFERS {}: "
        "RSS growth {:.0f} B per connection\n",
        o.connections, version, o.keep_buffers ? "cleared" : "as ringcast sets it",
        static_cast<double>(rss_after - rss_before) * 1024.0 / static_cast<double>(o.connections));
  } else {
    report(o, version, records);
  }
  sessions.clear();
  records.clear();
  for (const int fd : server_fds)
    ::close(fd);
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
