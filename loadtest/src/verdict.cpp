#include "verdict.hpp"

#include <fmt/format.h>

namespace ringcast::load {
namespace {

// "publish_http_401 x3, publish_connect x1"
std::string counts_text(const std::map<std::string, std::uint64_t>& counts) {
  std::string text;
  for (const auto& [kind, n] : counts)
    text += fmt::format("{}{} x{}", text.empty() ? "" : ", ", kind, n);
  return text;
}

std::string no_publish_acknowledged(const run_facts& f) {
  return fmt::format("no publish was acknowledged ({} attempted{})", f.publish_attempts,
                     f.publish_errors.empty() ? "" : ": " + counts_text(f.publish_errors));
}

}  // namespace

std::vector<std::string> publish_failures(const run_facts& f) {
  if (f.publish_attempts > 0 && f.published == 0) return {no_publish_acknowledged(f)};
  const auto unauthorized = f.publish_errors.find("publish_http_401");
  if (unauthorized == f.publish_errors.end()) return {};
  return {fmt::format("{} of {} publishes refused with 401: the admin token is missing or wrong",
                      unauthorized->second, f.publish_attempts)};
}

std::vector<std::string> zero_loss_failures(const client_result& r, const run_facts& f) {
  std::vector<std::string> why;
  if (r.connects == 0) {
    why.push_back(r.errors.empty() ? "no client connected"
                                   : "no client connected (" + counts_text(r.errors) + ")");
  }
  if (f.published == 0) why.push_back(no_publish_acknowledged(f));
  std::uint64_t refused = 0;
  for (const auto& [kind, n] : f.publish_errors)
    refused += n;
  if (refused > 0 && f.published > 0) {
    why.push_back(fmt::format("{} of {} publishes failed ({})", refused, f.publish_attempts,
                              counts_text(f.publish_errors)));
  }
  if (r.lost > 0) why.push_back(fmt::format("{} messages lost", r.lost));
  if (r.duplicates > 0) why.push_back(fmt::format("{} messages duplicated", r.duplicates));
  return why;
}

}  // namespace ringcast::load
