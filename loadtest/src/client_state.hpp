#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

#include "id_tracker.hpp"
#include "result.hpp"

namespace boost::json {
class object;
}

namespace ringcast::load {

// Microseconds of CLOCK_REALTIME: the publisher stamps messages with it and clients subtract it.
// Realtime rather than steady because --procs workers are separate processes (same machine).
std::int64_t realtime_us();

// What a client should do after an envelope from the server.
struct reaction {
  enum class kind { keep, reconnect, give_up } what = kind::keep;
  std::chrono::milliseconds delay{0};
};

// The transport-independent half of a client: it reads the server's envelopes (docs/protocol.md,
// "Envelopes (server → client)"), keeps the id to resume from, and books deliveries, latencies and
// server-side reconnects/closes into the worker's result. The transports only move bytes.
class client_state {
 public:
  client_state(client_result& result, progress& live, std::chrono::milliseconds max_retry)
      : result_(result), live_(live), max_retry_(max_retry) {}

  // A new connection attempt begins: messages published before `start_us` that arrive on it are
  // replays, not live deliveries.
  void connection_started(std::int64_t start_us) { connection_start_us_ = start_us; }

  // One envelope: a WebSocket frame, an SSE event's data or a long-poll reply body.
  reaction on_envelope(std::string_view json, std::int64_t now_us);

  // --server-kind nchan. A frame is the published body itself, {"t":..,"seq":..}, and its id is
  // seq + 1 (the publisher books the same ids). Nchan sends no hello: a connection that was up
  // before publishing began expects every message (base 0); a later one starts at its first
  // message, as a long-poll does.
  void nchan_connected(bool before_publishing);
  void on_raw_message(std::string_view body, std::int64_t now_us);

  // The `since` to resume with; nullopt before anything was seen (start from "now").
  std::optional<std::uint64_t> since() const { return last_id_; }
  const id_tracker& ids() const { return ids_; }

 private:
  void on_message(const boost::json::object& message, std::int64_t now_us);
  // One delivered id; t and seq are the publisher's stamp (absent: not from this run). `paced`:
  // the envelope had spread_ms, so arriving after a higher id is not out of order.
  void deliver(std::uint64_t id, const boost::json::object* stamp, std::int64_t now_us,
               bool paced = false);
  void set_base(std::uint64_t last_id);

  client_result& result_;
  progress& live_;
  std::chrono::milliseconds max_retry_;
  id_tracker ids_;
  std::optional<std::uint64_t> last_id_;
  std::int64_t connection_start_us_ = 0;
  std::optional<std::int64_t> last_arrival_us_;  // of this run's messages, for longest_gap_us
};

}  // namespace ringcast::load
