// Client tokens: verification (client_auth), the flags that configure it (config), and the
// session's token expiry and channel restriction (hub). Keys are made here with OpenSSL and
// tokens signed with libjwt, the library the server verifies with.
#include "protocol/client_auth.hpp"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "../config/parse_config_run.hpp"

#include <jwt.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>

#include "../core/hub_fixture.hpp"
#include "config/config.hpp"
#include "net/node_credentials.hpp"

namespace ringcast {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t now_s = 1'800'000'000;
constexpr const char* secret = "correct horse battery staple";

struct key_pair {
  std::string private_pem;
  std::string public_pem;
};

std::string bio_text(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<std::size_t>(size));
}

key_pair generate(EVP_PKEY* key) {
  key_pair pair;
  BIO* priv = BIO_new(BIO_s_mem());
  BIO* pub = BIO_new(BIO_s_mem());
  PEM_write_bio_PrivateKey(priv, key, nullptr, nullptr, 0, nullptr, nullptr);
  PEM_write_bio_PUBKEY(pub, key);
  pair.private_pem = bio_text(priv);
  pair.public_pem = bio_text(pub);
  BIO_free(priv);
  BIO_free(pub);
  EVP_PKEY_free(key);
  return pair;
}

// Made once: RSA key generation takes a while.
const key_pair& rsa_key() {
  static const key_pair pair =
      generate(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", std::size_t{2048}));
  return pair;
}
const key_pair& other_rsa_key() {
  static const key_pair pair =
      generate(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", std::size_t{2048}));
  return pair;
}
const key_pair& ec_key() {
  static const key_pair pair = generate(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  return pair;
}

// A token with these claims (a JSON object) signed by `alg` with `key` (libjwt).
std::string sign(jwt_alg_t alg, std::string_view key, const std::string& claims) {
  jwt_t* jwt = nullptr;
  EXPECT_EQ(jwt_new(&jwt), 0);
  EXPECT_EQ(jwt_add_grants_json(jwt, claims.c_str()), 0);
  EXPECT_EQ(jwt_set_alg(jwt, alg,
                        key.empty() ? nullptr : reinterpret_cast<const unsigned char*>(key.data()),
                        static_cast<int>(key.size())),
            0);
  char* text = jwt_encode_str(jwt);
  std::string token = text ? text : "";
  std::free(text);
  jwt_free(jwt);
  return token;
}

std::string hs256(const std::string& claims, std::string_view key = secret) {
  return sign(JWT_ALG_HS256, key, claims);
}

token_verifier hs_verifier(bool require_exp = false) {
  return std::move(*token_verifier::with_secret(secret, require_exp).value);
}

token_verifier pem_verifier(const std::string& pem) {
  auto v = token_verifier::with_public_key(pem, false);
  EXPECT_TRUE(v) << v.error;
  return std::move(*v.value);
}

token_claims verify_ok(const token_verifier& v, const std::string& token) {
  auto claims = v.verify(token, now_s);
  EXPECT_TRUE(claims) << claims.error;
  return claims.value.value_or(token_claims{});
}

std::string verify_error(const token_verifier& v, const std::string& token) {
  auto claims = v.verify(token, now_s);
  EXPECT_FALSE(claims) << "accepted " << token;
  return claims.error;
}

TEST(ClientTokens, ValidHs256) {
  const auto claims = verify_ok(hs_verifier(), hs256(R"({"sub":"alice","exp":1800000060})"));
  EXPECT_EQ(claims.sub, "alice");
  EXPECT_EQ(claims.exp, 1'800'000'060);
  EXPECT_EQ(claims.sid, std::nullopt);
  EXPECT_EQ(claims.channels, std::nullopt);
}

TEST(ClientTokens, AllClaims) {
  const auto claims = verify_ok(
      hs_verifier(),
      hs256(R"({"sub":"bob","sid":"tab1","channels":["news","deals"],"exp":1800000060.5})"));
  EXPECT_EQ(claims.sub, "bob");
  EXPECT_EQ(claims.sid, "tab1");
  EXPECT_EQ(claims.channels, (std::vector<std::string>{"news", "deals"}));
  EXPECT_EQ(claims.exp, 1'800'000'060);  // a NumericDate may have a fraction
}

TEST(ClientTokens, ExpiredAtExpAndAfter) {
  const auto v = hs_verifier();
  EXPECT_EQ(verify_error(v, hs256(R"({"sub":"a","exp":1800000000})")), "token: expired");
  EXPECT_EQ(verify_error(v, hs256(R"({"sub":"a","exp":1})")), "token: expired");
  verify_ok(v, hs256(R"({"sub":"a","exp":1800000001})"));
}

TEST(ClientTokens, RequireExp) {
  EXPECT_EQ(verify_error(hs_verifier(true), hs256(R"({"sub":"a"})")), "token: exp: required");
  verify_ok(hs_verifier(false), hs256(R"({"sub":"a"})"));
  verify_ok(hs_verifier(true), hs256(R"({"sub":"a","exp":1800000100})"));
}

TEST(ClientTokens, NotBefore) {
  EXPECT_EQ(verify_error(hs_verifier(), hs256(R"({"sub":"a","nbf":1800000010})")),
            "token: not valid yet (nbf)");
  verify_ok(hs_verifier(), hs256(R"({"sub":"a","nbf":1800000000})"));
}

TEST(ClientTokens, WrongSecretOrTamperedBody) {
  const auto v = hs_verifier();
  EXPECT_EQ(verify_error(v, hs256(R"({"sub":"alice"})", "another secret")),
            "token: malformed or bad signature");
  // alice's signature on a body that says mallory.
  const std::string alice = hs256(R"({"sub":"alice"})");
  const std::string mallory = hs256(R"({"sub":"mallory"})", "whatever");
  const auto dot1 = alice.find('.'), dot2 = alice.rfind('.');
  const auto m1 = mallory.find('.'), m2 = mallory.rfind('.');
  const std::string forged =
      alice.substr(0, dot1) + mallory.substr(m1, m2 - m1) + alice.substr(dot2);
  EXPECT_EQ(verify_error(v, forged), "token: malformed or bad signature");
}

TEST(ClientTokens, Malformed) {
  const auto v = hs_verifier();
  for (std::string token : {"", "abc", "a.b.c", "!!!.e30.sig", "e30.e30.sig"})
    EXPECT_EQ(verify_error(v, token), "token: malformed") << token;
}

TEST(ClientTokens, BadClaims) {
  const auto v = hs_verifier();
  EXPECT_EQ(verify_error(v, hs256(R"({"exp":1800000100})")),
            "token: sub: 1-64 characters of [A-Za-z0-9_.:@-]");
  EXPECT_EQ(verify_error(v, hs256(R"({"sub":"a b"})")),
            "token: sub: 1-64 characters of [A-Za-z0-9_.:@-]");
  EXPECT_EQ(verify_error(v, hs256(R"({"sub":"a","sid":""})")),
            "token: sid: 1-64 characters of [A-Za-z0-9_.:@-]");
  EXPECT_EQ(verify_error(v, hs256(R"({"sub":"a","channels":"news"})")),
            "token: channels: expected an array of names");
  EXPECT_EQ(verify_error(v, hs256(R"({"sub":"a","channels":["ok","no way"]})")),
            "token: channels: 1-64 characters of [A-Za-z0-9_.:@-]");
  EXPECT_EQ(verify_error(v, hs256(R"({"sub":"a","exp":"tomorrow"})")),
            "token: exp: expected a time in Unix seconds");
}

// ---- aud, iss, crit, a far exp ----

std::string b64url(std::string_view bytes) {
  static constexpr char digits[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  std::uint32_t bits = 0;
  int count = 0;
  for (const unsigned char c : bytes) {
    bits = (bits << 8) | c;
    count += 8;
    while (count >= 6) {
      count -= 6;
      out += digits[(bits >> count) & 63u];
    }
  }
  if (count > 0) out += digits[(bits << (6 - count)) & 63u];
  return out;
}

// An HS256 token with this header, which libjwt cannot write (`crit`).
std::string hs256_with_header(const std::string& header, const std::string& claims) {
  const std::string input = b64url(header) + "." + b64url(claims);
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  HMAC(EVP_sha256(), secret, static_cast<int>(std::strlen(secret)),
       reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac, &size);
  return input + "." + b64url({reinterpret_cast<const char*>(mac), size});
}

TEST(ClientTokens, AudienceAndIssuerWhenRequired) {
  auto v = hs_verifier();
  // Not required: any aud and iss pass.
  verify_ok(v, hs256(R"({"sub":"a","aud":"billing-api","iss":"elsewhere"})"));
  v.require_claims("shop", "https://auth.shop.example");
  const std::string iss = R"("iss":"https://auth.shop.example")";
  verify_ok(v, hs256(R"({"sub":"a","aud":"shop",)" + iss + "}"));
  verify_ok(v, hs256(R"({"sub":"a","aud":["billing-api","shop"],)" + iss + "}"));
  for (const std::string aud : {R"("aud":"billing-api",)", R"("aud":["billing-api"],)",
                                R"("aud":[],)", R"("aud":5,)", R"("aud":[["shop"]],)", ""}) {
    EXPECT_EQ(verify_error(v, hs256(R"({"sub":"a",)" + aud + iss + "}")),
              "token: aud: expected 'shop'")
        << aud;
  }
  for (const std::string other : {R"(,"iss":"https://evil.example")", R"(,"iss":7)", ""}) {
    EXPECT_EQ(verify_error(v, hs256(R"({"sub":"a","aud":"shop")" + other + "}")),
              "token: iss: expected 'https://auth.shop.example'")
        << other;
  }
}

TEST(ClientTokens, CriticalHeaderRefused) {
  const auto v = hs_verifier();
  const std::string claims = R"({"sub":"a"})";
  verify_ok(v, hs256_with_header(R"({"alg":"HS256","typ":"JWT"})", claims));
  EXPECT_EQ(verify_error(v, hs256_with_header(R"({"alg":"HS256","crit":["exp"],"exp":1})", claims)),
            "token: crit: no extension is understood here");
  EXPECT_EQ(verify_error(v, hs256_with_header(R"({"alg":"HS256","crit":[]})", claims)),
            "token: crit: no extension is understood here");
}

TEST(ClientTokens, AFarExpIsAcceptedAndItsDeadlineClamped) {
  const auto v = hs_verifier();
  constexpr std::int64_t max = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t year_3000 = 32'503'680'000;
  EXPECT_EQ(verify_ok(v, hs256(R"({"sub":"a","exp":9223372036854775807})")).exp, max);
  EXPECT_EQ(verify_ok(v, hs256(R"({"sub":"a","exp":32503680000})")).exp, year_3000);

  const std::chrono::system_clock::time_point wall{std::chrono::seconds{now_s}};
  const std::chrono::steady_clock::time_point steady{std::chrono::hours{5}};
  EXPECT_EQ(token_deadline(now_s + 60, wall, steady), steady + 60s);
  EXPECT_EQ(token_deadline(now_s + 60, wall + 250ms, steady), steady + 59'750ms);
  EXPECT_EQ(token_deadline(max, wall, steady), steady + token_lifetime_clamp);
  EXPECT_EQ(token_deadline(year_3000, wall, steady), steady + token_lifetime_clamp);
  const std::int64_t at_clamp = now_s + token_lifetime_clamp.count();
  EXPECT_EQ(token_deadline(at_clamp, wall, steady), steady + token_lifetime_clamp);
  EXPECT_EQ(token_deadline(at_clamp + 1, wall, steady), steady + token_lifetime_clamp);
  EXPECT_EQ(token_deadline(now_s, wall, steady), steady);  // already passed: at once
  EXPECT_GT(token_deadline(max, wall, steady), steady + std::chrono::hours{24 * 365 * 99});
}

TEST(ClientTokens, AlgNoneRefused) {
  const std::string none = sign(JWT_ALG_NONE, "", R"({"sub":"alice"})");
  EXPECT_EQ(verify_error(hs_verifier(), none), "token: algorithm 'none' refused; expected HS256");
  EXPECT_EQ(verify_error(pem_verifier(rsa_key().public_pem), none),
            "token: algorithm 'none' refused; expected RS256");
  // Also with a signature part that is not empty.
  EXPECT_EQ(verify_error(hs_verifier(), none + "c2ln"),
            "token: algorithm 'none' refused; expected HS256");
}

TEST(ClientTokens, ValidRs256) {
  const auto v = pem_verifier(rsa_key().public_pem);
  EXPECT_EQ(v.algorithm(), "RS256");
  const auto claims =
      verify_ok(v, sign(JWT_ALG_RS256, rsa_key().private_pem, R"({"sub":"carol","sid":"t"})"));
  EXPECT_EQ(claims.sub, "carol");
  EXPECT_EQ(claims.sid, "t");
}

TEST(ClientTokens, Rs256SignedByAnotherKey) {
  const auto v = pem_verifier(rsa_key().public_pem);
  EXPECT_EQ(verify_error(v, sign(JWT_ALG_RS256, other_rsa_key().private_pem, R"({"sub":"c"})")),
            "token: malformed or bad signature");
}

TEST(ClientTokens, AlgorithmConfusionRefused) {
  // HS256 keyed with the public key's PEM text: what a forger who has the public key can make.
  const auto& pem = rsa_key().public_pem;
  const auto rs = pem_verifier(pem);
  EXPECT_EQ(verify_error(rs, hs256(R"({"sub":"mallory"})", pem)),
            "token: algorithm 'HS256' refused; expected RS256");
  // And the other way round: an RS256 token where a secret is configured.
  EXPECT_EQ(
      verify_error(hs_verifier(), sign(JWT_ALG_RS256, rsa_key().private_pem, R"({"sub":"c"})")),
      "token: algorithm 'RS256' refused; expected HS256");
  // HS512 with the right secret is still not HS256.
  EXPECT_EQ(verify_error(hs_verifier(), sign(JWT_ALG_HS512, secret, R"({"sub":"c"})")),
            "token: algorithm 'HS512' refused; expected HS256");
}

TEST(ClientTokens, ValidEs256) {
  const auto v = pem_verifier(ec_key().public_pem);
  EXPECT_EQ(v.algorithm(), "ES256");
  EXPECT_EQ(verify_ok(v, sign(JWT_ALG_ES256, ec_key().private_pem, R"({"sub":"dave"})")).sub,
            "dave");
  EXPECT_EQ(verify_error(v, sign(JWT_ALG_RS256, rsa_key().private_pem, R"({"sub":"d"})")),
            "token: algorithm 'RS256' refused; expected ES256");
}

TEST(ClientTokens, PublicKeyKinds) {
  EXPECT_EQ(token_verifier::with_public_key("not a key", false).error,
            "expected a PEM public key (-----BEGIN PUBLIC KEY-----)");
  EXPECT_EQ(token_verifier::with_public_key(rsa_key().private_pem, false).error,
            "expected a PEM public key (-----BEGIN PUBLIC KEY-----)");
  const key_pair small = generate(EVP_PKEY_Q_keygen(nullptr, nullptr, "RSA", std::size_t{1024}));
  EXPECT_EQ(token_verifier::with_public_key(small.public_pem, false).error,
            "RSA keys must have at least 2048 bits");
  const key_pair p384 = generate(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-384"));
  EXPECT_EQ(token_verifier::with_public_key(p384.public_pem, false).error,
            "EC keys must be on the P-256 curve (ES256)");
  const key_pair ed = generate(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
  EXPECT_EQ(token_verifier::with_public_key(ed.public_pem, false).error,
            "expected an RSA (RS256) or EC P-256 (ES256) public key");
}

TEST(ClientTokens, MintedDemoTokenVerifies) {
  const std::string token = mint_hs256(secret, "guest-1", now_s + 300);
  const auto claims = verify_ok(hs_verifier(true), token);
  EXPECT_EQ(claims.sub, "guest-1");
  EXPECT_EQ(claims.exp, now_s + 300);
}

TEST(BearerToken, Scheme) {
  EXPECT_EQ(bearer_token("Bearer abc.def.ghi"), "abc.def.ghi");
  EXPECT_EQ(bearer_token("bearer x"), "x");
  EXPECT_EQ(bearer_token("Basic dXNlcjpwYXNz"), std::nullopt);
  EXPECT_EQ(bearer_token("Bearer "), std::nullopt);
  EXPECT_EQ(bearer_token(""), std::nullopt);
}

client_params query(std::string_view target) {
  auto p = parse_client_params(target, false);
  EXPECT_TRUE(p) << p.error;
  return p.value.value_or(client_params{});
}

TEST(ApplyClaims, SubBecomesTheUser) {
  auto p = query("/ws?token=t");
  EXPECT_EQ(p.token, "t");
  EXPECT_EQ(apply_claims({.sub = "alice"}, p), std::nullopt);
  EXPECT_EQ(p.user, "alice");
  EXPECT_EQ(p.sid, "0");
  EXPECT_EQ(p.allowed_channels, std::nullopt);

  auto same = query("/ws?user=alice");
  EXPECT_EQ(apply_claims({.sub = "alice"}, same), std::nullopt);
  auto other = query("/ws?user=mallory");
  EXPECT_EQ(apply_claims({.sub = "alice"}, other), "user 'mallory' does not match the token's sub");
}

TEST(ApplyClaims, Sid) {
  auto p = query("/ws");
  EXPECT_EQ(apply_claims({.sub = "a", .sid = "tab9"}, p), std::nullopt);
  EXPECT_EQ(p.sid, "tab9");
  auto same = query("/ws?sid=tab9");
  EXPECT_EQ(apply_claims({.sub = "a", .sid = "tab9"}, same), std::nullopt);
  auto other = query("/ws?sid=tab1");
  EXPECT_EQ(apply_claims({.sub = "a", .sid = "tab9"}, other),
            "sid 'tab1' does not match the token's sid");
  auto free_sid = query("/ws?sid=tab1");  // no sid claim: the client chooses
  EXPECT_EQ(apply_claims({.sub = "a"}, free_sid), std::nullopt);
  EXPECT_EQ(free_sid.sid, "tab1");
}

TEST(ApplyClaims, Channels) {
  const token_claims claims{.sub = "a", .channels = std::vector<std::string>{"news", "deals"}};
  auto p = query("/ws?channels=deals");
  EXPECT_EQ(apply_claims(claims, p), std::nullopt);
  EXPECT_EQ(p.allowed_channels, (std::vector<std::string>{"news", "deals"}));
  auto other = query("/ws?channels=news,secret");
  EXPECT_EQ(apply_claims(claims, other), "channel 'secret' is not among the token's channels");
}

// ---- flags ----

std::string write_file(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}

// The verifier the server builds at start-up from the parsed flags.
std::shared_ptr<const token_verifier> verifier_of(const config& cfg) {
  auto resources = build_credentials(cfg);
  EXPECT_TRUE(resources) << resources.error;
  return resources ? resources.value->client_tokens : nullptr;
}

TEST(ClientTokenFlags, OpenByDefault) {
  const test::run r({});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  EXPECT_FALSE(r.outcome.cfg->client_tokens());
  EXPECT_EQ(verifier_of(*r.outcome.cfg), nullptr);
  EXPECT_FALSE(r.outcome.cfg->demo);
}

TEST(ClientTokenFlags, SecretFromFlagOrEnvironment) {
  const test::run flag({"--client-secret", "s3cret", "--demo"});
  ASSERT_TRUE(flag.outcome.cfg) << flag.err;
  EXPECT_EQ(verifier_of(*flag.outcome.cfg)->algorithm(), "HS256");
  EXPECT_EQ(flag.outcome.cfg->client_secret, "s3cret");
  EXPECT_TRUE(flag.outcome.cfg->demo);

  const test::run env({}, {{"RINGCAST_CLIENT_SECRET", "from-env"}});
  ASSERT_TRUE(env.outcome.cfg) << env.err;
  EXPECT_EQ(env.outcome.cfg->client_secret, "from-env");
}

TEST(ClientTokenFlags, PublicKeyFile) {
  const std::string path = write_file("ringcast_client_auth_rsa.pem", rsa_key().public_pem);
  const test::run r({"--client-public-key", path, "--require-exp"});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  const auto verifier = verifier_of(*r.outcome.cfg);
  ASSERT_NE(verifier, nullptr);
  const auto& v = *verifier;
  EXPECT_EQ(v.algorithm(), "RS256");
  EXPECT_EQ(v.verify(sign(JWT_ALG_RS256, rsa_key().private_pem, R"({"sub":"a"})"), now_s).error,
            "token: exp: required");
  std::filesystem::remove(path);
}

TEST(ClientTokenFlags, Errors) {
  auto error_of = [](std::vector<std::string> args) {
    const test::run r(std::move(args));
    EXPECT_FALSE(r.outcome.cfg);
    EXPECT_EQ(r.outcome.exit_status, 2);
    return r.err;
  };
  EXPECT_EQ(error_of({"--client-secret", ""}),
            "ringcast: --client-secret: expected a non-empty secret\n");
  EXPECT_EQ(error_of({"--client-public-key", "/nonexistent/key.pem"}),
            "ringcast: --client-public-key: cannot read '/nonexistent/key.pem'\n");
  // A file that reads but holds no key passes the flags and fails at start-up.
  const std::string junk = write_file("ringcast_client_auth_junk.pem", "hello\n");
  const test::run junk_run({"--client-public-key", junk});
  ASSERT_TRUE(junk_run.outcome.cfg) << junk_run.err;
  EXPECT_EQ(
      build_credentials(*junk_run.outcome.cfg).error,
      "--client-public-key: " + junk + ": expected a PEM public key (-----BEGIN PUBLIC KEY-----)");
  std::filesystem::remove(junk);
  const std::string key = write_file("ringcast_client_auth_both.pem", rsa_key().public_pem);
  EXPECT_EQ(error_of({"--client-secret", "s", "--client-public-key", key}),
            "ringcast: --client-public-key: give either a client secret or a public key, not "
            "both\n");
  std::filesystem::remove(key);
  EXPECT_EQ(error_of({"--require-exp"}),
            "ringcast: --require-exp: needs --client-secret or --client-public-key\n");
}

TEST(ClientTokenFlags, AudienceAndIssuer) {
  const test::run r({"--client-secret", "s", "--client-audience", "shop", "--client-issuer", "me"});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  EXPECT_EQ(r.outcome.cfg->client_audience, "shop");
  EXPECT_EQ(r.outcome.cfg->client_issuer, "me");
  const auto verifier = verifier_of(*r.outcome.cfg);
  ASSERT_NE(verifier, nullptr);
  const auto token = [](const std::string& claims) { return sign(JWT_ALG_HS256, "s", claims); };
  const std::string exp = R"(,"exp":)" + std::to_string(now_s + 60);
  EXPECT_TRUE(verifier->verify(token(R"({"sub":"a","aud":"shop","iss":"me")" + exp + "}"), now_s));
  EXPECT_EQ(verifier->verify(token(R"({"sub":"a","aud":"shop")" + exp + "}"), now_s).error,
            "token: iss: expected 'me'");
  // Without exp, refused by default (issue 35), unless --allow-tokens-without-exp.
  EXPECT_EQ(verifier->verify(token(R"({"sub":"a","aud":"shop","iss":"me"})"), now_s).error,
            "token: exp: required");
  const test::run lenient({"--client-secret", "s", "--allow-tokens-without-exp"});
  ASSERT_TRUE(lenient.outcome.cfg) << lenient.err;
  EXPECT_TRUE(verifier_of(*lenient.outcome.cfg)->verify(token(R"({"sub":"a"})"), now_s));

  const test::run alone({"--client-audience", "shop"});
  EXPECT_EQ(alone.err,
            "ringcast: --client-audience: needs --client-secret or --client-public-key\n");
  const test::run empty({"--client-secret", "s", "--client-issuer", ""});
  EXPECT_EQ(empty.err, "ringcast: --client-issuer: expected a non-empty value\n");
}

// ---- the hub: a token's expiry is the session's deadline ----

class recorder final : public subscriber {
 public:
  explicit recorder(transport kind) : kind_(kind) {}
  transport kind() const override { return kind_; }
  void deliver(const message_ptr&) override {}
  void heartbeat() override { ++heartbeats; }
  void end(const ending_notice& notice) override { endings.push_back(notice.why); }

  int heartbeats = 0;
  std::vector<ending> endings;

 private:
  transport kind_;
};

struct HubTokens : test::hub_fixture {
  HubTokens() {
    cfg.tick = 10ms;
    cfg.heartbeat = 1s;
    cfg.idle_timeout = 10s;
    cfg.poll_timeout = 5s;
  }
  client_params params(std::optional<hub::time_point> expires) const {
    client_params p;
    p.user = "alice";
    p.expires = expires;
    return p;
  }
};

TEST_F(HubTokens, WebSocketGetsCloseExpiredAtExp) {
  hub& h = the_hub();
  recorder ws(transport::ws);
  h.attach(params(epoch + 2500ms), ws, epoch);
  advance_to(epoch + 2490ms);
  EXPECT_TRUE(ws.endings.empty());
  EXPECT_EQ(ws.heartbeats, 2);  // heartbeats still run before the expiry
  advance_to(epoch + 2520ms);
  EXPECT_EQ(ws.endings, std::vector<ending>{ending::close_expired});
  EXPECT_EQ(stats.expired, 1u);
  EXPECT_EQ(h.session_count(), 1u);  // the session waits out its TTL for a reconnect
  EXPECT_EQ(h.connected_count(), 0u);
}

TEST_F(HubTokens, HeldPollAnsweredCloseExpiredBeforeItsTimeout) {
  hub& h = the_hub();
  recorder poll(transport::poll);
  h.attach(params(epoch + 1s), poll, epoch);
  advance_to(epoch + 1020ms);
  EXPECT_EQ(poll.endings, std::vector<ending>{ending::close_expired});
  EXPECT_EQ(stats.poll_timeout, 0u);
}

TEST_F(HubTokens, ReconnectWithAFreshTokenMovesTheDeadline) {
  hub& h = the_hub();
  recorder first(transport::sse), second(transport::sse);
  h.attach(params(epoch + 1s), first, epoch);
  h.attach(params(std::nullopt), second, epoch + 500ms);  // replaces: no expiry now
  advance_to(epoch + 3s);
  EXPECT_EQ(first.endings, std::vector<ending>{ending::close_replaced});
  EXPECT_TRUE(second.endings.empty());
  EXPECT_EQ(stats.expired, 0u);
}

TEST_F(HubTokens, ChannelsOutsideTheTokenCannotBeSubscribed) {
  hub& h = the_hub();
  recorder ws(transport::ws), open_ws(transport::ws);
  auto p = params(std::nullopt);
  p.allowed_channels = std::vector<std::string>{"news", "deals"};
  auto* s = h.attach(p, ws, epoch).s;
  EXPECT_TRUE(h.may_subscribe(*s, {"news"}));
  EXPECT_TRUE(h.may_subscribe(*s, {"deals", "news"}));
  EXPECT_FALSE(h.may_subscribe(*s, {"news", "secret"}));
  auto open = params(std::nullopt);
  open.user = "bob";
  auto* unrestricted = h.attach(open, open_ws, epoch).s;
  EXPECT_TRUE(h.may_subscribe(*unrestricted, {"anything"}));
}

}  // namespace
}  // namespace ringcast
