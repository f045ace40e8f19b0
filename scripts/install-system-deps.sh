#!/bin/sh
# Install the system tools psab's agent runner and tests use, where this machine lets us
# (make run and make test both call it):
#   bubblewrap (bwrap) — the runner's namespace sandbox (Debian/Ubuntu package "bubblewrap");
#   python3-venv — venv and ensurepip for the system python3, which the agents' toolbox is built
#                  from (psab toolbox build; a venv of /usr/bin/python3 runs inside the sandbox).
# Without root or apt it only reports; psab run then says at its start that it falls back to
# relocation and what that leaves open, and the tests fail in strict mode (PSAB_STRICT=1, as in
# CI) rather than skip, so a missing tool is never silent.
set -u
apt_install() {  # package...: quietly, refreshing the package lists once if the first try fails
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null 2>&1 \
        || { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null 2>&1; }
}
if [ -x /usr/bin/python3 ] && ! /usr/bin/python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing python3-venv (apt-get), for the agents' toolbox"
        apt_install python3-venv || echo "note: could not install python3-venv; psab toolbox build falls back to another python"
    else
        echo "note: /usr/bin/python3 lacks venv/ensurepip (e.g. 'sudo apt-get install python3-venv'); the toolbox needs it"
    fi
fi
if command -v bwrap >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing bubblewrap (apt-get)"
    apt_install bubblewrap \
        || echo "note: could not install bubblewrap: psab run will use the weaker relocation, and the bwrap tests will not pass here"
else
    echo "note: bubblewrap (bwrap) is not installed and this is not root with apt-get: install it (sudo apt-get install bubblewrap) for the runner's namespace sandbox"
fi
exit 0
