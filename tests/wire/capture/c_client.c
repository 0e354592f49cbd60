/* One session of Debian's ZooKeeper C client (libzookeeper-mt) doing every
 * request the C client can send, for tests/wire/capture/capture.py, which
 * runs it against a real server through a recording proxy. Prints "DROP"
 * when the proxy should cut the connections (the client then reconnects
 * and sends setWatches). Not part of the build: capture.py compiles it. */
#define THREADED
#include <zookeeper/zookeeper.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int connected = 0;
static int events = 0;

static void watcher(zhandle_t *zh, int type, int state, const char *path, void *ctx) {
  (void)zh; (void)ctx;
  pthread_mutex_lock(&mu);
  if (type == ZOO_SESSION_EVENT && state == ZOO_CONNECTED_STATE) connected = 1;
  if (type != ZOO_SESSION_EVENT) ++events;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
  fprintf(stderr, "event type=%d state=%d path=%s\n", type, state, path ? path : "");
}

static void synced(int rc, const char *value, const void *data) {
  (void)data;
  fprintf(stderr, "sync rc=%d path=%s\n", rc, value ? value : "(null)");
}

static zhandle_t *open_session(const char *hosts) {
  pthread_mutex_lock(&mu);
  connected = 0;
  pthread_mutex_unlock(&mu);
  zhandle_t *zh = zookeeper_init(hosts, watcher, 4000, 0, 0, 0);
  pthread_mutex_lock(&mu);
  while (!connected) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
  return zh;
}

static int events_so_far(void) {
  pthread_mutex_lock(&mu);
  int n = events;
  pthread_mutex_unlock(&mu);
  return n;
}

static void wait_events(int n) {
  pthread_mutex_lock(&mu);
  while (events < n) pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
}

#define CHECK(call, want)                                                         \
  do {                                                                            \
    int rc_ = (call);                                                             \
    fprintf(stderr, "%s -> %d\n", #call, rc_);                                    \
    if (rc_ != (want)) { fprintf(stderr, "unexpected rc %d\n", rc_); return 1; }  \
  } while (0)

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
  zhandle_t *zh = open_session(argv[1]);
  char name[256];
  char buf[256];
  int len;
  struct Stat st;
  struct String_vector kids;
  struct ACL_vector acl;

  CHECK(zoo_create(zh, "/c", "root", 4, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, name, sizeof name), ZOK);
  CHECK(zoo_create(zh, "/c/null", NULL, -1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, name, sizeof name), ZOK);
  len = sizeof buf;
  CHECK(zoo_get(zh, "/c/null", 0, buf, &len, &st), ZOK);
  fprintf(stderr, "null data reads back as len %d, dataLength %d\n", len, st.dataLength);
  CHECK(zoo_create(zh, "/c/e", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, name, sizeof name), ZOK);
  CHECK(zoo_create(zh, "/c/ps-", "x", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT_SEQUENTIAL, name, sizeof name), ZOK);
  CHECK(zoo_create(zh, "/c/es-", "x", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL_SEQUENTIAL, name, sizeof name), ZOK);
  CHECK(zoo_create2(zh, "/c/two", "two", 3, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, name, sizeof name, &st), ZOK);
  CHECK(zoo_create2(zh, "/c/box", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_CONTAINER, name, sizeof name, &st), ZOK);
  CHECK(zoo_create2(zh, "/c/box/in", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, name, sizeof name, &st), ZOK);
  CHECK(zoo_create2_ttl(zh, "/c/ttl", "t", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT_WITH_TTL, 60000, name,
                        sizeof name, &st), ZOK);
  CHECK(zoo_create2_ttl(zh, "/c/ttls-", "t", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT_SEQUENTIAL_WITH_TTL, 60000,
                        name, sizeof name, &st), ZOK);
  CHECK(zoo_create(zh, "/c", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, name, sizeof name), ZNODEEXISTS);
  CHECK(zoo_create(zh, "/nope/x", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, name, sizeof name), ZNONODE);
  CHECK(zoo_create(zh, "/c/e/x", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, name, sizeof name),
        ZNOCHILDRENFOREPHEMERALS);

  CHECK(zoo_exists(zh, "/c/two", 1, &st), ZOK);
  CHECK(zoo_exists(zh, "/c/missing", 1, &st), ZNONODE);
  len = sizeof buf;
  CHECK(zoo_get(zh, "/c/two", 1, buf, &len, &st), ZOK);
  len = sizeof buf;
  CHECK(zoo_get(zh, "/c/missing", 0, buf, &len, &st), ZNONODE);
  CHECK(zoo_set(zh, "/c/two", "2", 1, 0), ZOK);
  CHECK(zoo_set(zh, "/c/two", "3", 1, 7), ZBADVERSION);
  CHECK(zoo_set(zh, "/c/null", NULL, -1, -1), ZOK);
  CHECK(zoo_get_children(zh, "/c", 1, &kids), ZOK);
  deallocate_String_vector(&kids);
  CHECK(zoo_get_children2(zh, "/c", 0, &kids, &st), ZOK);
  deallocate_String_vector(&kids);
  CHECK(zoo_get_acl(zh, "/c", &acl, &st), ZOK);
  deallocate_ACL_vector(&acl);
  CHECK(zoo_set_acl(zh, "/c/two", -1, &ZOO_READ_ACL_UNSAFE), ZOK);
  CHECK(zoo_set(zh, "/c/two", "4", 1, -1), ZNOAUTH);
  CHECK(zoo_delete(zh, "/c", -1), ZNOTEMPTY);
  CHECK(zoo_delete(zh, "/c/ps-0000000002", 5), ZBADVERSION);
  CHECK(zoo_delete(zh, "/c/ps-0000000002", -1), ZOK);

  /* multi: one that succeeds, one that fails on its second op. */
  {
    zoo_op_t ops[4];
    zoo_op_result_t res[4];
    char p0[64];
    struct Stat s2;
    zoo_create_op_init(&ops[0], "/c/m", "m", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, p0, sizeof p0);
    zoo_set_op_init(&ops[1], "/c/m", "mm", 2, 0, &s2);
    zoo_check_op_init(&ops[2], "/c/m", 1);
    zoo_delete_op_init(&ops[3], "/c/m", 1);
    CHECK(zoo_multi(zh, 4, ops, res), ZOK);
    zoo_create_op_init(&ops[0], "/c/m2", "m", 1, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, p0, sizeof p0);
    zoo_check_op_init(&ops[1], "/c/m2", 3);
    zoo_delete_op_init(&ops[2], "/c/m2", -1);
    CHECK(zoo_multi(zh, 3, ops, res), ZBADVERSION);
  }

  /* sync, auth, watches removed and checked. */
  CHECK(zoo_async(zh, "/c", synced, NULL), ZOK);
  CHECK(zoo_add_auth(zh, "digest", "alice:secret", 12, NULL, NULL), ZOK);
  CHECK(zoo_create(zh, "/c/mine", "", 0, &ZOO_CREATOR_ALL_ACL, ZOO_PERSISTENT, name, sizeof name), ZOK);
  CHECK(zoo_get_acl(zh, "/c/mine", &acl, &st), ZOK);
  deallocate_ACL_vector(&acl);
  /* The C client checks its own table first: only watches it holds reach
   * the server (checkWatches for one watcher, removeWatches for all). */
  CHECK(zoo_exists(zh, "/c/ttl", 1, &st), ZOK);
  CHECK(zoo_remove_watches(zh, "/c/ttl", ZWATCHTYPE_DATA, watcher, NULL, 0), ZOK);
  CHECK(zoo_get_children(zh, "/c/box", 1, &kids), ZOK);
  deallocate_String_vector(&kids);
  CHECK(zoo_remove_all_watches(zh, "/c/box", ZWATCHTYPE_CHILD, 0), ZOK);

  /* Watches left: exists on /c/two (set) and /c/missing (not set). Ping,
   * reconnect (setWatches), then another session fires both. */
  CHECK(zoo_exists(zh, "/c/two", 1, &st), ZOK);
  sleep(3); /* at least one ping: the C client pings after a third of 4 s */
  printf("DROP\n");
  fflush(stdout);
  sleep(3);
  int seen = events_so_far();
  zhandle_t *other = open_session(argv[1]);
  CHECK(zoo_create(other, "/c/missing", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, name, sizeof name), ZOK);
  CHECK(zoo_delete(other, "/c/two", -1), ZOK);
  wait_events(seen + 2);
  zookeeper_close(other);
  zookeeper_close(zh);
  return 0;
}
