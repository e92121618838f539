// Upgrade in place on SIGUSR2 (docs/operations.md, "Upgrading"): the new binary is checked, every
// loop stops where it is, the state goes to a memfd and the binary is exec'd in this process, with
// the listening sockets and the connections that move. If anything fails before the exec is done,
// the loops go on as if nothing had happened.
#include <boost/asio/buffer.hpp>
#include <boost/asio/post.hpp>

#include <algorithm>
#include <chrono>
#include <future>
#include <latch>
#include <thread>

#include <unistd.h>

#include "core/handover_messages.hpp"
#include "core/log.hpp"
#include "net/http_connection.hpp"
#include "net/listener.hpp"
#include "net/poll_connection.hpp"
#include "net/server.hpp"
#include "net/sse_connection.hpp"
#include "net/stream_connection.hpp"
#include "net/upgrade_exec.hpp"
#include "net/ws_connection.hpp"
#include "protocol/client_address.hpp"
#include "protocol/handover_version.hpp"
#include "upgrade/state_codec.hpp"

namespace ringcast {

namespace asio = boost::asio;

// --version prints one format for the whole state: the process's section and the node's.
static_assert(handover_format == 7 && upgrade::state_format == 4,
              "a change of either state's format bumps handover_format (handover_version.hpp)");

namespace {

// How long an upgrade waits for the HTTP requests in flight to be answered (stop_at_rest).
constexpr auto quiesce_limit = std::chrono::seconds(1);

// The steady clock is the system's monotonic one, so the old process's reading still counts after
// the exec: the pause is measured across it.
std::int64_t steady_ns(const loop_clock& clock) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(clock.now().time_since_epoch())
      .count();
}

}  // namespace

void server::allow_upgrades(std::string own_binary, std::vector<std::string> args) {
  upgrade_.own_binary = std::move(own_binary);
  upgrade_.args = std::move(args);
  upgrade_.binary = cfg_.upgrade_binary;
}

void server::adopt(process_handover state) {
  upgrade_.count = state.upgrades;
  upgrade_.reconnected = state.reconnected;
  if (!state.node_id.empty()) node_->shared().keep_node_id(state.node_id);
  // Ids go on above the old process's, with or without the node's state.
  node_->raise_floor(state.last_id);
  if (!state.node_state.empty())
    upgrade_.node_restored = node_->restore(state.node_state, upgrade_.restored);
  upgrade_.adopted = std::move(state);
}

bool server::open_listener() {
  if (!upgrade_.adopted) return listener_->open(cfg_.listen_host, cfg_.listen_port);
  const process_handover& state = *upgrade_.adopted;
  if (!listener_->adopt(state.listeners)) return false;
  adopt_streams();
  adopt_http();
  const double pause_ms = static_cast<double>(steady_ns(clock_) - state.paused_at_ns) / 1e6;
  const auto held_polls = std::count_if(state.http.begin(), state.http.end(),
                                        [](const moved_http& h) { return h.held_poll; });
  log_info(
      "upgraded in place (upgrade {}): {} connection(s) moved ({} WebSocket and SSE, {} HTTP of "
      "which {} held long-polls), serving again after {:.1f} ms",
      state.upgrades, state.streams.size() + state.http.size(), state.streams.size(),
      state.http.size(), held_polls, pause_ms);
  upgrade_.adopted.reset();
  return true;
}

// On loop 0. The check and the exec run on a thread of their own: the loops serve on while the
// new binary is checked.
void server::on_upgrade_signal() {
  if (draining()) {
    log_warn("SIGUSR2 while draining: ignored");
    return;
  }
  if (upgrade_.under_way.exchange(true)) {
    log_warn("SIGUSR2: an upgrade is already under way; ignored");
    return;
  }
  if (upgrade_.worker.joinable()) upgrade_.worker.join();
  upgrade_.worker = std::thread([this] {
    upgrade();
    upgrade_.under_way.store(false);
  });
}

void server::upgrade() {
  std::string binary;
  {
    std::lock_guard lock(upgrade_.mutex);
    binary = upgrade_.binary.empty() ? upgrade_.own_binary : upgrade_.binary;
  }
  log_info("SIGUSR2: upgrading in place to {}", binary);
  // Opened once: what is checked is what runs, whatever is put at the path meanwhile.
  const opened_binary opened(binary);
  if (const auto why = check_new_binary(opened, upgrade_.args, cfg_.upgrade_check_timeout, clock_);
      !why.empty()) {
    log_warn("upgrade refused, serving on: {}", why);
    return;
  }
  for (auto& loop : loops_)
    asio::post(loop->io(), [l = loop.get()] { l->begin_handover(); });
  const std::shared_ptr<loop_stop> stop = stop_at_rest();
  if (!stop) {
    log_warn("upgrade abandoned, serving on: the server began to drain");
    for (auto& loop : loops_)
      asio::post(loop->io(), [l = loop.get()] { l->end_handover(); });
    return;
  }
  stop->verdict.set_value(true);
  stop->captured.wait();
  process_handover state = capture_for_upgrade();
  // With --redis the history, sessions and schedule are the cluster's: the new binary reads them
  // there as a node joining it, and attaches the moved connections again as resumes.
  handover_messages carried;  // by the node's state
  if (!cfg_.redis) state.node_state = upgrade::write_state(node_->capture(carried));
  gather_queued_messages(stop->queued, stop->streams, carried, state);
  for (std::size_t i = 0; i < loops_.size(); ++i) {
    state.reconnected += stop->reconnected[i];
    for (auto& s : stop->streams[i])
      state.streams.push_back(std::move(s));
    for (auto& h : stop->http[i])
      state.http.push_back(std::move(h));
  }
  if (state.reconnected > upgrade_.reconnected)
    log_info("upgrade: {} native-TLS connection(s) told to reconnect",
             state.reconnected - upgrade_.reconnected);
  std::vector<int> keep;
  for (const auto& l : state.listeners)
    keep.push_back(l.fd);
  for (const auto& s : state.streams)
    keep.push_back(s.fd);
  for (const auto& h : state.http)
    keep.push_back(h.fd);
  const std::string bytes = encode_handover(state);
  // Each queued message once, however many streams hold it (docs/operations.md, "Upgrading").
  log_info("upgrade: a state of {} bytes ({} message(s) queued to {} moving stream(s))",
           bytes.size(), state.messages.size(), state.streams.size());
  const std::string why = exec_with_state(opened, upgrade_.args, bytes, keep);
  // Only a failed exec comes back here; the TLS clients told to reconnect do so.
  upgrade_.reconnected = state.reconnected;
  log_warn("upgrade failed, serving on: {}", why);
  stop->go_on.set_value();
  for (auto& loop : loops_)
    asio::post(loop->io(), [l = loop.get()] { l->end_handover(); });
}

// Every loop stops at a point of its own queue that comes after every publish numbered so far
// (posted with the backplane's numbering held, as it hands publishes over) and counts its HTTP
// requests in flight. While any is (a request being read, handled or answered, a poll's reply
// being written, a plain connection not yet parked), the loops go on serving, and stop again 2 ms
// later: from begin_handover on, no new request is read on a plain connection, so they come to
// rest. A request not done within the limit (a client sending it slowly) is not waited for: its
// connection is closed by the exec. Null: a drain began meanwhile.
std::shared_ptr<server::loop_stop> server::stop_at_rest() {
  const auto deadline = clock_.now() + quiesce_limit;
  for (;;) {
    if (draining()) return nullptr;
    auto stop = std::make_shared<loop_stop>(loops_.size());
    node_->hold_numbering([&] {
      for (std::size_t i = 0; i < loops_.size(); ++i) {
        asio::post(loops_[i]->io(), [stop, i, loop = loops_[i].get()] {
          stop->busy[i] = loop->requests_in_flight();
          stop->counted.count_down();
          if (!stop->capture.get()) return;  // serves on until the next stop
          stop->reconnected[i] = loop->capture_streams(stop->streams[i], stop->queued[i]) +
                                 loop->capture_http(stop->http[i]);
          stop->captured.count_down();
          stop->resumed.wait();
        });
      }
    });
    stop->counted.wait();
    std::size_t busy = 0;
    for (const auto n : stop->busy)
      busy += n;
    if (busy == 0) return stop;
    if (clock_.now() >= deadline) {
      log_warn("upgrade: {} HTTP request(s) still in flight after {} ms: their connections close",
               busy, std::chrono::duration_cast<std::chrono::milliseconds>(quiesce_limit).count());
      return stop;
    }
    stop->verdict.set_value(false);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// With every loop stopped.
process_handover server::capture_for_upgrade() {
  process_handover state;
  state.paused_at_ns = steady_ns(clock_);
  state.upgrades = upgrade_.count + 1;
  state.reconnected = upgrade_.reconnected;
  if (cfg_.admin_token_generated) state.generated_admin_token = cfg_.admin_token;
  state.last_id = node_->figures().last_id;
  state.listeners = listener_->handover();  // every loop's, whatever the new --threads
  state.node_id = node_->shared().state().node_id;
  return state;
}

// A connection the old process handed over counts against its address as it did there (never
// refused: it is open already); one from a trusted proxy counts at its next request head.
address_limits::slot server::adopted_address(net_stream& stream) {
  boost::system::error_code ec;
  const auto peer = stream.socket().remote_endpoint(ec);
  if (ec || in_ranges(cfg_.trusted_proxies, peer.address())) return {};
  return addresses_.adopt_connection(peer.address(), std::chrono::steady_clock::now());
}

// Each stream goes to its session's home loop, which attaches it once it runs.
void server::adopt_streams() {
  const std::vector<message_ptr> table =
      restore_queued_messages(upgrade_.adopted->messages, upgrade_.restored);
  upgrade_.restored.clear();  // the hubs and the queues hold what they need of it
  for (moved_stream& m : upgrade_.adopted->streams) {
    auto queue = queue_of(m, table);
    if (!queue) {  // it names a message of the node's state, which was refused
      log_warn(
          "upgrade: a connection of {} is closed: its queue names messages of the node's "
          "state, which was not restored",
          m.user);
      ::close(m.fd);
      continue;
    }
    // Its session was restored on the loop that holds its user's slot; one that was not (its
    // state refused) is made anew wherever the stream lands.
    event_loop& home = *loops_[homes_.holder(m.user).value_or(0)];
    auto stream =
        net_stream::adopt(home.io(), {m.fd, m.v6 ? asio::ip::tcp::v6() : asio::ip::tcp::v4(), {}});
    if (!stream) {
      log_warn("upgrade: a handed-over connection of {} could not be adopted", m.user);
      continue;
    }
    auto address = adopted_address(*stream);  // before the stream moves into the parts
    const auto peer = connection_parts::peer_of(*stream);
    connection_parts parts{
        std::move(*stream), {}, connections_.count_open(), std::move(address), peer};
    asio::post(home.io(), [&home, parts = std::move(parts), m = std::move(m),
                           queue = std::move(*queue)]() mutable {
      if (m.kind == moved_stream::kind_t::ws) {
        ws_connection::adopt(home, std::move(parts), m, std::move(queue));
      } else {
        sse_connection::adopt(home, std::move(parts), m, std::move(queue));
      }
    });
  }
  // Behind every adoption: a session that was live and whose connection did not come (it could
  // not move, or it was a held poll: its request is read again by adopt_http) loses it now, as if
  // it had closed then.
  for (auto& loop : loops_)
    asio::post(loop->io(), [l = loop.get()] { l->sessions().end_adoption(l->now()); });
}

// Spread over the loops; each reads its buffered bytes first, as a keep-alive connection reads its
// next request. A held poll's request is posted behind end_adoption (adopt_streams), so it finds
// its session waiting, resumes it and is held again, or answered with what came meanwhile.
void server::adopt_http() {
  std::size_t next = 0;
  for (moved_http& m : upgrade_.adopted->http) {
    event_loop& loop = *loops_[next++ % loops_.size()];
    auto stream =
        net_stream::adopt(loop.io(), {m.fd, m.v6 ? asio::ip::tcp::v6() : asio::ip::tcp::v4(), {}});
    if (!stream) {
      log_warn("upgrade: a handed-over HTTP connection could not be adopted");
      continue;
    }
    auto address = adopted_address(*stream);  // before the stream moves into the parts
    const auto peer = connection_parts::peer_of(*stream);
    connection_parts parts{
        std::move(*stream), {}, connections_.count_open(), std::move(address), peer};
    const std::size_t n = boost::asio::buffer_copy(parts.buffer.prepare(m.unread.size()),
                                                   boost::asio::buffer(m.unread));
    parts.buffer.commit(n);
    const std::size_t allowance = m.held_poll ? poll_connection::rewrite_growth : 0;
    asio::post(loop.io(), [&loop, parts = std::move(parts), allowance]() mutable {
      http_connection::adopt(loop, std::move(parts), allowance);
    });
  }
}

}  // namespace ringcast
