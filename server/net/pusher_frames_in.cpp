// What a Pusher client sends (docs/pusher.md, "Frames"): pings, subscriptions, sign-in and client
// events, each checked by the network-free core (server/pusher/) and acted on here.
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>

#include <fmt/format.h>

#include "net/pusher_connection.hpp"
#include "net/pusher_door.hpp"
#include "pusher/pusher_auth.hpp"
#include "pusher/pusher_client_event.hpp"
#include "pusher/pusher_server_frames.hpp"
#include "pusher/pusher_subscription.hpp"

namespace ringcast {
namespace {

template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;

pusher::presence_member as_presence_member(const pusher_member& m) {
  boost::system::error_code ec;
  boost::json::value info = boost::json::parse(m.user_info, ec);
  return {m.user_id, ec ? boost::json::value(nullptr) : std::move(info)};
}

}  // namespace

void pusher_connection::on_message(std::string_view text) {
  if (!current_session()) return;  // ending: the client's words no longer matter
  auto parsed = pusher::parse_client_frame(text);
  std::visit(overloaded{
                 [&](pusher::ping_frame&) { send_text(pusher::pong_frame_text()); },
                 [&](pusher::pong_frame&) {},  // its activity is recorded
                 [&](pusher::subscribe_frame& f) { on_subscribe(f); },
                 [&](pusher::unsubscribe_frame& f) { on_unsubscribe(f); },
                 [&](pusher::signin_frame& f) { on_signin(f); },
                 [&](pusher::client_event_frame& f) { on_client_event(f); },
                 [&](pusher::frame_refusal& r) {
                   ++context().stats().client_errors;
                   refuse(r.code, r.message);
                 },
             },
             parsed);
}

bool pusher_connection::listens_to(std::string_view channel) {
  const session* s = current_session();
  if (!s) return false;
  const auto& channels = s->channels();
  return std::find(channels.begin(), channels.end(), channel) != channels.end();
}

pusher_connection::presence_seat* pusher_connection::seat_on(std::string_view channel) {
  if (!occasional_) return nullptr;
  auto& seats = occasional_->presence;
  auto it = std::find_if(seats.begin(), seats.end(),
                         [&](const presence_seat& p) { return p.channel == channel; });
  return it == seats.end() ? nullptr : &*it;
}

void pusher_connection::on_subscribe(pusher::subscribe_frame& f) {
  session* s = current_session();
  // Subscribed already: told so again (a presence channel when its member list came).
  if (listens_to(f.channel)) {
    if (!seat_on(f.channel)) send_text(pusher::subscription_succeeded(f.channel));
    return;
  }
  auto verdict = pusher::check_subscription(door().app(), socket_id_, f);
  if (auto* refusal = std::get_if<pusher::subscription_refusal>(&verdict)) {
    ++context().stats().client_errors;
    send_text(pusher::subscription_error(f.channel, *refusal));
    return;
  }
  auto& grant = std::get<pusher::subscription_grant>(verdict);
  // The signed-in user's channel does not count against the limit.
  const std::size_t limit = max_channels + (signed_in().empty() ? 0 : 1);
  if (!context().sessions().subscribe(*s, {f.channel}, limit)) {
    ++context().stats().client_errors;
    send_text(pusher::subscription_error(
        f.channel,
        {"LimitReached", fmt::format("at most {} channels per connection", max_channels), 400}));
    return;
  }
  if (!grant.member) {
    send_text(pusher::subscription_succeeded(f.channel));
    after_subscribed(f.channel, grant.traits.cache);
    return;
  }
  occasional().presence.push_back({f.channel, grant.member->user_id, true});
  door().channels().join_presence(
      socket_id_, f.channel,
      {grant.member->user_id, boost::json::serialize(grant.member->user_info)},
      context().io().get_executor(),
      [weak = weak_from_this(),
       channel = f.channel](std::optional<std::vector<pusher_member>> members) {
        if (auto c = std::static_pointer_cast<pusher_connection>(weak.lock()))
          c->members_known(channel, members);
      });
}

void pusher_connection::members_known(const std::string& channel,
                                      const std::optional<std::vector<pusher_member>>& members) {
  presence_seat* seat = seat_on(channel);
  if (!seat || !seat->waiting || !current_session()) return;  // left meanwhile
  if (!members) {
    send_text(pusher::subscription_error(
        channel, {"ServiceUnavailable", "the channel's members cannot be read now", 503}));
    on_unsubscribe({channel});
    return;
  }
  seat->waiting = false;
  std::vector<pusher::presence_member> list;
  list.reserve(members->size());
  for (const auto& m : *members)
    list.push_back(as_presence_member(m));
  send_text(pusher::presence_subscription_succeeded(channel, list));
  after_subscribed(channel, pusher::traits_of(channel).cache);
}

void pusher_connection::on_unsubscribe(const pusher::unsubscribe_frame& f) {
  session* s = current_session();
  if (!listens_to(f.channel)) return;
  if (seat_on(f.channel)) {
    // Before the hub's unsubscribe: the member is removed before the channel is vacated.
    door().channels().leave_presence(socket_id_, f.channel);
    std::erase_if(occasional_->presence,
                  [&](const presence_seat& p) { return p.channel == f.channel; });
  }
  context().sessions().unsubscribe(*s, {f.channel});
}

// What a subscription gets after subscription_succeeded: the promotions in force on the channel
// (sticky, as a ringcast client gets them on connect), then a cache channel's last event.
void pusher_connection::after_subscribed(const std::string& channel, bool cache) {
  std::uint64_t sent = 0;
  for (const message_ptr& m : context().sessions().sticky_messages()) {
    if (m->to != audience::channel || m->target != channel || m->is_expired()) continue;
    deliver(m);
    sent = m->id;
  }
  if (cache) send_cached(channel, sent);
}

// A cache channel's last event, or pusher:cache_miss: the newest message on the channel that
// history still holds and that has not expired (not again if it is the sticky `sent`).
void pusher_connection::send_cached(const std::string& channel, std::uint64_t sent) {
  hub& h = context().sessions();
  for (const message_ptr& m : h.newest(h.settings().history)) {
    if (m->to != audience::channel || m->target != channel || m->is_expired()) continue;
    if (m->id > sent) deliver(m);
    return;
  }
  if (sent) return;  // a promotion in force was its last event
  send_text(pusher::cache_miss(channel));
  door().channels().cache_miss(channel);
}

void pusher_connection::on_signin(const pusher::signin_frame& f) {
  auto verdict = pusher::check_signin(door().app(), socket_id_, f);
  if (auto* refusal = std::get_if<pusher::frame_refusal>(&verdict)) {
    ++context().stats().client_errors;
    refuse(refusal->code, refusal->message);
    return;
  }
  auto& user = std::get<pusher::signed_in_user>(verdict);
  session& s = *current_session();
  hub& h = context().sessions();
  std::string& signed_in = occasional().signed_in;
  if (!signed_in.empty())
    h.unsubscribe(s, {std::string(pusher::server_to_user_prefix) + signed_in});
  signed_in = user.id;
  h.subscribe(s, {std::string(pusher::server_to_user_prefix) + signed_in}, max_channels + 1);
  send_text(pusher::signin_success(user.user_data));
}

// Relayed through the node's publish path, so it reaches this channel's subscribers on every
// loop and node, and excluded from its sender by except_socket.
void pusher_connection::on_client_event(pusher::client_event_frame& f) {
  if (auto refusal = pusher::check_client_event(door().app(), f, listens_to(f.channel))) {
    ++context().stats().client_errors;
    refuse(refusal->code, refusal->message);
    return;
  }
  if (!take_client_event_token()) {
    ++context().stats().client_errors;
    send_text(pusher::error_frame(pusher::client_event_rate_limit,
                                  fmt::format("client event '{}' refused: more than {} a second",
                                              f.event, client_event_rate)));
    return;
  }
  publish_request req;
  req.channel = f.channel;
  req.data_json = f.data ? boost::json::serialize(boost::json::string_view(*f.data)) : "null";
  req.event = f.event;
  req.except_socket = socket_id_;
  if (const presence_seat* seat = seat_on(f.channel)) req.sender_user_id = seat->user_id;
  door().channels().client_event(f.channel, f.event, f.data, socket_id_,
                                 req.sender_user_id.empty()
                                     ? std::nullopt
                                     : std::optional<std::string_view>(req.sender_user_id));
  door().messages().publish(req, context().io().get_executor(), [](auto) {});
}

// A member's own connections are told nothing of it (Pusher tells the others): with --redis a
// node hears its own member's change back from Redis, after that member's subscription succeeded.
void pusher_connection::member_added(const std::string& channel, const pusher_member& member) {
  const presence_seat* seat = seat_on(channel);
  if (!seat || seat->waiting || seat->user_id == member.user_id || !current_session()) return;
  send_text(pusher::member_added(channel, as_presence_member(member)));
}

void pusher_connection::member_removed(const std::string& channel, const std::string& user_id) {
  const presence_seat* seat = seat_on(channel);
  if (!seat || seat->waiting || seat->user_id == user_id || !current_session()) return;
  send_text(pusher::member_removed(channel, user_id));
}

}  // namespace ringcast
