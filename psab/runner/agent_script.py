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
import socket
import stat
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


# ----------------------------------------------------------------------------- openai
#
# One chat-completions request to an OpenAI-compatible server, over the standard library: the
# sandbox has only the system interpreter (psab's environment, where the ``openai`` package
# would live, is hidden from agents on purpose), and the request is a single JSON POST, so
# urllib speaks the same protocol the official client does. How each failure is reported is
# what the runner's classification reads: a provider or transport failure prints a line the
# default infrastructure rules recognise and exits 75 (EX_TEMPFAIL: retried); a reply that is
# not a chat completion exits 1 (the agent's failure); the model's text, whatever it is, is
# written as the solution only when it holds a JSON object (else it is the agent's failure too).

OPENAI_SYSTEM = ("You solve an engineering task. Reply with the solution as one JSON object "
                 '{"answer": {...}, "rationale": "..."} in a single ```json fenced block, and nothing else.')


def extract_json_object(text):
    """The first JSON object in a model's reply: a fenced block, or the whole text, or the span
    from the first '{' to the last '}'; None when there is none."""
    import re

    candidates = [m.group(1) for m in re.finditer(r"```(?:json)?\s*\n(.*?)```", text, re.S)]
    candidates.append(text)
    if "{" in text and "}" in text:
        candidates.append(text[text.index("{"):text.rindex("}") + 1])
    for c in candidates:
        try:
            value = json.loads(c)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def openai_agent(task_path, solution_path, instructions_path, options):
    import urllib.error
    import urllib.request

    with open(instructions_path, encoding="utf-8") as f:
        instructions = f.read()
    with open(task_path, encoding="utf-8") as f:
        task_text = f.read()
    user = (instructions + "\n\n## The task file (`task.json`)\n\n```json\n" + task_text + "\n```\n\n"
            "You cannot run tools: reply with the solution object itself; it will be written to the "
            "solution file for you.")
    body = {"model": options["model"], "max_tokens": int(options["max_tokens"]),
            "temperature": float(options["temperature"]),
            "messages": [{"role": "system", "content": OPENAI_SYSTEM}, {"role": "user", "content": user}]}
    key = os.environ.get(str(options["api_key_env"])) or "none"  # local servers take any key
    req = urllib.request.Request(str(options["base_url"]).rstrip("/") + "/chat/completions",
                                 data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json", "Authorization": "Bearer " + key})
    try:
        with urllib.request.urlopen(req, timeout=float(options["request_timeout_s"])) as resp:
            raw = resp.read(16 << 20)
    except urllib.error.HTTPError as exc:
        detail = exc.read(2000).decode("utf-8", "replace").replace("\n", " ")
        status = exc.code
        if status == 429:
            print(f"Error: provider returned HTTP 429 Too Many Requests (rate limit): {detail}", file=sys.stderr)
            sys.exit(75)
        if status >= 500 or status in (408, 409):
            print(f"Error: provider returned HTTP {status} {exc.reason} (server error): {detail}", file=sys.stderr)
            sys.exit(75)
        if status in (401, 403):
            print(f"Error: provider returned HTTP {status} Unauthorized (authentication failed): {detail}",
                  file=sys.stderr)
            sys.exit(75)
        print(f"Error: provider refused the request: HTTP {status} {exc.reason}: {detail}", file=sys.stderr)
        sys.exit(1)
    except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        print(f"Error: connection to the provider failed (APIConnectionError): {reason}", file=sys.stderr)
        sys.exit(75)
    try:
        reply = json.loads(raw)
        content = reply["choices"][0]["message"]["content"]
        if not isinstance(content, str):
            raise TypeError("message content is not text")
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        print(f"Error: malformed reply from the provider ({type(exc).__name__}: {exc}): {raw[:300]!r}",
              file=sys.stderr)
        sys.exit(1)
    usage = reply.get("usage") if isinstance(reply, dict) else None
    print(json.dumps({"model": reply.get("model"), "usage": usage, "finish_reason":
                      (reply["choices"][0] or {}).get("finish_reason")}))
    solution = extract_json_object(content)
    if solution is None:
        # the model's words are kept as the solution: the evaluator reports why they are not one
        write(solution_path, content)
        return
    write(solution_path, json.dumps(solution))


# ----------------------------------------------------------------------------- escape probes
#
# Every finding names the route, the path it concerns and why it counts; the test suite asserts
# that under bwrap there is none. What is looked for is what must stay out of reach: the paths the
# runner hides (psab's install, data and environment, the repository, the run directory, home),
# canaries a test planted there for this run (options ``canaries``: unique tokens in their names
# and contents; ``canary_paths``: where they are, separated by ':'), and any privilege over the
# host: capabilities, mounts, user namespaces, setuid binaries, other processes, descriptors.
# The mere name "psab" on some unrelated host file is not a finding (issue 14).

MS_RDONLY, MS_REMOUNT, MS_BIND = 1, 32, 4096
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
PTRACE_SEIZE = 0x4206
VIRTUAL_FS = {"tmpfs", "proc", "sysfs", "devpts", "devtmpfs", "mqueue", "cgroup", "cgroup2", "securityfs",
              "debugfs", "tracefs", "pstore", "bpf", "hugetlbfs", "fusectl", "configfs", "binfmt_misc", "autofs",
              "nsfs", "ramfs"}


def _read(path, limit=1 << 20):
    try:
        with open(path, "rb") as f:
            return f.read(limit)
    except OSError:
        return None


def _own_cmdline():
    """This program's own command line: it quotes its own source, so a process showing it (the
    sandbox's pid 1 wraps it) is not a leak."""
    return _read("/proc/self/cmdline") or b""


def _status(pid="self"):
    out = {}
    for line in (_read(f"/proc/{pid}/status") or b"").decode("utf-8", "replace").splitlines():
        k, _, v = line.partition(":")
        out[k] = v.split()
    return out


def _mounts():
    """(mount point, per-mount options, fs type, source root) of every mount visible here."""
    out = []
    for line in (_read("/proc/self/mountinfo") or b"").decode("utf-8", "replace").splitlines():
        left, _, right = line.partition(" - ")
        f, r = left.split(), right.split()
        if len(f) >= 6 and r:
            point = f[4].replace("\\040", " ")
            out.append((point, f[5].split(","), r[0], f[3].replace("\\040", " ")))
    return out


def _masked(path):
    """The runner covers a hidden path inside a visible tree with an empty tmpfs (a directory)
    or /dev/null (a file): there, but showing nothing."""
    try:
        if stat.S_ISCHR(os.stat(path).st_mode):
            return True
        return os.path.isdir(path) and not os.listdir(path)
    except OSError:
        return False


def _root_of_host():
    """True when this process is root in the host's own user namespace: no sandbox at all (the
    relocate mode run by root). The probes that change mounts are then not run — they would
    change the host — and that fact is the finding."""
    m = (_read("/proc/self/uid_map") or b"").split()
    return os.geteuid() == 0 and m[:3] == [b"0", b"0", b"4294967295"]


def _libc():
    import ctypes
    import ctypes.util

    libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
    libc.ptrace.restype = ctypes.c_long
    return ctypes, libc


def _in_child(fn):
    """Run ``fn`` (returning a short string or '') in a forked child and return its result, so a
    namespace it enters or a process it traces never touches this one."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - child
        os.close(r)
        try:
            out = fn() or ""
        except BaseException as exc:  # noqa: BLE001
            out = f"!{type(exc).__name__}"
        os.write(w, out.encode()[:4000])
        os._exit(0)
    os.close(w)
    chunks = []
    while True:
        b = os.read(r, 4096)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    os.waitpid(pid, 0)
    return b"".join(chunks).decode("utf-8", "replace")


def _run(argv, timeout=10):
    try:
        r = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    return r


def escape(solution_path, payload, options):
    probe = payload.get("probe") or {}
    paths = [p for p in (probe.get("paths") or []) if p]
    words = [w.encode() for w in (probe.get("words") or [])]
    tokens = [t for t in str(options.get("canaries") or "").split(",") if t]
    canary_paths = [p for p in str(options.get("canary_paths") or "").split(":") if p]
    btokens = [t.encode() for t in tokens]
    findings = []
    me = os.getpid()

    def note(route, path, why, detail=""):
        findings.append({"route": route, "path": str(path)[:300], "why": why, "detail": str(detail)[:300]})

    def secret_in(blob):
        """The hidden path or canary token ``blob`` (bytes) shows, or None."""
        for t in btokens:
            if t in blob:
                return t.decode()
        for p in paths:
            if p.encode() in blob:
                return p
        return None

    # 1. Hidden paths and planted canaries by absolute path (relocation leaves them open).
    for p in paths:
        if os.path.lexists(p) and not _masked(p):
            note("path", p, "a path the runner hides from agents exists here")
    for p in canary_paths:
        if os.path.lexists(p):
            data = _read(p, 4096)
            why = "a canary planted outside the sandbox for this run is "
            note("canary", p, why + ("readable" if data is not None else "visible"), (data or b"")[:120])
    for p in ("/work", "/root", "/home"):
        try:
            entries = os.listdir(p)
        except OSError:
            continue
        if entries:
            note("path", p, "a host directory with content is visible", f"{len(entries)} entries")

    # 2. The environment: psab's words, hidden paths, canaries.
    for k, v in os.environ.items():
        blob = f"{k}={v}".encode()
        hit = secret_in(blob) or next((w.decode() for w in words if w in blob), None)
        if hit:
            note("environ", k, f"the agent's environment mentions {hit!r}")

    # 3. Every process this sandbox can see: its command line, environment, cwd, root, exe.
    own = _own_cmdline()
    for pid in sorted(p for p in os.listdir("/proc") if p.isdigit()):
        if int(pid) == me:
            continue
        for part in ("cmdline", "environ"):
            data = _read(f"/proc/{pid}/{part}")
            if data and part == "cmdline" and own:
                data = data.replace(own, b"")
            hit = data and (secret_in(data) or next((w.decode() for w in words if w in data), None))
            if hit:
                note(f"/proc/{pid}/{part}", f"/proc/{pid}/{part}", f"another process shows {hit!r}",
                     data.replace(b"\0", b" ")[:200].decode("utf-8", "replace"))
        for link in ("cwd", "root", "exe"):
            try:
                target = os.readlink(f"/proc/{pid}/{link}")
            except OSError:
                continue
            hit = secret_in(target.encode()) or next((w.decode() for w in words if w.decode() in target), None)
            if hit:
                note(f"/proc/{pid}/{link}", target, f"another process's {link} is in a hidden place ({hit!r})")

    # 4. Mounts: a bind whose source is a hidden path (or shows a canary) leaks it; the masks
    # the runner lays over hidden paths are empty tmpfs and do not count.
    mounts = _mounts()
    for point, _opts, fstype, root in mounts:
        if fstype in VIRTUAL_FS:
            continue
        hit = secret_in(root.encode()) or secret_in(point.encode())
        if hit:
            note("mountinfo", point, f"a mount shows a hidden place ({hit!r}) from {root}")

    # 5. Import the benchmark (and any planted canary package) with every interpreter on PATH.
    modules = list(probe.get("modules") or []) + [f"canary_{t}" for t in tokens]
    for exe in ("python3", "python", "/usr/bin/python3"):
        for pkg in modules:
            r = _run([exe, "-c", f"import {pkg}; print({pkg}.__file__)"], timeout=20)
            if r is not None and r.returncode == 0:
                note("import", r.stdout.strip(), f"{exe} can import {pkg}")

    # 6. Search the visible file system for the canaries' names (and collect setuid files).
    setuid = []
    skip = {"/proc", "/sys", "/dev"}
    walk = os.walk("/", onerror=lambda e: None) if options.get("walk", 1) else ()
    for root, dirs, files in walk:
        dirs[:] = [d for d in dirs if os.path.join(root, d) not in skip]
        for n in dirs + files:
            if any(t in n for t in tokens):
                note("find", os.path.join(root, n), "a file named after a canary of this run is visible")
        for n in files:
            try:
                st = os.lstat(os.path.join(root, n))
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode) and st.st_mode & (stat.S_ISUID | stat.S_ISGID) and len(setuid) < 500:
                setuid.append(os.path.join(root, n))
        if len(findings) > 200:
            break

    # 7. $HOME beyond the sandbox's own files.
    home = os.environ.get("HOME", "")
    if home and any(home.startswith(p) for p in paths):
        note("home", home, "$HOME is a hidden place")

    # 8. Privilege: the user and capabilities this process holds.
    st = _status()
    cap = int((st.get("CapEff") or ["0"])[0], 16)
    uid_map = (_read("/proc/self/uid_map") or b"").decode().split()
    if os.geteuid() == 0 or cap:
        note("privilege", "/proc/self/status", "the agent runs as root or holds capabilities (CapEff "
             f"{cap:016x}, uid {os.geteuid()}, uid_map {' '.join(uid_map)}): it can mount, trace and write as root")
    # Files of host root show as owned by the agent only when its user is host root (an
    # unmapped owner shows as the overflow id, 65534): then whatever it writes is root's.
    for d in ("/usr", "/etc"):
        try:
            owner = os.stat(d).st_uid
        except OSError:
            continue
        if owner == os.geteuid():
            note("privilege", d, f"the agent's user owns the host's {d}: it is host root (uid_map {' '.join(uid_map)})")
    host_root = _root_of_host()
    if host_root:
        note("privilege", "/", "the agent is root of the host itself; the mount, write and namespace "
             "probes were not run because they would change the host")

    # 9. Descriptors it inherited: none beyond stdio; none a directory (openat(.., "..") walks
    # out of any mount); none reopened through /proc/self/fd for more than it was given.
    fds = sorted(int(f) for f in os.listdir("/proc/self/fd") if f.isdigit())
    for fd in fds:
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
            info = (_read(f"/proc/self/fdinfo/{fd}") or b"").decode()
        except OSError:
            continue  # the descriptor os.listdir itself used
        flags = next((int(line.split()[1], 8) for line in info.splitlines() if line.startswith("flags:")), 0)
        if fd > 2:
            note("fd", f"/proc/self/fd/{fd}", "a descriptor beyond stdin, stdout and stderr was inherited", target)
            continue
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            note("fd", f"/proc/self/fd/{fd}", "an inherited descriptor is a directory", target)
        try:
            regular = stat.S_ISREG(os.stat(f"/proc/self/fd/{fd}").st_mode)
        except OSError:
            regular = False
        # /dev/null and pipes are anyone's to write; a file is what must not be
        if regular and flags & os.O_ACCMODE == os.O_RDONLY and not host_root:
            try:
                w = os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | os.O_APPEND)
            except OSError:
                pass
            else:
                os.close(w)
                note("fd", f"/proc/self/fd/{fd}", "a read-only inherited descriptor reopened for writing", target)

    # 10. Remount read-only binds read-write: /, /etc, /usr and every mount visible.
    ctypes, libc = _libc()
    if not host_root:
        ro = {p for p, o, _f, _r in mounts if "ro" in o}
        for point in dict.fromkeys(["/", "/etc", "/usr", *(p for p, _o, _f, _r in mounts)]):
            if libc.mount(None, point.encode(), None, MS_REMOUNT | MS_BIND, None) == 0:
                note("mount", point, "a bind mount was remounted read-write (mount(2) MS_REMOUNT|MS_BIND)")
                if point in ro:
                    libc.mount(None, point.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)
            for how in ("remount,rw", "remount,bind,rw"):
                r = _run(["mount", "-o", how, point])
                if r is not None and r.returncode == 0:
                    note("mount", point, f"`mount -o {how}` succeeded")
                    if point in ro:  # per-mount flag only: never a superblock remount to ro
                        libc.mount(None, point.encode(), None, MS_REMOUNT | MS_BIND | MS_RDONLY, None)

    # 11. New namespaces: a user namespace of its own makes the agent root of it (with every
    # capability over what that namespace owns); a mount namespace needs CAP_SYS_ADMIN.
    if not host_root:
        for argv in (["unshare", "-U", "true"], ["unshare", "-Ur", "true"], ["unshare", "-m", "true"]):
            r = _run(argv)
            if r is not None and r.returncode == 0:
                note("unshare", " ".join(argv), "a new namespace could be created")
        for name, flag in (("CLONE_NEWUSER", CLONE_NEWUSER), ("CLONE_NEWNS", CLONE_NEWNS)):
            res = _in_child(lambda flag=flag: "ok" if libc.unshare(flag) == 0 else "")
            if res == "ok":
                note("unshare", f"unshare({name})", "a new namespace could be created")
        r = _run(["unshare", "-Ur", "sh", "-c", "mount -o remount,bind,rw /etc && echo REMOUNTED"])
        if r is not None and "REMOUNTED" in r.stdout:
            note("unshare", "/etc", "root of a nested user namespace remounted /etc read-write")

    # 12. Setuid binaries: they raise privilege only without no_new_privs, on a mount without
    # nosuid, owned by a user mapped here; sudo without a password is the simplest test of all.
    nnp = (st.get("NoNewPrivs") or ["0"])[0] == "1"
    for f in setuid:
        try:
            nosuid = bool(os.statvfs(f).f_flag & os.ST_NOSUID)
        except OSError:
            continue
        if not nosuid and not nnp:
            note("setuid", f, "a setuid/setgid binary on a mount without nosuid, and no_new_privs is off")
    r = _run(["sudo", "-n", "id", "-u"])
    if r is not None and r.returncode == 0 and r.stdout.strip() == "0" and os.geteuid() != 0:
        note("setuid", "sudo", "sudo -n gave root")

    # 13. Trace the parent (and pid 1): a finding when it succeeds on a process that has more
    # than the agent (another user, capabilities, other namespaces or root, a directory open).
    def more_privileged(pid):
        theirs = _status(pid)
        why = []
        if theirs.get("Uid", [None])[:1] != [str(os.geteuid())]:
            why.append(f"uid {theirs.get('Uid')}")
        if int((theirs.get("CapEff") or ["0"])[0], 16):
            why.append("capabilities")
        for ns in ("user", "mnt", "pid", "net"):
            try:
                if os.readlink(f"/proc/{pid}/ns/{ns}") != os.readlink(f"/proc/self/ns/{ns}"):
                    why.append(f"another {ns} namespace")
            except OSError:
                pass
        try:
            if os.readlink(f"/proc/{pid}/root") != os.readlink("/proc/self/root"):
                why.append("another root")
        except OSError:
            pass
        try:
            for fd in os.listdir(f"/proc/{pid}/fd"):
                if os.path.isdir(f"/proc/{pid}/fd/{fd}"):
                    why.append(f"a directory open (fd {fd})")
        except OSError:
            pass
        return why

    for pid in dict.fromkeys([os.getppid(), 1]):
        if pid in (0, me):
            continue
        got = _in_child(lambda pid=pid: "ok" if libc.ptrace(PTRACE_SEIZE, pid, None, None) == 0 else "")
        try:
            os.close(os.open(f"/proc/{pid}/mem", os.O_RDONLY))
            got = got or "mem"
        except OSError:
            pass
        if got:
            why = more_privileged(pid)
            if why:
                note("ptrace", f"/proc/{pid}", f"the agent can trace process {pid}, which has " + ", ".join(why))

    # 14. Write into what is read-only: every mount of a real file system but the agent's own box
    # (the exposed directories among them) — a file made there would reach the host.
    box = os.path.dirname(os.path.abspath(solution_path))
    if not host_root:
        for point, _opts, fstype, _root in mounts:
            if fstype in VIRTUAL_FS or point == box or not os.path.isdir(point):
                continue
            probe_file = os.path.join(point, f".escape-probe-{me}")
            try:
                fd = os.open(probe_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except OSError:
                continue
            os.close(fd)
            os.unlink(probe_file)
            note("write", point, "the agent created a file on a host file system outside its box")

    # 15. Totals (issue 32, item 7; options ``procs``, ``tmp_mb``, ``shm_mb``: the targets, set above
    # the run's limits by the test): hold that many processes at once, fill /tmp and /dev/shm that
    # far, and write anywhere in memory that has no size at all (bwrap's root, /dev).
    if options.get("procs"):
        held = _hold_processes(int(options["procs"]))
        if held >= int(options["procs"]):
            note("totals", "processes", f"the agent held {held} processes at once")
    for key, where in (("tmp_mb", "/tmp"), ("shm_mb", "/dev/shm")):
        if options.get(key):
            wrote = _fill(where, int(options[key]))
            if wrote >= int(options[key]):
                note("totals", where, f"the agent wrote {wrote} MB to {where}")
    if options.get("procs") or options.get("tmp_mb"):
        for point in ("/", "/dev", "/run", "/var/tmp"):
            probe_file = os.path.join(point, f".escape-probe-{me}")
            try:
                fd = os.open(probe_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except OSError:
                continue
            os.close(fd)
            os.unlink(probe_file)
            note("totals", point, "the agent created a file in memory that has no size limit")

    # 16. The network (issue 32, item 6; options ``net_port``: a port the test listens on, on every
    # host address; ``net_addrs``: the host's addresses, separated by ','): with a network of its
    # own the agent reaches neither that port nor any other host, sees no interface but loopback
    # and none of the host's sockets in /proc/net.
    if options.get("net_port"):
        port = int(options["net_port"])
        for addr in ["127.0.0.1", *[a for a in str(options.get("net_addrs") or "").split(",") if a]]:
            try:
                s = socket.create_connection((addr, port), timeout=3)
            except OSError:
                continue
            s.close()
            note("network", f"{addr}:{port}", "the agent reached a port on the host beyond its model API")
        hexport = f":{port:04X}"
        for table in ("/proc/net/tcp", "/proc/net/tcp6"):
            for line in (_read(table) or b"").decode("ascii", "replace").splitlines()[1:]:
                fields = line.split()
                if len(fields) > 3 and fields[1].endswith(hexport) and fields[3] == "0A":  # LISTEN
                    note("network", table, "the agent reads the host's sockets (a listening one of the test's)")
        for line in (_read("/proc/net/dev") or b"").decode("ascii", "replace").splitlines()[2:]:
            name = line.split(":", 1)[0].strip()
            if name and name != "lo":
                note("network", "/proc/net/dev", f"the agent has a network interface beyond loopback ({name})")

    write(solution_path, json.dumps({"answer": {"findings": findings},
                                     "rationale": f"{len(findings)} routes out of the sandbox found"}))


def _hold_processes(target):
    """Fork children that wait on a pipe until ``target`` are alive at once (or fork fails);
    then release them and return how many there were."""
    r, w = os.pipe()
    pids = []
    try:
        while len(pids) < target:
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:  # pragma: no cover - child
                os.close(w)
                os.read(r, 1)
                os._exit(0)
            pids.append(pid)
    finally:
        os.close(w)  # every child's read returns
        os.close(r)
        for pid in pids:
            os.waitpid(pid, 0)
    return len(pids)


def _fill(where, target_mb):
    """Write up to ``target_mb`` MB into a file under ``where``; return the whole MB written."""
    path = os.path.join(where, f".escape-fill-{os.getpid()}")
    block, n = b"\0" * (1 << 20), 0
    try:
        with open(path, "wb", buffering=0) as f:
            while n < target_mb:
                if f.write(block) != len(block):
                    break
                n += 1
    except OSError:
        pass
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    return n


# ----------------------------------------------------------------------------- main


def main():
    kind, task_path, solution_path, instructions_path = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
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
    elif kind == "openai":
        openai_agent(task_path, solution_path, instructions_path, options)
    else:
        print(f"unknown built-in agent {kind}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
