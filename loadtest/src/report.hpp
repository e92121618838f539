#pragma once

#include <boost/json/value.hpp>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "admin_client.hpp"
#include "flags.hpp"
#include "proc_sampler.hpp"
#include "result.hpp"

namespace ringcast::load {

// Everything measured outside the clients: by the process that publishes and watches the server.
struct run_facts {
  std::uint64_t published = 0;  // publishes the server acknowledged with an id
  std::uint64_t publish_attempts = 0;
  std::map<std::string, std::uint64_t> publish_errors;
  std::uint64_t peak_connected = 0;
  std::optional<server_counters> stats_start, stats_end;
  std::string stats_error;
  std::optional<proc_sample> rss_base, rss_peak, cpu_start, cpu_end;
  std::optional<proc_sample> rss_connected;  // when publishing starts
  std::uint64_t connected_at_publish = 0;
  // The server sampled about once a second; seconds are counted from the first publish (negative
  // before it), so that a benchmark can compare memory and CPU at the same points of a run.
  struct timed_sample {
    double t_s = 0;
    proc_sample sample;
  };
  std::vector<timed_sample> server_timeline;
  std::uint64_t nofile_limit = 0;
  double elapsed_s = 0;
};

// The one JSON object printed on stdout (docs/loadtest.md lists its fields).
boost::json::object make_report(const options& opts, const client_result& r, const run_facts& f);
// The same for a human, on stderr.
std::string human_summary(const boost::json::object& report);

// JSON text as Boost.JSON writes it, except that numbers with a fraction part of zero or a modest
// exponent are written plainly: 500 rather than 5E2, 4348.8 rather than 4.3488E3
// (docs/loadtest.md).
std::string plain_json(const boost::json::value& v);

}  // namespace ringcast::load
