// The query parameters every client endpoint (/ws, /sse, /poll) takes; docs/protocol.md, "Sessions"
// and "Message ids and resume".
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/parsed.hpp"

namespace ringcast {

constexpr std::size_t max_identifier_length = 64;
constexpr std::size_t max_channels_per_client = 32;
constexpr std::size_t max_rewind_count = 100;

// 1-64 characters of [A-Za-z0-9_.:@-]: user ids, session ids and channel names.
bool valid_identifier(std::string_view text);
// The rule above as error messages state it after the field's name: "user: 1-64 characters of ...".
constexpr std::string_view identifier_rule = "1-64 characters of [A-Za-z0-9_.:@-]";

// A message id: a decimal unsigned 64-bit integer without sign, spaces or leading '+'.
std::optional<std::uint64_t> parse_message_id(std::string_view text);

struct client_params {
  std::string user;
  std::string sid = "0";
  bool sid_given = false;              // `sid=` was in the query (not the default)
  std::optional<std::uint64_t> since;  // resume point; none means "from now"
  std::vector<std::string> channels;   // de-duplicated, in the order given
  std::string token;                   // `token=`: a client token (client_auth.hpp)
  // `rewind=N` (a count, 1-100) or `rewind=DURATION` (with a unit): on a connect without `since`,
  // the last N messages, or those of the last DURATION, before live ones. At most one is set.
  std::optional<std::size_t> rewind_count;
  std::optional<std::chrono::milliseconds> rewind_for;
  // Set at admission from rewind_for (the wall clock then): messages published at or after this
  // Unix ms are rewound.
  std::optional<std::int64_t> rewind_after_ms;

  // Set from a verified client token or the connect hook's answer, never from the query.
  std::optional<std::vector<std::string>> allowed_channels;      // grant_channels(); none: any
  std::optional<std::chrono::steady_clock::time_point> expires;  // the token's `exp`
};

// The one rule for a grant of channels, whoever makes it (a client token's `channels` claim, the
// connect hook's `channels` answer): from then on the session may join only these, on connect as
// on a later `subscribe` (hub::may_subscribe refuses the rest). Grants narrow each other: with a
// token and a hook, the session may join the channels both granted (their intersection).
void grant_channels(client_params& params, const std::vector<std::string>& granted);
// Whether `channel` is within a session's grant (none: no grant was made, any channel is).
bool within_grant(const std::optional<std::vector<std::string>>& allowed, std::string_view channel);
// The first of `params.channels` outside what was granted, if any.
std::optional<std::string> channel_not_granted(const client_params& params);
// Drops from `params.channels` what was not granted (the hook's channels under a token's grant).
void keep_granted_channels(client_params& params);

// Parses the query of a request target such as "/ws?user=alice&sid=t1&since=41&channels=a,b".
// Percent-decoding applies (Boost.URL) to keys and values. Unknown parameters are ignored; one of
// user, sid, since, channels, token or rewind given twice is an error; so are a missing/invalid
// user, an invalid sid, since or channel name, more than 32 distinct channels, and a rewind that
// is neither a bare count of 1-100 nor a duration with a unit above 0 (its upper bound,
// --session-ttl, is the caller's). `channels=` (empty)
// means no channels; "a,,b" is an error. The error text is short and names the parameter:
// "since: ...". With `user_required` false (the server checks client tokens, whose `sub` names
// the user) a missing user is left empty.
parsed<client_params> parse_client_params(std::string_view target, bool user_required = true);

}  // namespace ringcast
