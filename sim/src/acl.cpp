#include "acl.h"

#include <openssl/evp.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>

namespace zksim {

namespace detail {
namespace {

// SHA-1 comes from OpenSSL's libcrypto: no reason to write our own.
std::string base64_sha1(std::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha1(), nullptr);
  unsigned char encoded[4 * ((EVP_MAX_MD_SIZE + 2) / 3) + 1];
  int n = EVP_EncodeBlock(encoded, digest, static_cast<int>(length));
  return std::string(reinterpret_cast<const char*>(encoded), static_cast<std::size_t>(n));
}

// An IPv4 address as 32 bits; nullopt if `text` is not a dotted quad.
std::optional<std::uint32_t> parse_ipv4(std::string_view text) {
  std::uint32_t out = 0;
  for (int part = 0; part < 4; ++part) {
    if (part > 0) {
      if (text.empty() || text[0] != '.') return std::nullopt;
      text.remove_prefix(1);
    }
    unsigned value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end == text.data() || value > 255) return std::nullopt;
    text.remove_prefix(static_cast<std::size_t>(end - text.data()));
    out = (out << 8) | value;
  }
  if (!text.empty()) return std::nullopt;
  return out;
}

struct IpRange {
  std::uint32_t address;
  int bits;
};

// "a.b.c.d" or "a.b.c.d/bits" (IPAuthenticationProvider).
std::optional<IpRange> parse_ip_range(std::string_view text) {
  int bits = 32;
  std::size_t slash = text.find('/');
  if (slash != std::string_view::npos) {
    std::string_view b = text.substr(slash + 1);
    auto [end, ec] = std::from_chars(b.data(), b.data() + b.size(), bits);
    if (ec != std::errc{} || end != b.data() + b.size() || bits < 0 || bits > 32) {
      return std::nullopt;
    }
    text = text.substr(0, slash);
  }
  auto address = parse_ipv4(text);
  if (!address) return std::nullopt;
  return IpRange{*address, bits};
}

bool valid_id(const Id& id) {
  if (id.scheme == "digest") return std::count(id.id.begin(), id.id.end(), ':') == 1;
  if (id.scheme == "ip") return parse_ip_range(id.id).has_value();
  return false;
}

}  // namespace

std::string digest_id(std::string_view credential) {
  std::string_view user = credential.substr(0, credential.find(':'));
  return std::string(user) + ":" + base64_sha1(credential);
}

Result<Id> authenticate(std::string_view scheme, std::string_view credential) {
  if (scheme == "digest") {
    if (credential.find(':') == std::string_view::npos) return Error::AuthFailed;
    return Id{"digest", digest_id(credential)};
  }
  return Error::AuthFailed;
}

bool id_matches(const Id& acl_id, const Id& session_id) {
  if (acl_id.scheme != session_id.scheme) return false;
  if (acl_id.scheme == "ip") {
    auto range = parse_ip_range(acl_id.id);
    auto address = parse_ipv4(session_id.id);
    if (!range || !address) return false;
    if (range->bits == 0) return true;
    std::uint32_t mask = range->bits == 32 ? 0xFFFFFFFFu : ~(0xFFFFFFFFu >> range->bits);
    return (range->address & mask) == (*address & mask);
  }
  return acl_id.id == session_id.id;
}

Result<AclList> fixup_acl(const AclList& acl, const std::vector<Id>& session_ids) {
  AclList unique;
  for (const Acl& a : acl) {
    if (std::find(unique.begin(), unique.end(), a) == unique.end()) unique.push_back(a);
  }
  if (unique.empty()) return Error::InvalidAcl;
  AclList out;
  for (const Acl& a : unique) {
    if (a.id.scheme == "world" && a.id.id == "anyone") {
      out.push_back(a);
    } else if (a.id.scheme == "auth") {
      bool any = false;
      for (const Id& sid : session_ids) {
        if (sid.scheme == "digest") {  // the only authenticated provider modelled
          any = true;
          out.push_back(Acl{a.perms, sid});
        }
      }
      if (!any) return Error::InvalidAcl;
    } else {
      if (!valid_id(a.id)) return Error::InvalidAcl;
      out.push_back(a);
    }
  }
  return out;
}

Error check_acl(const AclList& acl, int perm, const std::vector<Id>& session_ids) {
  if (acl.empty()) return Error::Ok;
  for (const Acl& a : acl) {
    if ((a.perms & perm) == 0) continue;
    if (a.id.scheme == "world" && a.id.id == "anyone") return Error::Ok;
    for (const Id& sid : session_ids) {
      if (id_matches(a.id, sid)) return Error::Ok;
    }
  }
  return Error::NoAuth;
}

std::uint32_t AclTable::intern(const AclList& acl) {
  // Most creates repeat the previous ACL: skip the map then.
  if (!lists_.empty() && lists_[last_] == acl) return last_;
  auto [it, inserted] = index_.try_emplace(acl, static_cast<std::uint32_t>(lists_.size()));
  if (inserted) {
    lists_.push_back(acl);
    int world = acl.empty() ? perms::kAll : 0;
    for (const Acl& a : acl) {
      if (a.id.scheme == "world" && a.id.id == "anyone") world |= a.perms;
    }
    world_perms_.push_back(world);
  }
  last_ = it->second;
  return last_;
}

}  // namespace detail
}  // namespace zksim
