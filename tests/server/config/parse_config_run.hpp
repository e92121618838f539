// For the flag tests: parse_config on "ringcast <args...>" with a fake environment, and files in a
// directory of their own.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "config/parse_config.hpp"

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

// A file in a fresh directory, removed with it.
class temp_dir {
 public:
  temp_dir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "ringcast-conf.XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~temp_dir() { std::filesystem::remove_all(path_); }
  std::string write(const std::string& name, const std::string& text) const {
    const auto file = (path_ / name).string();
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace ringcast::test
