// A self-signed P-256 certificate for 127.0.0.1 in a fresh directory, for the tests that run TLS
// (net_stream_test, tls_context_test).
#pragma once

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

namespace ringcast {

struct certificate {
  std::filesystem::path dir, cert_file, key_file;

  certificate() {
    dir = std::filesystem::temp_directory_path() /
          ("ringcast-net-stream-" + std::to_string(::getpid()) + "-" + std::to_string(++count));
    std::filesystem::create_directories(dir);
    cert_file = dir / "cert.pem";
    key_file = dir / "key.pem";
    EVP_PKEY* key = EVP_EC_gen("P-256");
    X509* x = X509_new();
    ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
    X509_gmtime_adj(X509_getm_notBefore(x), 0);
    X509_gmtime_adj(X509_getm_notAfter(x), 3600);
    X509_set_pubkey(x, key);
    X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("ringcast test"), -1, -1, 0);
    X509_set_issuer_name(x, X509_get_subject_name(x));
    X509_EXTENSION* san =
        X509V3_EXT_conf_nid(nullptr, nullptr, NID_subject_alt_name, "IP:127.0.0.1");
    X509_add_ext(x, san, -1);
    X509_EXTENSION_free(san);
    X509_sign(x, key, EVP_sha256());
    write_pem(cert_file, [&](FILE* f) { PEM_write_X509(f, x); });
    write_pem(key_file, [&](FILE* f) {
      PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr);
    });
    X509_free(x);
    EVP_PKEY_free(key);
  }
  ~certificate() { std::filesystem::remove_all(dir); }

  template <class Write>
  static void write_pem(const std::filesystem::path& path, Write write) {
    FILE* f = std::fopen(path.c_str(), "w");
    write(f);
    std::fclose(f);
  }
  static inline int count = 0;
};

}  // namespace ringcast
