// For the flag tests: parse_config on "ringcast <args...>" with a fake environment.
#pragma once

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "config.hpp"
#include "parse_config.hpp"

namespace ringcast::test {

struct run {
  config_outcome outcome;
  std::string out;
  std::string err;

  explicit run(std::vector<std::string> args, std::map<std::string, std::string> env = {}) {
    std::vector<const char*> argv{"ringcast"};
    for (const auto& a : args)
      argv.push_back(a.c_str());
    std::ostringstream out_stream, err_stream;
    outcome = parse_config(static_cast<int>(argv.size()), argv.data(), out_stream, err_stream,
                           [&env](const char* name) -> const char* {
                             const auto it = env.find(name);
                             return it == env.end() ? nullptr : it->second.c_str();
                           });
    out = out_stream.str();
    err = err_stream.str();
  }

  const config& cfg() const { return outcome.cfg.value(); }
};

}  // namespace ringcast::test
