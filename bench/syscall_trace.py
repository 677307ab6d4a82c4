"""The kernel's own view of commits: write + fdatasync syscalls of one program, timed by tracefs.

A commit as the kernel sees it runs from entering the write (`pwrite64` for drivescope, `write` for fio's
sync engine with --rw=write; `strace -f -c` of both shows these, and `fdatasync` as the flush) to leaving the
`fdatasync` on the same fd in the same thread, with nothing else traced in that thread in between. Its time
also holds what the program does between the two calls, as an application's commit would; the time inside
each call is kept too (`write`, `sync`).

How it traces, leaving the global tracing state alone: a private tracefs instance (instances/NAME: its own
buffer, events, pid filter and clock, all gone when the instance is removed, also on error). The program is
started stopped (`sh -c 'kill -STOP $$; exec …'`), its pid goes into set_event_pid with options/event-fork,
so that every thread and child process it makes is traced too (drivescope commits from worker threads, fio
from a forked job process), and only then does it go on. The clock is x86-tsc, printed as raw cycles (the ns
clocks print whole microseconds only, too coarse at a few µs per commit); cycles become ns by two
trace_marker writes stamped with CLOCK_MONOTONIC at the start and the end of the run.

Tracing costs time: each event recorded is a few hundred ns in the traced thread, four per commit (enter
and exit of both calls), and it lands in the program's own timing as in the kernel's span. Callers measure
it by running the same program untraced as well.
"""
import os
import re
import signal
import subprocess
import time

TRACEFS = "/sys/kernel/tracing"
EVENTS = ["sys_enter_write", "sys_exit_write", "sys_enter_pwrite64", "sys_exit_pwrite64",
          "sys_enter_fdatasync", "sys_exit_fdatasync"]
# "  comm-tid  [cpu] flags  cycles: sys_write(fd: 6, buf: 0x…, count: 0x1000)", "…: sys_write -> 0x1000",
# "…: tracing_mark_write: mono=…"
LINE = re.compile(r"^\s*(.+?)-(\d+)\s+\[\d+\]\s+\S+\s+(\d+): (\w+)(?:: (.*)|\((.*)\)| -> (\S+))$")
MARK = re.compile(r"mono=(\d+)")


def _put(path, value):
    with open(path, "w") as f:
        f.write(value)


class Instance:
    """A private tracefs instance tracing the write and fdatasync syscalls of one process tree."""

    def __init__(self, buffer_kb=32768):
        self.dir = os.path.join(TRACEFS, "instances", f"drivescope-bench-{os.getpid()}")
        os.mkdir(self.dir)
        try:
            _put(self.p("buffer_size_kb"), str(buffer_kb))  # per CPU
            _put(self.p("trace_clock"), "x86-tsc")
            _put(self.p("options/event-fork"), "1")
            _put(self.p("tracing_on"), "0")
        except BaseException:
            self.close()
            raise

    def p(self, name):
        return os.path.join(self.dir, name)

    def _events(self, on):
        for e in EVENTS:
            _put(self.p(f"events/syscalls/{e}/enable"), "1" if on else "0")

    def _mark(self):
        """A marker stamped with CLOCK_MONOTONIC just before its write (the same lag at both ends cancels)."""
        _put(self.p("trace_marker"), "mono=0")  # warm the path so that the stamped write is short
        with open(self.p("trace_marker"), "w") as f:
            f.write(f"mono={time.monotonic_ns()}")

    def run(self, cmd):
        """Run cmd traced; return (its stdout, [Commit]) after it exits."""
        _put(self.p("trace"), "")  # empty the buffer
        p = subprocess.Popen(["sh", "-c", 'kill -STOP $$; exec "$@"', "sh", *cmd],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            while _state(p.pid) != "T":
                time.sleep(0.001)
            _put(self.p("set_event_pid"), str(p.pid))
            self._events(True)
            _put(self.p("tracing_on"), "1")
            self._mark()
            os.kill(p.pid, signal.SIGCONT)
            out, err = p.communicate()
            self._mark()
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
            _put(self.p("tracing_on"), "0")
            self._events(False)
            _put(self.p("set_event_pid"), "")
        if p.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed: {err.decode(errors='replace')}")
        self.check_no_loss()
        with open(self.p("trace")) as f:
            text = f.read()
        return out.decode(), commits(text)

    def check_no_loss(self):
        for cpu in os.listdir(self.p("per_cpu")):
            for line in open(self.p(f"per_cpu/{cpu}/stats")):
                k, _, v = line.partition(":")
                if k.strip() in ("overrun", "dropped events") and int(v) != 0:
                    raise SystemExit(f"tracefs lost events on {cpu} ({line.strip()}): raise buffer_size_kb")

    def close(self):
        """Stop and remove the instance (events off, pid filter cleared, buffer freed)."""
        for step in (lambda: _put(self.p("tracing_on"), "0"), lambda: self._events(False),
                     lambda: _put(self.p("set_event_pid"), "")):
            try:
                step()
            except OSError:
                pass
        os.rmdir(self.dir)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _state(pid):
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()[0]


class Commit:
    """One write of 4096 bytes, then fdatasync on its fd, in one thread; times in ns."""

    def __init__(self, tid, fd, enter_write, exit_write, enter_sync, exit_sync):
        self.tid, self.fd = tid, fd
        self.start, self.end = enter_write, exit_sync
        self.span = exit_sync - enter_write
        self.write = exit_write - enter_write
        self.sync = exit_sync - enter_sync


def _args(text):
    return dict((k.strip(), int(v, 0)) for k, v in (a.split(":") for a in text.split(", ")))


def commits(text, size=4096):
    """Every commit in a trace's text, in time order; cycles turned into ns by the two marks."""
    marks, rows = [], []
    for line in text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        _, tid, cyc, event, mark, args, ret = m.groups()
        if event == "tracing_mark_write":
            mono = MARK.search(mark or "")
            if mono and mono.group(1) != "0":
                marks.append((int(cyc), int(mono.group(1))))
            continue
        if args is not None:
            rows.append((int(tid), int(cyc), "enter_" + event, _args(args)))
        elif ret is not None:
            rows.append((int(tid), int(cyc), "exit_" + event, int(ret, 0)))
    if len(marks) != 2 or marks[1][1] <= marks[0][1]:
        raise SystemExit(f"trace: expected two clock marks, found {len(marks)}")
    ns_per_cycle = (marks[1][1] - marks[0][1]) / (marks[1][0] - marks[0][0])
    out, open_ = [], {}  # tid -> the partial commit so far
    for tid, cyc, event, val in rows:
        t = cyc * ns_per_cycle
        st = open_.pop(tid, None)
        if event in ("enter_sys_write", "enter_sys_pwrite64"):
            if val["count"] == size:
                open_[tid] = ("write", val["fd"], t)
        elif event in ("exit_sys_write", "exit_sys_pwrite64"):
            if st and st[0] == "write" and val == size:
                open_[tid] = ("written", st[1], st[2], t)
        elif event == "enter_sys_fdatasync":
            if st and st[0] == "written" and val["fd"] == st[1]:
                open_[tid] = ("sync", *st[1:], t)
        elif event == "exit_sys_fdatasync":
            if st and st[0] == "sync" and val == 0:
                out.append(Commit(tid, st[1], st[2], st[3], st[4], t))
    return out


def solo_runs(cs):
    """The commits grouped by thread, in order of their first commit, keeping only the threads
    whose commits ran alone: no other thread's commit overlaps their span (one committer)."""
    by = {}
    for c in cs:
        by.setdefault(c.tid, []).append(c)
    runs = sorted(by.values(), key=lambda r: r[0].start)
    alone = []
    for r in runs:
        a, b = r[0].start, r[-1].end
        if not any(c.tid != r[0].tid and c.end > a and c.start < b for c in cs):
            alone.append(r)
    return alone


def pct(xs, p):
    """The p-th percentile of xs (nearest rank)."""
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, -(-len(s) * p // 100) - 1))]
