"""The built-in agents' program: a standalone standard-library script.

The runner never imports this module. It reads the file's text and runs it as
``python3 -I -c <text> KIND TASK SOLUTION INSTRUCTIONS`` inside the sandbox, with the system
interpreter, and writes a JSON payload to its standard input: the attempt number, the agent's
options and — for ``reference``, ``mutant`` and ``flaky`` only — the answer, computed outside
the sandbox. Nothing of the benchmark is importable or readable from here, which is the point:
these agents go through exactly the path a real agent does.
"""

import json
import os
import signal
import subprocess
import sys
import time

HANG_MARKER = "sandbox-hang-grandchild"


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def write_answer(path, payload):
    write(path, json.dumps({"answer": payload.get("answer"), "rationale": payload.get("rationale", "")}))


def provider_error(options):
    status = str(options.get("status", "429"))
    messages = {
        "429": "Error: 429 Too Many Requests / rate limit exceeded for this model; please retry later",
        "502": "Error: request failed: 502 Bad Gateway (upstream connect error)",
        "quota": "Error: You exceeded your current quota, please check your plan and billing details",
        "reset": "Error: read ECONNRESET: connection reset by peer",
        "none": "Error: the agent stopped",
    }
    print(messages.get(status, messages["429"]), file=sys.stderr)
    sys.exit(int(options.get("exit", 75)))


# ----------------------------------------------------------------------------- escape probes


def _read(path, limit=1 << 20):
    try:
        with open(path, "rb") as f:
            return f.read(limit)
    except OSError:
        return None


def _own_cmdline():
    """This program's own command line: it quotes its own source, which names the very paths
    it looks for, so a process showing it (the sandbox's pid 1 wraps it) is not a leak."""
    return _read("/proc/self/cmdline") or b""


def escape(solution_path, payload, options):
    probe = payload.get("probe") or {}
    paths = list(probe.get("paths") or [])
    words = [w.encode() for w in (probe.get("words") or [])]
    names = set(probe.get("names") or [])
    findings = []

    def note(route, detail):
        findings.append({"route": route, "detail": detail[:300]})

    # 1. Known install, repository, data, run and home paths (absolute: relocation leaves them open).
    for p in paths + ["/work", "/root", "/home"]:
        if os.path.exists(p):
            try:
                entries = os.listdir(p) if os.path.isdir(p) else [os.path.basename(p)]
            except OSError:
                entries = ["<unlistable>"]
            if p in ("/work", "/root", "/home") and not entries:
                continue
            note("path", f"{p} exists ({len(entries)} entries)")

    # 2. The environment.
    for k, v in os.environ.items():
        blob = f"{k}={v}".encode()
        if any(w in blob for w in words) or any(p and p in v for p in paths):
            note("environ", k)

    # 3. Every process this sandbox can see: its command line, environment, cwd and root.
    own = _own_cmdline()
    for pid in sorted(p for p in os.listdir("/proc") if p.isdigit()):
        if int(pid) == os.getpid():
            continue
        for part in ("cmdline", "environ"):
            data = _read(f"/proc/{pid}/{part}")
            if data and part == "cmdline" and own:
                data = data.replace(own, b"")
            if data and (any(w in data for w in words) or any(p.encode() in data for p in paths if p)):
                note(f"/proc/{pid}/{part}", data.replace(b"\0", b" ")[:200].decode("utf-8", "replace"))
        for link in ("cwd", "root", "exe"):
            try:
                target = os.readlink(f"/proc/{pid}/{link}")
            except OSError:
                continue
            if any(w.decode() in target for w in words) or any(p and target.startswith(p) for p in paths):
                note(f"/proc/{pid}/{link}", target)
    ppid = os.getppid()
    for part in ("cwd", "root"):
        try:
            target = os.readlink(f"/proc/{ppid}/{part}")
        except OSError:
            continue
        if target not in ("/", "/sandbox") and any(target.startswith(p) for p in paths if p):
            note(f"/proc/ppid/{part}", target)

    # 4. Mounts reveal where bind mounts come from.
    mounts = _read("/proc/self/mountinfo") or b""
    for line in mounts.splitlines():
        if any(w in line for w in words) or any(p.encode() in line for p in paths if p):
            note("mountinfo", line.decode("utf-8", "replace"))

    # 5. Import the benchmark with every interpreter on PATH.
    for exe in ("python3", "python", "/usr/bin/python3"):
        for pkg in (probe.get("modules") or []):
            try:
                r = subprocess.run([exe, "-c", f"import {pkg}; print({pkg}.__file__)"], capture_output=True,
                                   text=True, timeout=20)
            except (OSError, subprocess.SubprocessError):
                continue
            if r.returncode == 0:
                note("import", f"{exe}: import {pkg} -> {r.stdout.strip()}")

    # 6. Search the whole visible file system for the benchmark's names and any key file.
    skip = {"/proc", "/sys", "/dev"}
    walk = os.walk("/", onerror=lambda e: None) if options.get("walk", 1) else ()
    for root, dirs, files in walk:
        dirs[:] = [d for d in dirs if os.path.join(root, d) not in skip]
        for n in dirs + files:
            if n in names or any(w.decode() in n for w in words):
                note("find", os.path.join(root, n))
        if len(findings) > 200:
            break

    # 7. $HOME beyond the sandbox's own files.
    home = os.environ.get("HOME", "")
    if home and any(home.startswith(p) for p in paths if p):
        note("home", home)

    write(solution_path, json.dumps({"answer": {"findings": findings},
                                     "rationale": f"{len(findings)} routes out of the sandbox found"}))


# ----------------------------------------------------------------------------- main


def main():
    kind, task_path, solution_path = sys.argv[1], sys.argv[2], sys.argv[3]
    raw = sys.stdin.read()
    payload = json.loads(raw) if raw.strip() else {}
    options = payload.get("options") or {}
    if options.get("sleep"):
        time.sleep(float(options["sleep"]))
    # Every agent reads its task, as a real one would.
    with open(task_path, encoding="utf-8") as f:
        json.load(f)

    if kind in ("reference", "mutant"):
        write_answer(solution_path, payload)
    elif kind == "flaky":
        if int(payload.get("attempt", 1)) == 1:
            print("Error: request failed: 502 Bad Gateway", file=sys.stderr)
            sys.exit(1)
        write_answer(solution_path, payload)
    elif kind == "malformed":
        write(solution_path, '{"answer": {"value": 1.0,, "rationale": "oops"')
    elif kind == "silent":
        print("I think I am done.")
    elif kind == "crash":
        print("Traceback (most recent call last):\n  File \"agent.py\", line 1\nZeroDivisionError: division by zero",
              file=sys.stderr)
        sys.exit(3)
    elif kind == "hang":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)", HANG_MARKER],
                         start_new_session=True)
        while True:
            time.sleep(3600)
    elif kind == "provider-error":
        provider_error(options)
    elif kind == "escape":
        escape(solution_path, payload, options)
    else:
        print(f"unknown built-in agent {kind}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
