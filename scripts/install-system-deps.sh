#!/bin/sh
# Install the system tools psab's agent runner and tests use, where this machine lets us
# (make run and make test both call it):
#   bubblewrap (bwrap) — the runner's namespace sandbox (Debian/Ubuntu package "bubblewrap").
# Without root or apt it only reports; psab run then says at its start that it falls back to
# relocation and what that leaves open, and the tests fail in strict mode (PSAB_STRICT=1, as in
# CI) rather than skip, so a missing tool is never silent.
set -u
if command -v bwrap >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing bubblewrap (apt-get)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q bubblewrap >/dev/null 2>&1 \
        || { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q bubblewrap >/dev/null 2>&1; } \
        || echo "note: could not install bubblewrap: psab run will use the weaker relocation, and the bwrap tests will not pass here"
else
    echo "note: bubblewrap (bwrap) is not installed and this is not root with apt-get: install it (sudo apt-get install bubblewrap) for the runner's namespace sandbox"
fi
exit 0
