// Upgrade in place on SIGUSR2 (docs/operations.md, "Upgrading"): the new binary is checked, every
// loop stops where it is, the state goes to a memfd and the binary is exec'd in this process, with
// the listening socket and the connections that move. If anything fails before the exec is done,
// the loops go on as if nothing had happened.
#include <boost/asio/buffer.hpp>
#include <boost/asio/post.hpp>

#include <algorithm>
#include <chrono>
#include <future>
#include <latch>
#include <thread>

#include "handover_messages.hpp"
#include "handover_version.hpp"
#include "http_connection.hpp"
#include "listener.hpp"
#include "log.hpp"
#include "poll_connection.hpp"
#include "server.hpp"
#include "sse_connection.hpp"
#include "state_codec.hpp"
#include "stream_connection.hpp"
#include "upgrade_exec.hpp"
#include "ws_connection.hpp"

namespace ringcast {

namespace asio = boost::asio;

// --version prints one format for the whole state: the process's section and the node's.
static_assert(handover_format == 2 && upgrade::state_format == 1,
              "a change of either state's format bumps handover_format (handover_version.hpp)");

namespace {

// The steady clock is the system's monotonic one, so the old process's reading still counts after
// the exec: the pause is measured across it.
// How long an upgrade waits for the HTTP requests in flight to be answered (quiesce_http).
constexpr auto quiesce_limit = std::chrono::seconds(1);

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
  if (!state.node_id.empty()) backplane_->keep_node_id(state.node_id);
  {
    std::lock_guard lock(sequencer_);
    last_id_ = std::max(last_id_, state.last_id);
  }
  if (!state.node_state.empty()) upgrade_.node_restored = restore_node(state.node_state);
  if (!upgrade_.node_restored) {
    // Started without the node's state, ids still go on above the old process's.
    upgrade::handover_state floor;
    floor.last_id = state.last_id;
    backplane_->restore(floor, home().now());
  }
  upgrade_.adopted = std::move(state);
}

bool server::open_listener() {
  if (!upgrade_.adopted) return listener_->open(cfg_.listen_host, cfg_.listen_port);
  const process_handover& state = *upgrade_.adopted;
  if (state.listeners.size() != 1) {
    log_warn("the upgrade state holds {} listening sockets, not 1", state.listeners.size());
    return false;
  }
  if (!listener_->adopt(state.listeners[0].fd, state.listeners[0].v6)) return false;
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
  if (const auto why = check_new_binary(binary, upgrade_.args, cfg_.upgrade_check_timeout, clock_);
      !why.empty()) {
    log_warn("upgrade refused, serving on: {}", why);
    return;
  }
  quiesce_http();
  // Every loop stops at a point of its own queue that comes after every publish numbered so far
  // (posted with the backplane's numbering held, as it hands publishes over), and waits there.
  // There each captures what moves of its streams.
  std::latch stopped(static_cast<std::ptrdiff_t>(loops_.size()));
  std::promise<void> go_on;
  std::shared_future<void> resumed = go_on.get_future().share();
  std::vector<std::vector<moved_stream>> streams(loops_.size());
  std::vector<std::vector<moved_http>> http(loops_.size());
  std::vector<std::size_t> reconnected(loops_.size());
  backplane_->hold_numbering([&] {
    for (std::size_t i = 0; i < loops_.size(); ++i) {
      asio::post(loops_[i]->io(), [&, i, resumed] {
        reconnected[i] =
            stream_connection::capture_loop(streams[i]) + loops_[i]->capture_http(http[i]);
        stopped.count_down();
        resumed.wait();
      });
    }
  });
  stopped.wait();
  process_handover state = capture_for_upgrade();
  // With --redis the history, sessions and schedule are the cluster's: the new binary reads them
  // there as a node joining it, and attaches the moved connections again as resumes.
  if (!cfg_.redis) state.node_state = upgrade::write_state(capture_node());
  for (std::size_t i = 0; i < loops_.size(); ++i) {
    state.reconnected += reconnected[i];
    for (auto& s : streams[i])
      state.streams.push_back(std::move(s));
    for (auto& h : http[i])
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
  const std::string why = exec_with_state(binary, upgrade_.args, encode_handover(state), keep);
  // Only a failed exec comes back here; the TLS clients told to reconnect do so.
  upgrade_.reconnected = state.reconnected;
  log_warn("upgrade failed, serving on: {}", why);
  go_on.set_value();
  for (auto& loop : loops_)
    asio::post(loop->io(), [] { http_connection::end_handover(); });
}

// The loops serve on while their HTTP connections come to rest: from now on one that waits for
// a request parks instead of reading it, and one in the middle of a request (an admin publish, a
// connect, a poll's reply) parks once it is answered. So an admin request read before the stop
// is answered by the old binary, and one that comes after waits for the new one: none is lost.
// A request that is not done within the limit (a client sending it slowly) is not waited for:
// its connection is closed by the exec.
void server::quiesce_http() {
  for (auto& loop : loops_)
    asio::post(loop->io(), [] { http_connection::begin_handover(); });
  const auto deadline = clock_.now() + quiesce_limit;
  for (;;) {
    std::size_t busy = 0;
    for (auto& loop : loops_) {
      std::promise<std::size_t> count;
      auto counted = count.get_future();
      asio::post(loop->io(), [&count] {
        count.set_value(http_connection::requests_in_flight() +
                        poll_connection::replies_in_flight());
      });
      busy += counted.get();
    }
    if (busy == 0) return;
    if (clock_.now() >= deadline) {
      log_warn("upgrade: {} HTTP request(s) still in flight after {} ms: their connections close",
               busy, std::chrono::duration_cast<std::chrono::milliseconds>(quiesce_limit).count());
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// With every loop stopped (their hubs are read from this thread: the latch orders it after them).
// The backplane gives the last id numbered and the schedule; this node what it delivered.
upgrade::handover_state server::capture_node() {
  upgrade::handover_state node;
  {
    std::lock_guard lock(sequencer_);
    node.published = published_;
    for (const auto& [id, expires_ms] : sticky_quota_.entries())
      node.sticky_quota.push_back({id, expires_ms});
  }
  handover_messages messages;
  for (auto& loop : loops_)
    node.loops.push_back(loop->sessions().capture(loop->now(), messages));
  node.messages = capture_messages(messages);
  backplane_->capture(node, home().now());
  return node;
}

// The node's state into hubs that hold nothing yet, before the loops run. False if it is refused
// (the new process then starts without it, as after a restart: the clients resume).
bool server::restore_node(const std::string& bytes) {
  auto read = upgrade::read_state(bytes);
  if (!read.state) {
    log_warn("upgrade: the node's state is refused: {}", read.error);
    return false;
  }
  upgrade::handover_state& node = *read.state;
  if (node.loops.size() != loops_.size()) {
    log_warn("upgrade: the node's state is of {} event loops, this process has {}: not restored",
             node.loops.size(), loops_.size());
    return false;
  }
  {
    std::lock_guard lock(sequencer_);
    last_id_ = std::max(last_id_, node.last_id);
    published_ = node.published;
    for (const auto& e : node.sticky_quota)
      sticky_quota_.add(e.id, e.expires_ms);
  }
  const handover_messages messages = restore_messages(node.messages);
  for (std::size_t i = 0; i < loops_.size(); ++i)
    loops_[i]->sessions().restore(node.loops[i], messages, loops_[i]->now());
  backplane_->restore(node, home().now());
  return true;
}

// With every loop stopped.
process_handover server::capture_for_upgrade() {
  process_handover state;
  state.paused_at_ns = steady_ns(clock_);
  state.upgrades = upgrade_.count + 1;
  state.reconnected = upgrade_.reconnected;
  if (cfg_.admin_token_generated) state.generated_admin_token = cfg_.admin_token;
  {
    std::lock_guard lock(sequencer_);
    state.last_id = last_id_;
  }
  state.listeners.push_back({listener_->native_handle(), listener_->v6()});
  state.node_id = backplane_->state().node_id;
  return state;
}

// Each stream goes to its session's home loop, which attaches it once it runs.
void server::adopt_streams() {
  for (moved_stream& m : upgrade_.adopted->streams) {
    event_loop& home = loop_for(m.user, m.sid);
    auto stream =
        net_stream::adopt(home.io(), {m.fd, m.v6 ? asio::ip::tcp::v6() : asio::ip::tcp::v4(), {}});
    if (!stream) {
      log_warn("upgrade: a handed-over connection of {} could not be adopted", m.user);
      continue;
    }
    connection_parts parts{std::move(*stream), {}, connections_.count_open(), {}};
    asio::post(home.io(), [&home, parts = std::move(parts), m = std::move(m)]() mutable {
      if (m.kind == moved_stream::kind_t::ws) {
        ws_connection::adopt(home, std::move(parts), m);
      } else {
        sse_connection::adopt(home, std::move(parts), m);
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
    connection_parts parts{std::move(*stream), {}, connections_.count_open(), {}};
    const std::size_t n = boost::asio::buffer_copy(parts.buffer.prepare(m.unread.size()),
                                                   boost::asio::buffer(m.unread));
    parts.buffer.commit(n);
    asio::post(loop.io(), [&loop, parts = std::move(parts)]() mutable {
      http_connection::resume(loop, std::move(parts));
    });
  }
}

}  // namespace ringcast
