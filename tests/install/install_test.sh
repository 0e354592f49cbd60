#!/usr/bin/env bash
# The installed package as a user gets it (label install).
# Usage: install_test.sh SOURCE_DIR BUILD_DIR RULE [cmake args for the consumer...]
#   RULE: one of the functions below. BUILD_DIR must be built (ctest runs
#   after the build). The consumer's cmake args carry what the build's
#   static libraries need of their users (the sanitizer flags).
set -euo pipefail
src="$1"
build="$2"
rule="$3"
shift 3
consumer_args=("$@")

sandbox="$(mktemp -d)"
trap 'rm -rf "$sandbox"' EXIT

fail() {
  echo "FAILED: $*" >&2
  exit 1
}

# cmake --install into a fresh prefix, then a project outside the tree
# (tests/install/consumer) finds it with find_package(zksim), builds against
# zksim::harness and runs the lock recipe without a violation.
consumer_builds_and_runs() {
  cmake --install "$build" --prefix "$sandbox/prefix" >"$sandbox/install.log" ||
    fail "cmake --install: $(cat "$sandbox/install.log")"
  for f in bin/zksim include/zksim/client.h include/zksim/world.h include/zksim/recipes/lock.h \
           include/zksim/scenarios/workload.h lib/cmake/zksim/zksimConfig.cmake \
           lib/cmake/zksim/zksimConfigVersion.cmake lib/cmake/zksim/zksimTargets.cmake; do
    [ -e "$sandbox/prefix/$f" ] || fail "not installed: $f"
  done
  # Only public headers: nothing from a module's src/.
  [ ! -e "$sandbox/prefix/include/zksim/world_impl.h" ] || fail "a private header was installed"
  cmake -S "$src/tests/install/consumer" -B "$sandbox/consumer" -G Ninja \
    -DCMAKE_PREFIX_PATH="$sandbox/prefix" "${consumer_args[@]}" >"$sandbox/configure.log" 2>&1 ||
    fail "configuring the consumer: $(cat "$sandbox/configure.log")"
  cmake --build "$sandbox/consumer" >"$sandbox/build.log" 2>&1 ||
    fail "building the consumer: $(cat "$sandbox/build.log")"
  out="$("$sandbox/consumer/consumer" 2>&1)" || fail "the consumer: $out"
  grep -q "no violation" <<<"$out" || fail "the consumer said: $out"
  # The installed program runs from the prefix.
  "$sandbox/prefix/bin/zksim" list >/dev/null || fail "installed zksim list"
}

# A version the package does not promise to be compatible with is refused.
consumer_refuses_an_incompatible_version() {
  cmake --install "$build" --prefix "$sandbox/prefix" >/dev/null
  mkdir -p "$sandbox/wants"
  cat >"$sandbox/wants/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(wants LANGUAGES CXX)
find_package(zksim 99 REQUIRED)
CMAKE
  if out="$(cmake -S "$sandbox/wants" -B "$sandbox/wants/build" -DCMAKE_PREFIX_PATH="$sandbox/prefix" 2>&1)"; then
    fail "find_package(zksim 99) succeeded: $out"
  fi
  grep -q "zksimConfigVersion.cmake\|version" <<<"$out" || fail "refused for another reason: $out"
}

# cpack -G DEB builds a package with the program, the headers and the CMake
# package files, depending on what the exported targets need.
deb_has_everything() {
  (cd "$sandbox" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$sandbox/pkg" >"$sandbox/cpack.log" 2>&1) ||
    fail "cpack: $(cat "$sandbox/cpack.log")"
  debs=("$sandbox"/pkg/*.deb)
  [ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "expected one .deb, got: ${debs[*]}"
  contents="$(dpkg-deb -c "${debs[0]}")"
  for f in ./usr/bin/zksim ./usr/include/zksim/error.h ./usr/include/zksim/client.h ./usr/include/zksim/task.h \
           ./usr/include/zksim/world.h ./usr/include/zksim/recipes/lock.h ./usr/include/zksim/scenarios/workload.h \
           ./usr/lib/cmake/zksim/zksimConfig.cmake ./usr/lib/cmake/zksim/zksimConfigVersion.cmake; do
    grep -q " $f\$" <<<"$contents" || fail "$f not in the package: $contents"
  done
  depends="$(dpkg-deb -f "${debs[0]}" Depends)"
  for d in libfmt-dev libssl-dev; do
    grep -q "$d" <<<"$depends" || fail "Depends lacks $d: $depends"
  done
  [ "$(dpkg-deb -f "${debs[0]}" Package)" = zksim ] || fail "package name: $(dpkg-deb -f "${debs[0]}" Package)"
  version="$(sed -n 's/^project(zksim VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")"
  [ "$(dpkg-deb -f "${debs[0]}" Version)" = "$version" ] || fail "version $(dpkg-deb -f "${debs[0]}" Version), project $version"
}

# The example project (examples/my-lock), built against the installed
# package as its README says: its googletest of the harness API passes (the
# fixed lock holds every property, the naive one is caught by herd-effect),
# and the installed zksim loads its plugin and catches the naive lock too.
example_builds_and_catches_the_bug() {
  cmake --install "$build" --prefix "$sandbox/prefix" >"$sandbox/install.log" ||
    fail "cmake --install: $(cat "$sandbox/install.log")"
  cmake -S "$src/examples/my-lock" -B "$sandbox/example" -G Ninja \
    -DCMAKE_PREFIX_PATH="$sandbox/prefix" "${consumer_args[@]}" >"$sandbox/configure.log" 2>&1 ||
    fail "configuring the example: $(cat "$sandbox/configure.log")"
  cmake --build "$sandbox/example" >"$sandbox/build.log" 2>&1 ||
    fail "building the example: $(cat "$sandbox/build.log")"
  (cd "$sandbox/example" && ctest --output-on-failure >"$sandbox/ctest.log" 2>&1) ||
    fail "the example's tests: $(cat "$sandbox/ctest.log")"
  grep -q "100% tests passed, 0 tests failed out of 3" "$sandbox/ctest.log" || fail "the example's tests: $(cat "$sandbox/ctest.log")"
  plugin="$sandbox/example/libmy_lock_plugin.so"
  rc=0
  out="$("$sandbox/prefix/bin/zksim" explore --plugin "$plugin" --recipe example/naive-lock --faults none --runs 50 \
    --out "$sandbox/found" 2>&1)" || rc=$?
  [ "$rc" = 1 ] || fail "explore of the naive lock exited $rc: $out"
  grep -q "VIOLATION herd-effect" <<<"$out" || fail "explore of the naive lock: $out"
  out="$("$sandbox/prefix/bin/zksim" explore --plugin "$plugin" --recipe example/fixed-lock --faults drop-after-apply \
    --runs 100 2>&1)" || fail "explore of the fixed lock: $out"
  # The file found names the plugin, so it replays without --plugin.
  files=("$sandbox"/found/example-naive-lock.herd-effect.*.scn)
  "$sandbox/prefix/bin/zksim" replay "${files[0]}" >/dev/null || fail "replaying ${files[0]}"
}

# The Debian package, unpacked as dpkg would install it (under a root of
# the test's own, not the machine's /usr), builds the example project and
# runs its plugin: the package holds all a user needs.
deb_builds_the_example() {
  (cd "$sandbox" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$sandbox/pkg" >"$sandbox/cpack.log" 2>&1) ||
    fail "cpack: $(cat "$sandbox/cpack.log")"
  debs=("$sandbox"/pkg/*.deb)
  dpkg-deb -x "${debs[0]}" "$sandbox/root" || fail "dpkg-deb -x ${debs[0]}"
  cmake -S "$src/examples/my-lock" -B "$sandbox/example" -G Ninja \
    -DCMAKE_PREFIX_PATH="$sandbox/root/usr" "${consumer_args[@]}" >"$sandbox/configure.log" 2>&1 ||
    fail "configuring the example: $(cat "$sandbox/configure.log")"
  cmake --build "$sandbox/example" >"$sandbox/build.log" 2>&1 || fail "building the example: $(cat "$sandbox/build.log")"
  (cd "$sandbox/example" && ctest >"$sandbox/ctest.log" 2>&1) || fail "the example's tests: $(cat "$sandbox/ctest.log")"
  rc=0
  out="$("$sandbox/root/usr/bin/zksim" explore --plugin "$sandbox/example/libmy_lock_plugin.so" \
    --recipe example/naive-lock --faults none --runs 20 2>&1)" || rc=$?
  [ "$rc" = 1 ] && grep -q "VIOLATION herd-effect" <<<"$out" || fail "the packaged zksim on the plugin ($rc): $out"
}

"$rule"
