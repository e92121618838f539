#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "arrivals.hpp"
#include "histogram.hpp"

namespace ringcast::load {

// What one worker measured about its clients. Everything here merges exactly: counters add,
// histograms merge bucket by bucket, per-message maxima take the max.
struct client_result {
  std::uint64_t clients = 0;
  histogram connect_us;  // TCP connect start -> hello (ws, sse) or connected (poll)
  // ws only: TCP connect start -> the 101 read, the one event every server kind answers with
  // (Nchan sends no hello, and its connect_us ends at its 101).
  histogram upgrade_us;
  histogram latency_us;         // live deliveries: receive time - publish time
  histogram replay_latency_us;  // messages replayed on resume (since / Last-Event-ID)
  // Per publish seq: the latest live arrival over all clients (-1: none arrived).
  std::vector<std::int64_t> fanout_us;
  // Every stamped delivery (live and replayed), by whole seconds after its publish.
  arrival_bins arrivals;

  std::uint64_t expected = 0;
  std::uint64_t received = 0;
  std::uint64_t lost = 0;
  std::uint64_t duplicates = 0;
  std::uint64_t foreign = 0;  // messages not from this run's publisher

  std::uint64_t connects = 0;    // successful connections (hello seen / poll connected)
  std::uint64_t reconnects = 0;  // connections after a client's first one
  std::uint64_t churned = 0;     // disconnects the tool chose (--churn)
  std::uint64_t polls = 0;       // long-poll requests answered
  std::uint64_t resumed = 0;     // hellos with "resumed":true
  std::uint64_t gaps = 0;        // hellos or poll replies with "gap":true
  // The longest wait between two messages of this run at one client, live or replayed (a
  // server's pause, or a reconnect's, as its clients see it); merged by max.
  std::uint64_t longest_gap_us = 0;
  // ws connections, from the hello (nchan: the handshake) to their end: the bytes their sockets
  // received (the kernel's count, framing and compression included) and the messages read.
  std::uint64_t ws_socket_bytes = 0;
  std::uint64_t ws_socket_messages = 0;
  std::map<std::string, std::uint64_t> server_reconnects;  // "reconnect" by reason
  std::map<std::string, std::uint64_t> server_closes;      // "close" by reason
  std::map<std::string, std::uint64_t> errors;             // by kind

  void merge(const client_result& other);
  boost::json::value to_json() const;
  static client_result from_json(const boost::json::value& v);
};

// One progress tick from a worker: small, sent every second.
struct progress {
  std::uint64_t connected = 0;
  std::uint64_t messages = 0;  // cumulative deliveries
  std::uint64_t errors = 0;    // cumulative
  histogram interval_latency_us;

  void merge(const progress& other);
  boost::json::value to_json() const;
  static progress from_json(const boost::json::value& v);
};

void add_counts(std::map<std::string, std::uint64_t>& into,
                const std::map<std::string, std::uint64_t>& from);

}  // namespace ringcast::load
