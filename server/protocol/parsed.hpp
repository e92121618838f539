// The outcome of parsing outside input: a value, or a message saying what was wrong with it.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace ringcast {

template <class T>
struct parsed {
  std::optional<T> value;
  std::string error;  // set when !value; written for the client (goes into a 400 body)

  static parsed ok(T v) { return {std::move(v), {}}; }
  static parsed fail(std::string why) { return {std::nullopt, std::move(why)}; }
  explicit operator bool() const { return value.has_value(); }
};

}  // namespace ringcast
