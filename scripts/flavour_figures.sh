#!/usr/bin/env bash
# The client-flavour figures (docs/flavours.md): the flawed recipes a flavour
# exposes, each under its own nemesis and flavour (scripts/flaw_figures.sh).
# Usage: scripts/flavour_figures.sh [BUILD_DIR]
set -euo pipefail
exec "$(dirname "$0")/flaw_figures.sh" "$@" flawed/stale-node-election flawed/node-events-only-lock \
  flawed/session-event-barrier flawed/unsynchronized-wait-lock
