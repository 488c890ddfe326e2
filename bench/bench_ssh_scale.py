#!/usr/bin/env python3
"""bench_ssh_scale - the DVM over 16 and 32 ssh nodes (issue 15 item 6): the real
prte/prted/prun/pterm through the built-in ssh client (libssh2) against real sshd, one
per node of a netns cluster on this machine (scripts/cluster.sh up N; ssh). Run by hand,
as root; not a CI test. Every value is printed against a baseline measured in the same
run, with the issue's goals next to it as targets (never pass/fail):

  baselines      fork/exec of 64 and 256 /bin/true at once (posix_spawn, then waitpid);
                 OpenSSH's `ssh node1 true` and `ssh node1 prted --version`; prte alone
                 (no remote host); prte --host node1: one ssh connection plus one prted
                 start through our own path (the goal's baseline)
  DVM start-up   prte --daemonize --host node1..nodeN until ready: flat (the controller
                 starts every prted) and tree spawn (--prtemca plm_ssh_tree_radix K,
                 default K = ceil(sqrt(N)): depth 2); the controller's CPU and each
                 node's (sshd + prted) CPU at ready, for docs/SCALE.md's model
  prun           -n 64 and -n 256 /bin/true over all N nodes (--map-by node) against
                 fork/exec of the same count
  fence          bench_fence (a PMIx client: barrier, and Put + Commit + Fence with
                 PMIX_COLLECT_DATA of 64 B .. 16 KiB) at 64 ranks over the nodes against
                 64 ranks on node1; one rank per node (1, N) as a barrier and with 64 KiB,
                 with the controller's CPU per fence (from two runs of different length)
  pterm          of an idle N-node DVM: until pterm returns, prte exits, no prted left
  leftovers      after every DVM: no process on any node but its sshd listener, nothing
                 in our TMPDIR, no file in /tmp naming one of the run's prted pids, nothing
                 new in the cluster's HOME

Cleans up on every exit path (error, Ctrl-C, SIGTERM/SIGHUP, --timeout of a command):
the DVM killed, the cluster down (its namespaces, processes and files), the work
directory removed.

usage: bench_ssh_scale.py --build DIR [--nodes 16,32] [--reps R] [--radix K[,K]] [--quick]
"""
import argparse
import ctypes
import math
import os
import re
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_nodes import forkexec_n  # noqa: E402 (the same baseline as bench_nodes.py's)

ROOT = ["--allow-run-as-root"] if os.geteuid() == 0 else []
HZ = os.sysconf("SC_CLK_TCK")
SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLUSTER = os.path.join(SRC, "scripts", "cluster.sh")
STATE = os.environ.get("PXCLUSTER_STATE", "/run/pxcluster")


class Interrupted(Exception):
    pass


def on_signal(signo, _frame):
    raise Interrupted(f"signal {signo}")


# ---- processes --------------------------------------------------------------------------

class Runner:
    """Runs commands with a bound, output to a log; remembers the one running so the
    clean-up can kill it."""

    def __init__(self, env, log, timeout):
        self.env, self.log, self.timeout = env, log, timeout
        self.current = None

    def run(self, argv, timeout=None, out=None):
        """argv with stdin /dev/null, stdout and stderr to out (else appended to the log);
        seconds from spawn to exit. Raises on a non-zero exit or the timeout."""
        with open(self.log, "a") as f:
            f.write("$ " + " ".join(argv) + "\n")
        if out:
            fd = os.open(out, os.O_WRONLY | os.O_TRUNC | os.O_CREAT, 0o600)
        else:
            fd = os.open(self.log, os.O_WRONLY | os.O_APPEND, 0o600)
        acts = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, fd, 1), (os.POSIX_SPAWN_DUP2, fd, 2)]
        t0 = time.monotonic()
        try:
            pid = os.posix_spawn(argv[0], argv, self.env, file_actions=acts, setsid=True)
        finally:
            os.close(fd)
        self.current = pid
        st = wait_pid(pid, timeout or self.timeout)
        t = time.monotonic() - t0
        self.current = None
        if st is None:
            kill_group(pid)
            os.waitpid(pid, 0)
            raise RuntimeError(f"{' '.join(argv)} did not end within "
                               f"{timeout or self.timeout} s\n{self.tail(out)}")
        if os.waitstatus_to_exitcode(st) != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {os.waitstatus_to_exitcode(st)}\n"
                               f"{self.tail(out)}")
        return t

    def tail(self, out=None, n=25):
        try:
            with open(out or self.log) as f:
                return "".join(f.readlines()[-n:])
        except OSError:
            return ""

    def kill_current(self):
        if self.current is not None:
            kill_group(self.current)
            try:
                os.waitpid(self.current, 0)
            except ChildProcessError:
                pass
            self.current = None


def wait_pid(pid, timeout):
    """Wait for a child's exit through a pidfd: its wait status, or None on the timeout."""
    fd = os.pidfd_open(pid)
    try:
        p = select.poll()
        p.register(fd, select.POLLIN)
        if not p.poll(timeout * 1000):
            return None
        return os.waitpid(pid, 0)[1]
    finally:
        os.close(fd)


def wait_gone(pid, timeout):
    """Wait for any process's end (ours reaped): True when it ended within the timeout."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        p = select.poll()
        p.register(fd, select.POLLIN)
        ok = bool(p.poll(timeout * 1000))
    finally:
        os.close(fd)
    if ok:
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
    return ok


def kill_group(pid):
    for f in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            f()
        except OSError:
            pass



def cpu_ns(pid):
    """A process's CPU time so far (ns, /proc/PID/schedstat) and its reaped children's
    (ns, from cutime + cstime ticks); (0, 0) when it is gone."""
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            own = int(f.read().split()[0])
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        children = (int(fields[13]) + int(fields[14])) * 1_000_000_000 // HZ
        return own, children
    except (OSError, IndexError, ValueError):
        return 0, 0


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


# ---- the cluster ------------------------------------------------------------------------

class Cluster:
    """scripts/cluster.sh's nodes with their sshd, under a name and /24 of this run."""

    def __init__(self, name, net, env):
        self.name, self.net, self.n = name, net, 0
        self.env = dict(env, PXCLUSTER_NET=net, PXCLUSTER_OWNER=str(os.getpid()))
        self.home = None
        self.ino = {}

    def cl(self, *args):
        r = subprocess.run([CLUSTER, "-n", self.name] + list(args), env=self.env,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120)
        if r.returncode != 0:
            raise RuntimeError(f"cluster.sh {' '.join(args)}: {r.stderr.strip()}")
        return r.stdout.strip()

    def up(self, n):
        self.n = n
        self.cl("up", str(n))
        self.home = self.cl("ssh")
        self.ino = {}
        for i in range(1, n + 1):
            st = os.stat(f"/run/netns/{self.name}-node{i}")
            self.ino[(st.st_dev, st.st_ino)] = i

    def down(self):
        if self.n:
            self.cl("down")
        self.n = 0

    def procs(self):
        """{node index: [pid, ...]} of every process in the nodes' network namespaces."""
        out = {i: [] for i in range(1, self.n + 1)}
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                st = os.stat(f"/proc/{d}/ns/net")
            except OSError:
                continue
            i = self.ino.get((st.st_dev, st.st_ino))
            if i is not None:
                out[i].append(int(d))
        return out

    def listener(self, i):
        try:
            with open(f"{STATE}/{self.name}/sshd/node{i}/sshd.pid") as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def ours(self):
        """{node: [pid, ...]}: the processes on the nodes other than their sshd listener."""
        return {i: [p for p in ps if p != self.listener(i)] for i, ps in self.procs().items()}

    def listeners_cpu(self):
        return {i: sum(cpu_ns(self.listener(i))) for i in range(1, self.n + 1)}


# ---- the DVM ----------------------------------------------------------------------------

class Dvm:
    def __init__(self, b, run, cluster, tmp, work):
        self.b, self.r, self.c, self.tmp, self.work = b, run, cluster, tmp, work
        self.pid = None
        self.prteds = set()  # every prted pid seen on the nodes while this DVM ran
        self.uri = os.path.join(work, "uri")

    def start(self, hosts, extra=(), out=None):
        """prte --daemonize until ready: (seconds, the controller's CPU ns, {node: its
        CPU ns for sshd + prted}, {node: of that, prted's own})."""
        base = self.c.listeners_cpu()
        pidf = os.path.join(self.work, "pid")
        argv = [self.b["prte"], "--daemonize", "--report-uri", self.uri, "--report-pid",
                pidf] + ROOT + list(extra)
        if hosts:
            argv += ["--host", hosts]
        t = self.r.run(argv, out=out)
        with open(pidf) as f:
            self.pid = int(f.read().strip())
        ctrl = sum(cpu_ns(self.pid))
        nodes, prted = {}, {}
        procs = self.c.ours()
        after = self.c.listeners_cpu()
        for i, ps in procs.items():
            if not ps:
                continue
            nodes[i] = sum(sum(cpu_ns(p)) for p in ps) + after[i] - base[i]
            mine = [p for p in ps if "prted" in cmdline(p)]
            prted[i] = sum(sum(cpu_ns(p)) for p in mine)
            self.prteds.update(mine)
        return t, ctrl, nodes, prted

    def prted_cpu(self):
        """The CPU ns of this DVM's prteds so far (their own, not their jobs')."""
        return sum(cpu_ns(p)[0] for p in self.prteds)

    def prun(self, *args, out=None):
        argv = [self.b["prun"], "--dvm-uri", "file:" + self.uri] + ROOT + ["--stdin", "none"]
        return self.r.run(argv + list(args), out=out)

    def cpu(self):
        return sum(cpu_ns(self.pid))

    def stop(self):
        """pterm: (until pterm returned, until prte exited, until no prted is on a node)."""
        t0 = time.monotonic()
        self.r.run([self.b["pterm"], "--dvm-uri", "file:" + self.uri] + ROOT)
        t_pterm = time.monotonic() - t0
        if not wait_gone(self.pid, 30):
            raise RuntimeError(f"prte {self.pid} still runs 30 s after pterm")
        t_prte = time.monotonic() - t0
        self.pid = None
        deadline = t0 + 30
        while True:
            left = [p for ps in self.c.procs().values() for p in ps if p in self.prteds]
            t_nodes = time.monotonic() - t0
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.002)
        return t_pterm, t_prte, t_nodes

    def kill(self):
        if self.pid is not None:
            kill_group(self.pid)
            wait_gone(self.pid, 10)
            self.pid = None


def leftovers(cluster, dvm, tmp, home_before):
    """What a stopped DVM left: processes on the nodes, files. [] when nothing."""
    found = []
    deadline = time.monotonic() + 30  # sessions closing after pterm: bounded
    while True:
        ours = {i: ps for i, ps in cluster.ours().items() if ps}
        if not ours or time.monotonic() > deadline:
            break
        time.sleep(0.01)
    for i, ps in ours.items():
        found += [f"node{i}: process {p} {cmdline(p)}" for p in ps]
    found += [f"TMPDIR: {e}" for e in sorted(os.listdir(tmp))]
    if dvm.prteds:
        pat = re.compile(r"(?<![0-9])(" + "|".join(str(p) for p in dvm.prteds) + r")(?![0-9])")
        found += [f"/tmp/{e} (names a prted pid)" for e in sorted(os.listdir("/tmp"))
                  if pat.search(e)]
    found += [f"HOME: {e}" for e in sorted(home_files(cluster.home) - home_before)]
    dvm.prteds = set()
    return found


def home_files(home):
    out = set()
    for d, _dirs, files in os.walk(home):
        out.update(os.path.relpath(os.path.join(d, f), home) for f in files)
    return out


# ---- measures ---------------------------------------------------------------------------

def med(xs):
    return statistics.median(xs) if xs else float("nan")


def ms(x):
    return f"{x * 1000:.2f} ms" if abs(x) < 0.01 else f"{x * 1000:.1f} ms"


def parse_fence(path):
    """bench_fence's lines: {size: microseconds}."""
    res = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"N=(\d+) size=(\d+) fence_us=([0-9.]+)", line)
            if m:
                res[int(m.group(2))] = float(m.group(3))
    return res


class Bench:
    def __init__(self, o, b, env, work, tmp):
        self.o, self.b, self.env, self.work, self.tmp = o, b, env, work, tmp
        self.run = Runner(env, os.path.join(work, "log"), o.timeout)
        name = f"pxsc{os.getpid() % 100000}"
        self.cluster = Cluster(name, f"10.214.{os.getpid() % 250}", env)
        self.dvm = None
        self.rows = []
        self.nleft = 0
        self.reps = 3 if o.quick else o.reps

    def row(self, n, what, value, base="", ratio="", goal=""):
        self.rows.append((n, what, value, base, ratio, goal))
        print(f"  {what:44} {value:>12} {base:>26} {ratio:>10}  {goal}", flush=True)

    def check_left(self, what):
        left = leftovers(self.cluster, self.dvm, self.tmp, self.home_before)
        if left:
            self.nleft += len(left)
            print(f"  leftovers after {what}: {len(left)}")
            for x in left:
                print(f"    {x}")
        else:
            print(f"  leftovers after {what}: none (every node, TMPDIR, /tmp, HOME)")
        return left

    def ssh_argv(self, *cmd):
        h = os.path.join(self.cluster.home, ".ssh")
        return ["/usr/bin/ssh", "-F", os.path.join(h, "config"), "-i",
                os.path.join(h, "id_ed25519"), "-o", "UserKnownHostsFile=" +
                os.path.join(h, "known_hosts"), "-o", "BatchMode=yes", "-o",
                "StrictHostKeyChecking=yes", "-o", "ControlMaster=no", "node1"] + list(cmd)

    def start_stop(self, hosts, extra=()):
        t, ctrl, nodes, prted = self.dvm.start(hosts, extra)
        stop = self.dvm.stop()
        return t, ctrl, nodes, prted, stop

    def one_size(self, n):
        c, d, reps = self.cluster, self.dvm, self.reps
        print(f"\n== {n} nodes (cluster {c.name}, {c.net}.0/24) ==", flush=True)
        c.up(n)
        self.env["HOME"] = c.home
        self.home_before = home_files(c.home)
        allhosts = ",".join(f"node{i}" for i in range(1, n + 1))
        slots = ",".join(f"node{i}:64" for i in range(1, n + 1))
        radixes = [math.ceil(math.sqrt(n))] if self.o.radix is None else self.o.radix

        # -- baselines, interleaved: OpenSSH, prte alone, prte with one remote node
        prted = self.b["prted"]
        self.run.run(self.ssh_argv("true"))  # the first connection: untimed
        ssh1, sshp, dvm0, dvm1, cpu0, cpu1, rem1, pd1 = [], [], [], [], [], [], [], []
        for _ in range(reps):
            ssh1.append(self.run.run(self.ssh_argv("true")))
            sshp.append(self.run.run(self.ssh_argv(f"'{prted}' --version")))
            t, ctrl, _nodes, _prted, _ = self.start_stop(None)
            dvm0.append(t)
            cpu0.append(ctrl)
            t, ctrl, nodes, prted_cpu, _ = self.start_stop("node1")
            dvm1.append(t)
            cpu1.append(ctrl)
            rem1.append(nodes.get(1, 0))
            pd1.append(prted_cpu.get(1, 0))
        self.check_left("the baselines' DVMs")
        base1 = med(dvm1)
        print(f"\n  {'measure':44} {'value':>12} {'baseline':>26} {'ratio':>10}  goal")
        self.row(n, "ssh node1 true (OpenSSH)", ms(med(ssh1)))
        self.row(n, "ssh node1 prted --version (OpenSSH)", ms(med(sshp)))
        self.row(n, "prte alone (no remote host) until ready", ms(med(dvm0)),
                 f"CPU {ms(med(cpu0) / 1e9)}")
        self.row(n, "prte --host node1 until ready (= 1 hop)", ms(base1),
                 f"CPU {ms(med(cpu1) / 1e9)} + node {ms(med(rem1) / 1e9)}")
        self.row(n, "  node1's CPU: sshd / prted", ms((med(rem1) - med(pd1)) / 1e9),
                 f"prted {ms(med(pd1) / 1e9)}")

        # -- DVM start-up, flat and tree; pterm of each idle DVM
        goal16 = n == 16
        flat, cflat, rflat, pt = [], [], [], []
        for _ in range(reps):
            t, ctrl, nodes, _prted, stop = self.start_stop(slots)
            if len(nodes) != n:
                raise RuntimeError(f"prte up with processes on {len(nodes)} of {n} nodes")
            flat.append(t)
            cflat.append(ctrl)
            rflat.append(med(list(nodes.values())))
            pt.append(stop)
        self.check_left(f"{reps} flat {n}-node DVMs")
        self.row(n, f"DVM start, {n} nodes, flat", ms(med(flat)), f"{ms(base1)} (1 hop)",
                 f"{med(flat) / base1:.2f}x", "<= 3x 1 hop" if goal16 else "")
        self.row(n, "  controller CPU / node CPU (sshd+prted)",
                 f"{ms(med(cflat) / 1e9)}", f"node {ms(med(rflat) / 1e9)}")
        for k in radixes:
            log = os.path.join(self.work, f"tree{k}.out")
            self.dvm.start(slots, ["--prtemca", "plm_ssh_tree_radix", str(k), "-v"], out=log)
            self.dvm.stop()
            with open(log) as f:
                text = f.read()
            parents = re.findall(r"daemon (\d+) \((\S+)\) starts (\d+) daemons of the tree", text)
            started = sum(int(x[2]) for x in parents)
            expect = max(0, n - k)
            if started != expect:
                raise RuntimeError(f"radix {k}: the daemons started {started} children, "
                                   f"{expect} expected:\n{text[-2000:]}")
            tree, ctree = [], []
            for _ in range(reps):
                t, ctrl, nodes, _prted, stop = self.start_stop(
                    slots, ["--prtemca", "plm_ssh_tree_radix", str(k)])
                if len(nodes) != n:
                    raise RuntimeError(f"prte up with processes on {len(nodes)} of {n} nodes")
                tree.append(t)
                ctree.append(ctrl)
                pt.append(stop)
            depth, reach, width = 0, 1, 1
            while reach < n + 1:
                width *= k
                reach += width
                depth += 1
            self.check_left(f"{reps + 1} tree (radix {k}) {n}-node DVMs")
            self.row(n, f"DVM start, {n} nodes, tree radix {k} (depth {depth})", ms(med(tree)),
                     f"{ms(base1)} (1 hop)", f"{med(tree) / base1:.2f}x",
                     "<= 3x 1 hop" if goal16 else "")
            self.row(n, f"  controller CPU (tree: {len(parents)} prted parents)",
                     ms(med(ctree) / 1e9), f"flat {ms(med(cflat) / 1e9)}")
        self.row(n, f"pterm, idle {n}-node DVM: pterm returned", ms(med([x[0] for x in pt])),
                 "", "", "< 200 ms" if goal16 else "")
        self.row(n, "  until prte exited", ms(med([x[1] for x in pt])))
        self.row(n, "  until no prted on any node", ms(med([x[2] for x in pt])))

        # -- jobs on one DVM of all N nodes
        d.start(slots)
        out = os.path.join(self.work, "job.out")
        d.prun("-n", str(n), "--map-by", "node", "--host", allhosts, "hostname", out=out)
        with open(out) as f:
            seen = sorted(line.strip() for line in f)
        if seen != sorted(f"node{i}" for i in range(1, n + 1)):
            raise RuntimeError(f"hostname over the nodes gave {seen}")
        for np_ in (64, 256):
            args = ("-n", str(np_), "--map-by", "node", "--host", allhosts, "/bin/true")
            d.prun(*args)  # warm
            fe, pr = [], []
            for _ in range(reps):
                fe.append(forkexec_n(np_, self.env))
                pr.append(d.prun(*args))
            self.row(n, f"prun -n {np_} over {n} nodes", ms(med(pr)),
                     f"{ms(med(fe))} (fork/exec {np_})", f"{med(pr) / med(fe):.2f}x",
                     "<= 2x fork/exec" if goal16 and np_ == 64 else "")

        # -- fences: 64 ranks over the nodes against 64 on node1
        fence = os.path.join(self.b["bench"], "bench_fence")
        iters = "5" if self.o.quick else "20"
        sizes = ["0", "64", "1024", "16384"]
        across, one = {}, {}
        for _ in range(max(1, reps // 2)):
            d.prun("-n", "64", "--map-by", "node", "--host", allhosts, fence, iters, *sizes,
                   out=out)
            for s, us in parse_fence(out).items():
                across.setdefault(s, []).append(us)
            d.prun("-n", "64", "--host", "node1", fence, iters, *sizes, out=out)
            for s, us in parse_fence(out).items():
                one.setdefault(s, []).append(us)
        for s in map(int, sizes):
            if s not in across or s not in one:
                raise RuntimeError(f"bench_fence printed no result for size {s}")
            what = "barrier" if s == 0 else f"{s} B each, collect"
            a, o1 = med(across[s]) / 1e6, med(one[s]) / 1e6
            self.row(n, f"fence 64 ranks / {n} nodes, {what}", ms(a), f"{ms(o1)} (1 node)",
                     f"{a / o1:.2f}x")

        # -- fences for the model: one rank per node; the CPU per fence of the controller
        # and of a daemon (the difference of two runs of different length / the fences
        # between them: 3 rounds of each iteration count)
        for s, (short, long_) in (("0", (10, 40) if self.o.quick else (20, 100)),
                                  ("65536", (1, 4) if self.o.quick else (2, 8))):
            for nn, hostarg in ((1, "node1"), (n, allhosts)):
                cpu, dcpu, wall = {}, {}, None
                for it in (short, long_):
                    c0, p0 = d.cpu(), d.prted_cpu()
                    d.prun("-n", str(nn), "--map-by", "node", "--host", hostarg, fence, str(it),
                           s, out=out)
                    cpu[it], dcpu[it] = d.cpu() - c0, d.prted_cpu() - p0
                    res = parse_fence(out)
                    if int(s) not in res:
                        raise RuntimeError(f"bench_fence printed no result for size {s}")
                    wall = res[int(s)] / 1e6
                nf = 3 * (long_ - short)
                per = (cpu[long_] - cpu[short]) / nf / 1e9
                dper = (dcpu[long_] - dcpu[short]) / nf / nn / 1e9
                what = "barrier" if s == "0" else "64 KiB each, collect"
                self.row(n, f"fence 1 rank/node x {nn}, {what}", ms(wall),
                         f"CPU/fence ctrl {ms(per)}", f"prted {ms(dper)}")
        t_pterm, t_prte, t_nodes = d.stop()
        self.row(n, f"pterm after the jobs ({n} nodes)", ms(t_pterm), f"prte gone {ms(t_prte)}",
                 "", f"nodes clear {ms(t_nodes)}")
        self.check_left(f"the {n}-node DVM of the jobs")
        c.down()

    def main(self):
        print(f"bench_ssh_scale: {self.reps} reps, {os.cpu_count()} cpus, load "
              f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}, nodes {self.o.nodes}",
              flush=True)
        self.dvm = Dvm(self.b, self.run, self.cluster, self.tmp, self.work)
        for n in self.o.nodes:
            self.one_size(n)
        print("\nsummary (ratios against baselines of this run; goals are the issue's targets "
              "for 16 nodes, not pass/fail)")
        print(f"  {'N':>3} {'measure':44} {'value':>12} {'baseline':>26} {'ratio':>10}  goal")
        for r in self.rows:
            print(f"  {r[0]:>3} {r[1]:44} {r[2]:>12} {r[3]:>26} {r[4]:>10}  {r[5]}")
        print(f"  leftovers over the whole run: {self.nleft} (goal: zero on every node)")
        print(f"  load at the end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")

    def cleanup(self):
        self.run.kill_current()
        if self.dvm is not None:
            self.dvm.kill()
        try:
            self.cluster.down()
        except Exception as e:  # still remove the rest
            print(f"bench_ssh_scale: cluster down: {e}", file=sys.stderr)
        while True:  # anything reparented to us (we are a subreaper)
            try:
                pid, _ = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True)
    ap.add_argument("--nodes", default="16,32",
                    type=lambda s: [int(x) for x in s.split(",")])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--radix", default=None, type=lambda s: [int(x) for x in s.split(",")],
                    help="tree radix or radixes (default: ceil(sqrt(N)))")
    ap.add_argument("--timeout", type=int, default=300, help="seconds per command")
    ap.add_argument("--quick", action="store_true")
    o = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("bench_ssh_scale: needs root (network namespaces and sshd per node)")
    for n in o.nodes:
        if not 1 <= n <= 250:
            sys.exit(f"bench_ssh_scale: --nodes {n}: give 1..250 nodes")
    if o.radix and min(o.radix) < 1:
        sys.exit("bench_ssh_scale: --radix must be positive")
    bdir = os.path.abspath(o.build)
    b = {t: os.path.join(bdir, "cli", t) for t in ("prte", "prun", "pterm")}
    b["prted"] = os.path.join(bdir, "daemon", "prted")
    b["bench"] = os.path.join(bdir, "bench")
    for p in list(b.values())[:4] + [os.path.join(b["bench"], "bench_fence"), "/usr/bin/ssh"]:
        if not os.access(p, os.X_OK):
            sys.exit(f"bench_ssh_scale: {p} not found (--build; scripts/install-deps.sh)")
    # the daemonized prte becomes our child: its end is seen and reaped here
    PR_SET_CHILD_SUBREAPER = 36
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):  # even when started ignoring it
        signal.signal(s, on_signal)
    work = tempfile.mkdtemp(prefix="pxbscale.")
    tmp = os.path.join(work, "tmp")
    os.mkdir(tmp)
    env = {k: v for k, v in os.environ.items()
           if k not in ("SSH_AUTH_SOCK", "PRTE_MCA_plm_ssh_agent", "PRTE_PREFIX")}
    env.update(TMPDIR=tmp, PRTE_ALLOW_RUN_AS_ROOT="1", PRTE_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    bench = Bench(o, b, env, work, tmp)
    rc = 0
    try:
        bench.main()
    except (Exception, KeyboardInterrupt) as e:  # Interrupted is an Exception
        print(f"\nbench_ssh_scale: FAILED: {e}", file=sys.stderr)
        rc = 1
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the clean-up is not interrupted
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        bench.cleanup()
        shutil.rmtree(work, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
