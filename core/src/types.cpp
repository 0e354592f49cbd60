#include "zksim/types.h"

namespace zksim {

// Declared with the vocabulary (zksim_core): recipes and the real backend
// use them without the simulator.
AclList open_acl() { return {Acl{perms::kAll, Id{"world", "anyone"}}}; }
AclList read_acl() { return {Acl{perms::kRead, Id{"world", "anyone"}}}; }
AclList creator_all_acl() { return {Acl{perms::kAll, Id{"auth", ""}}}; }

std::string_view event_type_name(EventType t) {
  switch (t) {
    case EventType::None: return "None";
    case EventType::NodeCreated: return "NodeCreated";
    case EventType::NodeDeleted: return "NodeDeleted";
    case EventType::NodeDataChanged: return "NodeDataChanged";
    case EventType::NodeChildrenChanged: return "NodeChildrenChanged";
  }
  return "Unknown";
}

std::string_view keeper_state_name(KeeperState s) {
  switch (s) {
    case KeeperState::Disconnected: return "Disconnected";
    case KeeperState::SyncConnected: return "SyncConnected";
    case KeeperState::Expired: return "Expired";
    case KeeperState::AuthFailed: return "AuthFailed";
  }
  return "Unknown";
}

}  // namespace zksim
