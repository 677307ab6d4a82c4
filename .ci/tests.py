#!/usr/bin/env python3
"""Builds the workspace's tests once and runs the test binaries side by side.

`cargo test` runs its test binaries one after another; most of ours wait on devices, processes
and servers rather than on the CPU, so two or three at a time finish in a fraction of the time.
Binaries named in EXCLUSIVE run at the end, two at a time, and those in ALONE_STRICT last with
nothing beside them (they use machine-wide facilities, or time something the load of the CPU-bound
binaries would disturb).

Usage: .ci/tests.py [--jobs N] [--list] [CARGO TEST ARGS...]
  The cargo arguments select what to build (e.g. --workspace, -p drivescope --features mpi).
  Prints each binary's output as it finishes, then a table of durations and the closing line
  "tests: N passed, N failed". Exits 1 when any binary failed.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

# Binaries that run after the others, two at a time (they wait on lab disks most of their time, at a few
# percent of a CPU each), and those of ALONE_STRICT with nothing beside them.
EXCLUSIVE = {
    # The lab's timing models are served by FUSE threads of the test process: the load of a
    # second binary shows up in what these tests measure.
    "lab_diagnose",
    "lab_queueing",
    "lab_bench",
    "lab_temperature",
    "lab_steady",
    "lab_durability",
    "lab_diagnose_flush",
    # Four lab disks on one bus against one read alone: a CI run beside the other binaries
    # failed it on host-bound commands at 36-49 % CPU pressure, just under the busy rule.
    "shared_bus",
    "time_predict",
    "diagnose_kill9",
    # Arrays of lab disks (real btrfs over FUSE-served loop devices) whose rates are checked against truth.
    "array_lab",
    # Start a multi-rank job with mpirun, which wants the machine's cores to itself.
    "mpi_runs",
}
ALONE_STRICT = {"shared_bus", "mpi_runs"}

# Longest first, so the side-by-side part ends together (measured; unknown ones go last).
LONGEST_FIRST = [
    "drivescope_core",
    "lab_capacity",
    "lab_diagnose_models",
    "store_postgres",
    "lab_screen",
    "lab_scan",
    "lab_faults",
    "lab_bad_regions",
    "time_trace",
    "kill9",
    "serve_prometheus",
    "diagnose_kill9",
    "screen_devices",
    "scan_devices",
    "bench_devices",
]

RESULT = re.compile(r"^test result: (\w+)\. (\d+) passed; (\d+) failed; (\d+) ignored")


def build(cargo_args):
    """Builds the tests; returns [(name, kind, executable, package dir)]."""
    cmd = ["cargo", "test", "--no-run", "--message-format=json-render-diagnostics"] + cargo_args
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    found = []
    for line in proc.stdout:
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
            continue
        if not msg["profile"]["test"]:
            continue
        target = msg["target"]
        found.append(
            (target["name"], target["kind"][0], msg["executable"],
             os.path.dirname(msg["manifest_path"]))
        )
    if proc.wait() != 0:
        sys.exit(f"cargo test --no-run failed (exit {proc.returncode})")
    return found


def order(binaries):
    def key(b):
        name = b[0]
        rank = LONGEST_FIRST.index(name) if name in LONGEST_FIRST else len(LONGEST_FIRST)
        return (rank, name)
    return sorted(binaries, key=key)


def run_one(binary, target_dir, tests=()):
    """Runs one test binary (only `tests`, by exact name, when given); returns the binary, its exit
    code, wall seconds, CPU seconds (its own and its waited-for children's) and its output."""
    name, kind, exe, pkg_dir = binary
    env = dict(os.environ)
    env["CARGO_MANIFEST_DIR"] = pkg_dir
    deps = os.path.join(target_dir, "debug", "deps")
    env["LD_LIBRARY_PATH"] = deps + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    argv = [exe] + (["--exact"] + list(tests) if tests else [])
    with tempfile.TemporaryFile(mode="w+") as out:
        start = time.monotonic()
        proc = subprocess.Popen(argv, cwd=pkg_dir, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        took = time.monotonic() - start
        out.seek(0)
        text = out.read()
    return binary, proc.returncode, took, usage.ru_utime + usage.ru_stime, text


FAILED_TEST = re.compile(r"^test (\S+) \.\.\. FAILED$")


def failed_tests(text):
    """The names of the tests a binary's output reports as failed (empty when it died without saying)."""
    return [m.group(1) for m in map(FAILED_TEST.match, text.splitlines()) if m]


def why_failed(text, limit=2500):
    """A failed binary's panic messages without the backtraces: each `panicked at` line and the
    message lines after it, up to `limit` characters per binary."""
    kept, taking = [], False
    for line in text.splitlines():
        if "panicked at" in line:
            taking = True
        elif line.startswith(("stack backtrace:", "note: ", "failures:")) or line.startswith("---- "):
            taking = False
        if taking:
            kept.append(line)
    why = "\n".join(kept) or "\n".join(text.splitlines()[-20:])
    return why if len(why) <= limit else why[:limit] + " …"


def doc_examples(root="crates"):
    """Rust code blocks in doc comments (doctests), which the binaries above do not run."""
    found = []
    fence = re.compile(r"^\s*//[/!]\s*```(\w*)")
    for dirpath, _, files in os.walk(root):
        for f in files:
            if not f.endswith(".rs"):
                continue
            path = os.path.join(dirpath, f)
            with open(path, encoding="utf-8") as src:
                opening = True
                for n, line in enumerate(src, 1):
                    m = fence.match(line)
                    if not m:
                        continue
                    if opening and m.group(1) in ("", "rust", "should_panic", "no_run"):
                        found.append(f"{path}:{n}")
                    opening = not opening
    return found


def main():
    args = sys.argv[1:]
    jobs = 2
    list_only = False
    if args[:1] == ["--jobs"]:
        jobs = int(args[1])
        args = args[2:]
    if args[:1] == ["--list"]:
        list_only = True
        args = args[1:]
    examples = doc_examples()
    if examples:
        sys.exit("doctests are not run here; mark these blocks `text` or `ignore`, or run "
                 "`cargo test --doc`: " + ", ".join(examples))
    target_dir = os.environ.get("CARGO_TARGET_DIR", "target")
    build_began = time.monotonic()
    binaries = order(build(args))
    print(f"== built {len(binaries)} test binaries in {time.monotonic() - build_began:.1f} s", flush=True)
    if list_only:
        for b in binaries:
            print(b[0], b[1], b[2])
        return 0
    shared = [b for b in binaries if b[0] not in EXCLUSIVE]
    alone = [b for b in binaries if b[0] in EXCLUSIVE]
    results = []
    failures = []

    def report(binary, rc, took, cpu, text):
        name, kind = binary[0], binary[1]
        print(f"\n== {name} ({kind}) exit {rc} in {took:.1f} s ({cpu:.1f} s CPU)", flush=True)
        print(text.rstrip(), flush=True)
        passed = failed = ignored = 0
        for line in text.splitlines():
            m = RESULT.match(line)
            if m:
                passed += int(m.group(2))
                failed += int(m.group(3))
                ignored += int(m.group(4))
        if rc != 0 and failed == 0:
            failed = 1  # a binary that died without a result line still failed
        results.append([name, kind, rc, took, passed, failed, ignored, cpu])
        if rc != 0:
            failures.append((binary, why_failed(text), failed_tests(text)))

    began = time.monotonic()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(run_one, b, target_dir) for b in shared]
        for f in as_completed(futures):
            report(*f.result())
    shared_wall = time.monotonic() - began
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = [pool.submit(run_one, b, target_dir) for b in alone if b[0] not in ALONE_STRICT]
        for f in as_completed(futures):
            report(*f.result())
    for b in alone:
        if b[0] in ALONE_STRICT:
            report(*run_one(b, target_dir))
    # A failed binary's failed tests run once more, each binary alone: a test that fails beside the others'
    # load and passes alone is reported by name (and below, with why it failed the first time), and does
    # not fail the run; one that fails again does. A binary that died without naming a test reruns whole.
    retried = []
    for binary, why, names in failures:
        _, rc, took, cpu, text = run_one(binary, target_dir, names)
        print(f"\n== {binary[0]} ({binary[1]}) again, alone{': ' + ', '.join(names) if names else ''}: "
              f"exit {rc} in {took:.1f} s", flush=True)
        print(text.rstrip(), flush=True)
        if rc == 0:
            row = next(r for r in results if r[0] == binary[0] and r[1] == binary[1] and r[2] != 0)
            row[2], row[5] = 0, 0
            row[4] += sum(int(m.group(2)) for m in map(RESULT.match, text.splitlines()) if m)
            retried.append((binary, why, names))
    wall = time.monotonic() - began

    print("\n== durations: wall and CPU seconds, longest first")
    again = {(b[0], b[1]) for b, _, _ in retried}
    for name, kind, rc, took, passed, failed, _, cpu in sorted(results, key=lambda r: -r[3]):
        mark = "" if rc == 0 else "  FAILED"
        mark += "  (passed again alone)" if (name, kind) in again else ""
        alone_mark = " (alone)" if name in ALONE_STRICT else " (after)" if name in EXCLUSIVE else ""
        print(f"{took:8.1f} {cpu:7.1f}  {name} ({kind}){alone_mark}: {passed} passed, {failed} failed{mark}")
    total_passed = sum(r[4] for r in results)
    total_failed = sum(r[5] for r in results)
    bad = [r[0] for r in results if r[2] != 0]
    total_cpu = sum(r[7] for r in results)
    print(f"{len(results)} test binaries in {wall:.1f} s ({total_cpu:.0f} s CPU): {len(shared)} {jobs} at a "
          f"time in {shared_wall:.1f} s, {len(alone)} after them (two at a time, then alone) and the retries in "
          f"{wall - shared_wall:.1f} s")
    if bad:
        print("failed binaries: " + ", ".join(bad))
    # Last, where the end of a long log is what a reader sees: why each binary failed.
    for binary, why, _ in failures:
        state = "failed, then passed alone" if binary in [b for b, _, _ in retried] else "failed"
        print(f"\n== why {binary[0]} ({binary[1]}) {state}\n{why}")
    if retried:
        print("passed only when run again alone: " + ", ".join(
            f"{b[0]} ({', '.join(n) if n else 'whole binary'})" for b, _, n in retried))
    total_ignored = sum(r[6] for r in results)
    print(f"tests: {total_passed} passed, {total_failed} failed")
    if total_ignored:
        print(f"not run here: {total_ignored} ignored (timings that need the machine alone, "
              "bench/timed_tests.sh; the bench scripts' own samples)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
