#include "runner.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/json.hpp>
#include <cstdio>
#include <iostream>

#include "publisher.hpp"
#include "report.hpp"
#include "verdict.hpp"
#include "worker.hpp"

namespace ringcast::load {

namespace asio = boost::asio;
namespace json = boost::json;
using clock = std::chrono::steady_clock;

namespace {

// Client indices [begin, end) of worker w out of k.
std::pair<std::size_t, std::size_t> share(std::size_t n, unsigned w, unsigned k) {
  return {n * w / k, n * (w + 1) / k};
}

void write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const auto n = ::write(fd, text.data(), text.size());
    if (n <= 0) return;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

std::string read_line(int fd) {
  std::string line;
  char ch = 0;
  while (::read(fd, &ch, 1) == 1 && ch != '\n')
    line += ch;
  return line;
}

// A forked worker: waits for "go", runs its clients, reports progress each second, then waits
// for the publisher's ids, books losses against them and sends its result. Lines on `out`:
// "P <progress json>" and finally "R <result json>".
[[noreturn]] void worker_process(const options& opts, const connector& net, unsigned w, int in,
                                 int out) {
  char go = 0;
  if (::read(in, &go, 1) != 1) _exit(3);
  asio::io_context io;
  const auto [begin, end] = share(opts.clients, w, opts.procs);
  worker clients(io, opts, net, begin, end, slice_for(w, opts.procs), opts.rate / opts.procs);
  asio::steady_timer tick(io), stop(io);
  std::function<void()> report = [&] {
    tick.expires_after(std::chrono::seconds(1));
    tick.async_wait([&](boost::system::error_code ec) {
      if (ec) return;
      write_all(out, "P " + json::serialize(clients.take_progress().to_json()) + "\n");
      report();
    });
  };
  clients.start();
  report();
  stop.expires_after(run_length(opts));
  stop.async_wait([&](boost::system::error_code) { io.stop(); });
  io.run();
  const auto ids = json::value_to<std::vector<std::uint64_t>>(json::parse(read_line(in)));
  const auto result = clients.finish(ids);
  clients.stop();
  write_all(out, "R " + json::serialize(result.to_json()) + "\n");
  _exit(0);
}

// The publishing, watching and merging side; owns the clients itself when --procs is 1.
class coordinator {
 public:
  coordinator(const options& opts, run_facts& facts) : opts_(opts), facts_(facts) {}

  client_result run() {
    // The TLS settings are read once, here: a worker that failed to read them could not say so.
    const connector net(opts_);
    std::vector<int> to_child, from_child;
    std::vector<pid_t> pids;
    if (opts_.procs > 1) {
      for (unsigned w = 0; w < opts_.procs; ++w) {
        int down[2], up[2];
        if (pipe(down) != 0 || pipe(up) != 0) throw std::runtime_error("pipe failed");
        std::fflush(nullptr);
        const pid_t pid = fork();
        if (pid < 0) throw std::runtime_error("fork failed");
        if (pid == 0) {
          ::close(down[1]), ::close(up[0]);
          for (int fd : to_child)
            ::close(fd);
          for (int fd : from_child)
            ::close(fd);
          worker_process(opts_, net, w, down[0], up[1]);
        }
        ::close(down[0]), ::close(up[1]);
        to_child.push_back(down[1]);
        from_child.push_back(up[0]);
        pids.push_back(pid);
      }
    }

    // Before any client exists: the baseline the report subtracts.
    facts_.stats_start = scrape_stats(opts_, &facts_.stats_error);
    facts_.rss_base = sample_processes(opts_.server_pids);

    asio::io_context io;
    std::unique_ptr<worker> local;
    if (opts_.procs == 1) {
      local =
          std::make_unique<worker>(io, opts_, net, 0, opts_.clients, slice_for(0, 1), opts_.rate);
    }
    latest_.resize(opts_.procs);
    std::vector<std::optional<client_result>> results(opts_.procs);
    std::vector<std::unique_ptr<asio::posix::stream_descriptor>> pipes;
    std::vector<std::string> pending(opts_.procs);
    std::vector<std::array<char, 64 * 1024>> chunks(opts_.procs);
    std::size_t results_left = opts_.procs;

    std::function<void(unsigned)> read_child = [&](unsigned w) {
      pipes[w]->async_read_some(asio::buffer(chunks[w]), [&, w](boost::system::error_code ec,
                                                                std::size_t n) {
        if (ec) return;
        pending[w].append(chunks[w].data(), n);
        for (auto nl = pending[w].find('\n'); nl != std::string::npos; nl = pending[w].find('\n')) {
          const auto line = pending[w].substr(0, nl);
          pending[w].erase(0, nl + 1);
          if (line.starts_with("P ")) latest_[w] = progress::from_json(json::parse(line.substr(2)));
          if (line.starts_with("R ")) {
            results[w] = client_result::from_json(json::parse(line.substr(2)));
            if (--results_left == 0) io.stop();
          }
        }
        read_child(w);
      });
    };
    for (unsigned w = 0; w < from_child.size(); ++w) {
      pipes.push_back(std::make_unique<asio::posix::stream_descriptor>(io, from_child[w]));
      read_child(w);
    }
    for (int fd : to_child)
      write_all(fd, "g");

    publisher pub(io, opts_);
    asio::steady_timer publish_start(io), publish_stop(io), cpu_stop(io), tick(io), finish(io);
    start_ = clock::now();
    if (local) local->start();
    publish_start.expires_after(opts_.warmup);
    publish_start.async_wait([&](boost::system::error_code) {
      // Connected and not yet sent anything: the cost of a connection at rest.
      publish_at_ = clock::now();
      facts_.cpu_start = sample_processes(opts_.server_pids);
      facts_.rss_connected = facts_.cpu_start;
      note(facts_.cpu_start);
      facts_.connected_at_publish = connected_now(local.get());
      pub.start();
    });
    publish_stop.expires_after(opts_.duration);
    publish_stop.async_wait([&](boost::system::error_code) { pub.stop(); });
    // The CPU reading ends when the last publish has been delivered: at once, or its spread later.
    cpu_stop.expires_after(opts_.duration + opts_.spread);
    cpu_stop.async_wait([&](boost::system::error_code) {
      facts_.cpu_end = sample_processes(opts_.server_pids);
      note(facts_.cpu_end);
    });
    std::function<void()> every_second = [&] {
      tick.expires_after(std::chrono::seconds(1));
      tick.async_wait([&](boost::system::error_code ec) {
        if (ec) return;
        if (local) latest_[0] = local->take_progress();
        print_progress(pub);
        every_second();
      });
    };
    every_second();
    finish.expires_after(run_length(opts_));
    finish.async_wait([&](boost::system::error_code) {
      tick.cancel();
      // Still connected: the end reading sees the same sessions the start reading did not.
      std::string why;
      facts_.stats_end = scrape_stats(opts_, &why);
      if (!facts_.stats_end && facts_.stats_error.empty()) facts_.stats_error = why;
      if (local) {
        results[0] = local->finish(pub.ids());
        local->stop();
        io.stop();
        return;
      }
      const auto ids = json::serialize(json::value_from(pub.ids())) + "\n";
      for (int fd : to_child)
        write_all(fd, ids);
    });
    io.run();

    for (const auto pid : pids)
      waitpid(pid, nullptr, 0);
    for (int fd : to_child)
      ::close(fd);
    facts_.published = pub.ids().size();
    facts_.publish_attempts = pub.sent();
    facts_.publish_errors = pub.errors();
    facts_.elapsed_s = std::chrono::duration<double>(clock::now() - start_).count();

    client_result merged;
    for (auto& r : results) {
      if (!r) throw std::runtime_error("a worker process ended without a result");
      merged.merge(*r);
    }
    return merged;
  }

 private:
  // Clients connected now (workers: as of their last progress line, at most a second old).
  std::uint64_t connected_now(const worker* local) const {
    if (local) return local->connected();
    std::uint64_t n = 0;
    for (const auto& p : latest_)
      n += p.connected;
    return n;
  }

  void print_progress(const publisher& pub) {
    progress all;
    for (const auto& p : latest_)
      all.merge(p);
    facts_.peak_connected = std::max(facts_.peak_connected, all.connected);
    if (const auto s = sample_processes(opts_.server_pids)) {
      if (!facts_.rss_peak || s->rss_kb > facts_.rss_peak->rss_kb) facts_.rss_peak = s;
      note(s);
    }
    const auto t = std::chrono::duration<double>(clock::now() - start_).count();
    // The clients' errors and the publisher's (a 401 for every publish is an error too).
    std::uint64_t errors = all.errors;
    for (const auto& [kind, n] : pub.errors())
      errors += n;
    fmt::print(stderr,
               "[{:5.1f}s] connected {}/{}  msgs/s {}  p99 {:.2f} ms  published {}  errors {}\n", t,
               all.connected, opts_.clients, all.messages - last_messages_,
               all.interval_latency_us.percentile(99) / 1000.0, pub.ids().size(), errors);
    last_messages_ = all.messages;
    // Each worker's interval histogram counts once: a stale one must not be merged again.
    for (auto& p : latest_)
      p.interval_latency_us = {};
  }

  // Adds a server sample to the timeline, timed from the first publish (its due time until then).
  void note(const std::optional<proc_sample>& s) {
    if (!s) return;
    const auto publish = publish_at_ ? *publish_at_ : start_ + opts_.warmup;
    facts_.server_timeline.push_back(
        {std::chrono::duration<double>(clock::now() - publish).count(), *s});
  }

  const options& opts_;
  run_facts& facts_;
  std::optional<clock::time_point> publish_at_;
  std::vector<progress> latest_;
  std::uint64_t last_messages_ = 0;
  clock::time_point start_;
};

}  // namespace

int run(const options& opts, std::uint64_t nofile_limit) {
  run_facts facts;
  facts.nofile_limit = nofile_limit;
  coordinator c(opts, facts);
  const auto result = c.run();
  const auto report = make_report(opts, result, facts);
  std::cerr << human_summary(report);
  std::cout << plain_json(report) << std::endl;
  int status = 0;
  for (const auto& why : publish_failures(facts)) {
    fmt::print(stderr, "ringcast-load: {}\n", why);
    status = 1;
  }
  if (!opts.expect_zero_loss) return status;
  const auto failures = zero_loss_failures(result, facts);
  for (const auto& why : failures)
    fmt::print(stderr, "--expect-zero-loss: {}\n", why);
  return failures.empty() ? status : 1;
}

}  // namespace ringcast::load
