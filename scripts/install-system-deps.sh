#!/bin/sh
# Install the system tools psab's tests use, where this machine lets us:
#   bubblewrap (bwrap) — the runner's namespace sandbox (Debian/Ubuntu package "bubblewrap").
# Without root or apt it only reports; the tests then fail in strict mode (PSAB_STRICT=1, as
# in CI) rather than skip, so a missing tool is never silent.
set -u
if command -v bwrap >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing bubblewrap (apt-get)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q bubblewrap >/dev/null 2>&1 \
        || { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q bubblewrap >/dev/null 2>&1; } \
        || echo "note: could not install bubblewrap; bwrap isolation tests will not pass here"
else
    echo "note: bubblewrap (bwrap) is not installed; install it (e.g. 'sudo apt-get install bubblewrap') for the namespace sandbox"
fi
exit 0
