// ACL schemes and checks, as ZooKeeper 3.8's server applies them
// (PrepRequestProcessor.fixupACL, ZooKeeperServer.checkACL, the
// digest and ip authentication providers).
#pragma once

#include "zksim/result.h"
#include "zksim/types.h"

#include <map>
#include <string_view>
#include <vector>

namespace zksim::detail {

// "user:base64(sha1(user:password))" for the credential "user:password".
std::string digest_id(std::string_view credential);

// The auth id a session gains from addAuth; AuthFailed for an unknown
// scheme or a malformed credential.
Result<Id> authenticate(std::string_view scheme, std::string_view credential);

// Does the id an ACL names match an id the session holds? (provider.matches)
bool id_matches(const Id& acl_id, const Id& session_id);

// Expands "auth" entries to the session's authenticated ids, drops duplicates,
// and rejects empty or malformed lists with InvalidAcl.
Result<AclList> fixup_acl(const AclList& acl, const std::vector<Id>& session_ids);

// Ok when `acl` grants any bit of `perm` to one of `session_ids`; NoAuth otherwise.
Error check_acl(const AclList& acl, int perm, const std::vector<Id>& session_ids);

// Interned ACL lists, so a node stores a small index (ZooKeeper's ACL cache).
class AclTable {
 public:
  std::uint32_t intern(const AclList& acl);
  const AclList& get(std::uint32_t index) const { return lists_[index]; }
  // check_acl(get(index), perm, session_ids), answering at once when the
  // list grants `perm` to everyone (world:anyone, or an empty list).
  Error check(std::uint32_t index, int perm, const std::vector<Id>& session_ids) const {
    if ((world_perms_[index] & perm) != 0) return Error::Ok;
    return check_acl(lists_[index], perm, session_ids);
  }

 private:
  std::vector<AclList> lists_;
  std::vector<int> world_perms_;  // per list: the bits any session has
  std::map<AclList, std::uint32_t> index_;
  std::uint32_t last_ = 0;
};

}  // namespace zksim::detail
