// The handover state's records are plain aggregates (handover_state.hpp), each declared once:
// this walks their fields in declaration order (Boost.PFR), so that the codec's writing and
// reading, the smallest size of a record (for the reader's count checks) and the copy between a
// record in memory and its state (`carry`: capture and restore) are all driven by that one
// declaration. A new field is one line in its record and a bump of its format (and a name, in a
// record whose refusals name its fields); a field of a type with no encoding fails the build.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/pfr.hpp>

#include "upgrade/state_bytes.hpp"

namespace ringcast::upgrade {

template <class T>
inline constexpr bool is_vector = false;
template <class T>
inline constexpr bool is_vector<std::vector<T>> = true;
template <class T>
inline constexpr bool is_optional = false;
template <class T>
inline constexpr bool is_optional<std::optional<T>> = true;
template <class T>
inline constexpr bool is_record = std::is_aggregate_v<T>&& std::is_class_v<T> && !is_vector<T>;

template <class T>
inline constexpr bool unencodable = false;

// Applies `f(index_constant)` to every field index of the record T.
template <class T, class F>
constexpr void for_each_index(F&& f) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (f(std::integral_constant<std::size_t, I>{}), ...);
  }
  (std::make_index_sequence<boost::pfr::tuple_size_v<T>>{});
}

// What a list of T is called in a refusal: a record's own `plural`, else a generic name.
template <class T>
constexpr const char* plural_of() {
  if constexpr (requires { T::plural; })
    return T::plural;
  else if constexpr (std::is_same_v<T, std::string>)
    return "strings";
  else
    return "list elements";
}

// The fewest bytes a T takes: the reader refuses a count of them the remaining bytes cannot hold.
template <class T>
constexpr std::size_t min_bytes() {
  if constexpr (std::is_same_v<T, bool>) {
    return 1;
  } else if constexpr (std::is_enum_v<T>) {
    return sizeof(std::underlying_type_t<T>);
  } else if constexpr (std::is_integral_v<T>) {
    return sizeof(T);
  } else if constexpr (std::is_same_v<T, std::string> || is_vector<T>) {
    return 4;  // the count
  } else if constexpr (is_optional<T>) {
    return 1;  // the flag
  } else if constexpr (is_record<T>) {
    std::size_t n = 0;
    for_each_index<T>([&](auto i) { n += min_bytes<boost::pfr::tuple_element_t<i, T>>(); });
    return n;
  } else {
    static_assert(unencodable<T>, "a field of a type the handover state has no encoding for");
    return 0;
  }
}

template <class T>
void put_field(byte_writer& w, const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    w.put_bool(v);
  } else if constexpr (std::is_enum_v<T>) {
    w.put(static_cast<std::underlying_type_t<T>>(v));
  } else if constexpr (std::is_integral_v<T>) {
    w.put(v);
  } else if constexpr (std::is_same_v<T, std::string>) {
    w.put_string(v);
  } else if constexpr (is_vector<T>) {
    w.put_count(v.size());
    for (const auto& e : v)
      put_field(w, e);
  } else if constexpr (is_optional<T>) {
    w.put_bool(v.has_value());
    if (v) put_field(w, *v);
  } else {
    static_assert(is_record<T> && min_bytes<T>() > 0);
    boost::pfr::for_each_field(v, [&](const auto& field) { put_field(w, field); });
  }
}

// Reads a T as put_field wrote it. Ranges and references are the codec's to check afterwards
// (state_codec.cpp): this only refuses bytes that are no T at all.
template <class T>
void get_field(byte_reader& r, T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    v = r.get_bool();
  } else if constexpr (std::is_enum_v<T>) {
    v = static_cast<T>(r.get<std::underlying_type_t<T>>());
  } else if constexpr (std::is_integral_v<T>) {
    v = r.get<T>();
  } else if constexpr (std::is_same_v<T, std::string>) {
    v = r.get_string("a string");
  } else if constexpr (is_vector<T>) {
    using element = typename T::value_type;
    v.resize(r.get_count(min_bytes<element>(), plural_of<element>()));
    for (auto& e : v)
      get_field(r, e);
  } else if constexpr (is_optional<T>) {
    v.reset();
    if (r.get_bool()) get_field(r, v.emplace());
  } else if constexpr (requires { T::names; }) {
    // A record that names its fields: a refusal says which one, from the outermost in.
    static_assert(std::size(T::names) == boost::pfr::tuple_size_v<T>, "a name for every field");
    for_each_index<T>([&](auto i) {
      try {
        get_field(r, boost::pfr::get<i>(v));
      } catch (const state_error& e) {
        throw state_error(std::string(T::names[i]) + ": " + e.what());
      }
    });
  } else {
    static_assert(is_record<T> && min_bytes<T>() > 0);
    boost::pfr::for_each_field(v, [&](auto& field) { get_field(r, field); });
  }
}

template <class T>
inline constexpr bool is_atomic = false;
template <class T>
inline constexpr bool is_atomic<std::atomic<T>> = true;
template <class T>
inline constexpr bool is_duration = false;
template <class Rep, class Period>
inline constexpr bool is_duration<std::chrono::duration<Rep, Period>> = true;

// One field of a record in memory to its state or back: the same type is copied; an atomic (a
// count shared between loops) is read or written relaxed; an enum and its number are cast, and a
// duration and its count; anything else goes through `convert` (steady times to and from times
// relative to the capture, a message and its id).
template <class From, class To, class Convert>
void carry_field(const From& f, To& t, const Convert& convert) {
  if constexpr (is_atomic<From>) {
    carry_field(f.load(std::memory_order_relaxed), t, convert);
  } else if constexpr (is_atomic<To>) {
    typename To::value_type v{};
    carry_field(f, v, convert);
    t.store(v, std::memory_order_relaxed);
  } else if constexpr (std::is_same_v<From, To>) {
    t = f;
  } else if constexpr (std::is_enum_v<From> || std::is_enum_v<To>) {
    t = static_cast<To>(f);
  } else if constexpr (is_duration<From> && std::is_integral_v<To>) {
    t = f.count();
  } else if constexpr (std::is_integral_v<From> && is_duration<To>) {
    t = To(f);
  } else {
    t = convert(f);
  }
}

// Copies a record field by field into another of the same shape whose field types may differ (a
// session or a message in memory and its state), each field as carry_field says.
template <class From, class To, class Convert>
void carry(const From& from, To& to, const Convert& convert) {
  static_assert(boost::pfr::tuple_size_v<From> == boost::pfr::tuple_size_v<To>,
                "a record and its state have the same fields");
  for_each_index<From>(
      [&](auto i) { carry_field(boost::pfr::get<i>(from), boost::pfr::get<i>(to), convert); });
}

// ... for a record that needs no conversion of its own.
struct no_conversion {
  template <class T>
  int operator()(const T&) const {
    static_assert(unencodable<T>, "a field that carry cannot convert without a conversion");
    return 0;
  }
};
template <class From, class To>
void carry(const From& from, To& to) {
  carry(from, to, no_conversion{});
}

}  // namespace ringcast::upgrade
