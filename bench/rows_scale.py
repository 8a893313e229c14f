"""Rows that grow: every workload at two sizes, ten times apart (`--scale`),
and the peak memory of a delayed checkout of large conversations."""
import base64
import json
import resource
import shutil
import statistics
import subprocess
import time
from pathlib import Path

from harness import *  # noqa: F401,F403

# GIT_CONFIG_PARAMETERS that turn git-jpblob's filter off for plain git's side.
PLAIN = "'filter.jpblob.process'='' 'filter.jpblob.required'='false'"
# Interleaved pairs for rows of a second or less (status, the hook of one
# conversation), whose growth factors are ratios of ratios: noise in any
# of the four times moves them.
CHEAP_REPS = 9
# Pairs for the rows of seconds: gc and verify at the large size, the cold
# add and the commit at the small one (where a pair costs seconds). In run M
# the same code's verify grew 1.22x against 0.88x in run L, and the add's
# 1,000 pair of 0.80x (0.96x in run L) alone made its growth miss: three
# pairs left one slow run of a side as the median.
SECONDS_REPS = 5
# gc and verify at the small size take half a second a pair, against floors
# of a tenth of a second that swing by a third (0.09s to 0.12s for the same
# floor by hand): the growth factor divides by them, so they get the most
# pairs.
SMALL_REPS = 11
# The add and the commit at the small size: a pair is two fresh
# repositories and two adds of five seconds. Plain git's commit of 1,000
# conversations took 0.08s to 0.20s within one run (run N).
SMALL_COMMIT_REPS = 7


class Cpu:
    """CPU seconds (user + system, every process waited for: git, its
    filter, its hooks) and wall seconds of each timed run, by row and side.
    Wall time is what a row's target reads; CPU time grows with the work
    done and not with a neighbour's disk, so its growth beside the wall's
    says which of the two a growth factor shows. A process the hook leaves
    to delete kept copies after the commit is not waited for, and not
    counted."""

    def __init__(self):
        self.runs = {}
        self.walls = {}

    def timed(self, key, cmd, cwd, env):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        took = timed(cmd, cwd, env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        used = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
        self.runs.setdefault(key, []).append(used)
        self.walls.setdefault(key, []).append(took)
        return took

    def medians(self, name):
        return tuple(statistics.median(self.runs[(name, side)]) for side in ("ours", "peer"))

    def fastest(self, name):
        """Each side's fastest wall time. What slows a run here (a disk's
        writeback, a neighbour on the other hardware thread: plain git's
        add of 1,000 conversations took 4.4s to 8.2s of user time, alone
        on the machine) only ever adds, so the fastest run is each side's
        closest reading of its own work; a row gives the growth of these
        beside the medians', and its target reads the medians'."""
        return tuple(min(self.walls[(name, side)]) for side in ("ours", "peer"))


def spread(low, high):
    """The range of per-pair ratios, as a row prints it."""
    return f"{low:.2f}-{high:.2f}x"


def pairs(a, b, reps, **setups):
    """interleave_spread as scale_at keeps it: (median a, median b, range)."""
    _, low, high, med_a, med_b = interleave_spread(a, b, reps, **setups)
    return med_a, med_b, spread(low, high)


class Scale:
    def scale(self):
        """The default set-up (lean, installed globally) at n and 10n
        conversations: each workload against plain git (or its floor) at
        both sizes, and how each side grows from n to 10n."""
        small, large = (200, 2000) if self.quick else (1000, 10000)
        print(f"== scale: {small} and {large} conversations", flush=True)
        sh(f"{self.bin} install --global > /dev/null", self.work, self.env)
        try:
            times = {n: self.scale_at(n, n == small) for n in (small, large)}
        finally:
            sh(f"{self.bin} uninstall --global > /dev/null", self.work, self.env)
        targets = {"git status after clone": (2.0, "<= 2.0x at the large size")}
        # Each size's row gives the range of its pairs' ratios: a growth
        # factor inside the two ranges' spread is not told from noise.
        for name, (peer, *_) in times[small].items():
            (_, a1, b1, s1, c1, f1), (_, a2, b2, s2, c2, f2) = times[small][name], times[large][name]
            row(f"{name}, {small}", peer, a1 / b1, "report", None, f"({a1:.3f}s vs {b1:.3f}s; pairs {s1})")
            limit, text = targets.get(name, (None, "report"))
            row(f"{name}, {large}", peer, a2 / b2, text, limit, f"({a2:.3f}s vs {b2:.3f}s; pairs {s2})")
            cpu = (c2[0] / c1[0]) / (c2[1] / c1[1])
            row(f"growth {small} -> {large}: {name}", "the peer's growth", (a2 / a1) / (b2 / b1), "<= 1.1x", 1.1,
                f"(git-jpblob x{a2 / a1:.2f}, peer x{b2 / b1:.2f}; CPU time: git-jpblob x{c2[0] / c1[0]:.2f}, "
                f"peer x{c2[1] / c1[1]:.2f}, {cpu:.2f}x; fastest runs: {(f2[0] / f1[0]) / (f2[1] / f1[1]):.2f}x)")

    def scale_at(self, n, small):
        """{row: (peer, ours seconds, peer seconds, range of the pairs'
        ratios, median CPU seconds of each side, fastest wall seconds of
        each side)} at n conversations: the medians of interleaved pairs
        (nine for rows of a second or less; eleven for gc and verify at the
        small size and five at the large; seven for the add and commit at
        the small size and three at the large; one clone)."""
        d = self.work / f"scale-{n}"
        d.mkdir()
        src = d / "src"
        self.generate_conversations(n, (src,), seed=n)
        plain_env = dict(self.env)
        plain_env["GIT_CONFIG_PARAMETERS"] = PLAIN
        out = {}

        def fresh(path, kind):
            self.seeded_repo(path, kind, src)

        ours, plain = d / "ours", d / "plain"
        add = "git add .jp/conversations"
        commit = "git commit -qm conversations"
        # Each pair on fresh repositories. One pair of a minute each moved
        # the growth factor by a tenth either way (the same add measured
        # 0.92x and 1.06x of plain git's at 10,000): the median of three
        # pairs at both sizes, the side that goes first alternating, and
        # the copied conversations flushed to disk before each timed add,
        # so that neither side pays for the other's writes.
        cpu = Cpu()
        adds, commits = [], []
        for k in range(SMALL_COMMIT_REPS if small else self.reps):
            fresh(ours, "jpblob")
            fresh(plain, "plain")
            sh("sync", d)
            run_ours = lambda: cpu.timed(("git add, cold", "ours"), add, ours, self.env)  # noqa: E731
            run_plain = lambda: cpu.timed(("git add, cold", "peer"), add, plain, plain_env)  # noqa: E731
            first, second = (run_plain, run_ours) if k % 2 else (run_ours, run_plain)
            x = first()
            sh("sync", d)
            y = second()
            adds.append((y, x) if k % 2 else (x, y))
            if k == 0:
                kib = peak_kib(commit, ours, self.env)
                print(f"  peak memory of the commit that stages every blob, {n}: {kib // 1024} MiB", flush=True)
                wait_for_purge(ours, f"commit, {n}")
                # The peak run committed already: time the same commit again on a fresh add.
                fresh(ours, "jpblob")
                timed(add, ours, self.env)
            sh("sync", d)
            staging = "git commit staging every blob"
            a = cpu.timed((staging, "ours"), commit, ours, self.env)
            wait_for_purge(ours, f"commit, {n}")
            sh("sync", d)
            commits.append((a, cpu.timed((staging, "peer"), commit, plain, plain_env)))

        def median_pair(runs):
            ranked = sorted(runs, key=lambda p: p[0] / p[1])
            return (*ranked[len(ranked) // 2], spread(ranked[0][0] / ranked[0][1], ranked[-1][0] / ranked[-1][1]))

        out["git add, cold"] = ("plain git add", *median_pair(adds))
        out["git commit staging every blob"] = ("plain git commit", *median_pair(commits))

        def clone(origin, dest, env, side):
            self.discard(dest)
            return cpu.timed(("git clone + checkout", side), f"git clone -q {origin} {dest}", d, env)

        mine, theirs = d / "clone-ours", d / "clone-plain"
        a, b = clone(ours, mine, self.env, "ours"), clone(plain, theirs, plain_env, "peer")
        out["git clone + checkout"] = ("plain git clone", a, b, "one")
        time.sleep(1.1)  # past the racy-git window for both clones
        timed("git status", mine, self.env)
        timed("git status", theirs, plain_env)
        # The clones' gigabytes are on disk before the reads are timed: the
        # kernel's writeback of them would take a core from whichever
        # side ran beside it.
        sh("sync", d)
        # A status takes a tenth of a second, which a neighbour's disk
        # work can double: the median of many pairs, which cost little.
        out["git status after clone"] = ("plain git status",
                                         *pairs(lambda: cpu.timed(("git status after clone", "ours"), "git status",
                                                                  mine, self.env),
                                                lambda: cpu.timed(("git status after clone", "peer"), "git status",
                                                                  theirs, plain_env), CHEAP_REPS))

        # gc and verify read what the lean clone holds: blobs in the index and
        # git's objects. Their floors read the same with git itself.
        # A row of a few seconds swings by more than the growth it is to
        # show: five interleaved pairs at the large size (about a minute a
        # row), eleven at the small one, each after one run of each side
        # that is not timed (the first reads of the clone's objects).
        reps = SMALL_REPS if small else SECONDS_REPS
        read_all = "find .jp/conversations -name events.json -print0 | xargs -0 cat > /dev/null"
        objects = "git ls-files -s .jp/blobs | awk '{print $2}' | git cat-file --batch > /dev/null"
        # verify reads every blob, and every conversation to know what it
        # references (as gc does): its floor reads both with git's tools.
        maintenance = {
            "git jpblob gc": ("floor: git ls-files -s + read every events.json",
                              f"{self.bin} gc", f"git ls-files -s > /dev/null; {read_all}"),
            "git jpblob verify": ("floor: git cat-file --batch of every blob + read every events.json",
                                  f"{self.bin} verify > /dev/null", f"{objects}; {read_all}"),
        }
        for _, ours_cmd, floor_cmd in maintenance.values():
            timed(ours_cmd, mine, self.env)
            timed(floor_cmd, mine, self.env)
        for name, (floor, ours_cmd, floor_cmd) in maintenance.items():
            out[name] = (floor, *pairs(lambda: cpu.timed((name, "ours"), ours_cmd, mine, self.env),
                                       lambda: cpu.timed((name, "peer"), floor_cmd, mine, self.env), reps))

        # The hook of one conversation, against a stand-in hook, in the clone.
        target = sorted((mine / ".jp/conversations").glob("*/events.json"))[n // 2]
        hooks = Path(sh("git rev-parse --git-path hooks", mine, self.env, capture=True)[1].decode().strip())
        hooks = hooks if hooks.is_absolute() else mine / hooks
        hook = hooks / "pre-commit"
        ours_hook = hook.read_text()
        counter = iter(range(10 ** 6))

        def one_change(text):
            hook.write_text(text)
            events = json.loads(target.read_text())
            events.append({"timestamp": "2026-01-02 00:00:00.000000", "type": "tool_call_response", "id": "new",
                           "content": base64.b64encode(f"new {next(counter)}".encode()).decode(), "is_error": False})
            target.write_text(json.dumps(events, indent=2) + "\n")
            # Added in a later second than JP wrote it, as a user adds: in
            # the same second the index holds it racily clean, and the
            # commit's refresh cleans the whole conversation again first
            # (0.5 s at 10,000 in run O, on either side by chance: the
            # hook's pairs ranged 1.21x to 3.59x).
            time.sleep(1.01 - time.time() % 1.0)
            self.git(f"add {target}", mine)

        one = "git commit -q -m one"
        hook_row = "pre-commit, one conversation"
        standin = "#!/bin/sh\ngit diff --cached --name-only > /dev/null\n"
        out[hook_row] = ("stand-in hook: git diff --cached --name-only",
                         *pairs(lambda: cpu.timed((hook_row, "ours"), one, mine, self.env),
                                lambda: cpu.timed((hook_row, "peer"), one, mine, self.env), CHEAP_REPS,
                                setup_a=lambda: one_change(ours_hook), setup_b=lambda: one_change(standin)))
        hook.write_text(ours_hook)
        for dest in (ours, plain, mine, theirs):
            self.discard(dest)
        return {name: (*kept, cpu.medians(name), cpu.fastest(name)) for name, kept in out.items()}

    def huge(self):
        """50,000 conversations of a dozen events (`--only huge`, not in the
        default run): add, commit, clone and status against plain git, the
        commit's peak memory, and gc, verify and verify --history in the
        lean clone with 256 descriptors allowed (`ulimit -n 256`)."""
        n = 5000 if self.quick else 50000
        print(f"== {n} conversations, at most 256 descriptors for maintenance", flush=True)
        d = self.work / "huge"
        d.mkdir()
        src = d / "src"
        started = time.time()
        self.generate_conversations(n, (src,), seed=n, events=12)
        total_mb = sum(p.stat().st_size for p in src.rglob("events.json")) / 2 ** 20
        print(f"  generated {total_mb:.0f} MB in {time.time() - started:.0f}s", flush=True)
        plain_env = dict(self.env)
        plain_env["GIT_CONFIG_PARAMETERS"] = PLAIN
        sh(f"{self.bin} install --global > /dev/null", self.work, self.env)
        try:
            ours, plain = d / "ours", d / "plain"
            for path, kind in ((ours, "jpblob"), (plain, "plain")):
                self.seeded_repo(path, kind, src)
            add = "git add .jp/conversations"
            a, b = timed(add, ours, self.env), timed(add, plain, plain_env)
            row(f"git add, cold, {n}", f"plain git add ({total_mb:.0f} MB)", a / b, "<= 2.0x", 2.0,
                f"({a:.1f}s vs {b:.1f}s)")
            commit = "git commit -qm conversations"
            measured = d / "commit.time"
            a = timed(f"/usr/bin/time -f '%M' -o {measured} {commit}", ours, self.env)
            kib = int(measured.read_text().split()[-1])
            wait_for_purge(ours, f"commit, {n}")
            b = timed(commit, plain, plain_env)
            entries = int(sh("git ls-files | wc -l", ours, self.env, capture=True)[1])
            row(f"git commit staging every blob, {n}", "plain git commit", a / b, "<= 3.0x", 3.0,
                f"({a:.1f}s vs {b:.1f}s; peak memory {kib // 1024} MiB; {entries} index entries)")
            mine, theirs = d / "clone-ours", d / "clone-plain"
            a = timed(f"git clone -q {ours} {mine}", d, self.env)
            b = timed(f"git clone -q {plain} {theirs}", d, plain_env)
            row(f"git clone + checkout, {n}", "plain git clone", a / b, "<= 2.0x", 2.0, f"({a:.1f}s vs {b:.1f}s)")
            time.sleep(1.1)  # past the racy-git window for both clones
            timed("git status", mine, self.env)
            timed("git status", theirs, plain_env)
            ratio, a, b = interleave(lambda: timed("git status", mine, self.env),
                                     lambda: timed("git status", theirs, plain_env), self.reps)
            row(f"git status after clone, {n}", "plain git status", ratio, "<= 2.0x", 2.0,
                f"({a:.2f}s vs {b:.2f}s)")
            # Maintenance with 256 descriptors: each must succeed. Its floor
            # reads every conversation and lists the blobs with git.
            floor = timed("git ls-files -s > /dev/null; find .jp/conversations -name events.json -print0 | "
                          "xargs -0 cat > /dev/null", mine, self.env)
            for cmd in ("gc --dry-run", "verify", "verify --history"):
                start = time.perf_counter()
                r = subprocess.run(f"ulimit -n 256 && {self.bin} {cmd}", shell=True, cwd=mine, env=self.env,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                took = time.perf_counter() - start
                said = (r.stdout + r.stderr).decode(errors="replace").strip().splitlines()
                last = said[-1][:90] if said else ""
                row(f"git jpblob {cmd}, {n}, ulimit -n 256", "floor: ls-files + read every events.json",
                    took / floor if r.returncode == 0 else None, "succeeds", None,
                    f"(exit {r.returncode}, {took:.1f}s vs {floor:.1f}s: {last})")
                if r.returncode != 0:
                    print(f"  FAILED: git jpblob {cmd}: {last}", flush=True)
            for path in (ours, plain, mine, theirs):
                self.discard(path)
        finally:
            sh(f"{self.bin} uninstall --global > /dev/null", self.work, self.env)

    def seeded_repo(self, path, kind, src):
        """The default set-up: a repository that holds a conversation
        already (lean once committed), then the conversations of `src`."""
        self.discard(path)
        path.mkdir()
        seed = path / ".jp/conversations/16999999999-seed/events.json"
        seed.parent.mkdir(parents=True)
        shutil.copy(self.files[0], seed)
        self.init_repo(path, kind)
        self.git("add -A .", path)
        self.git("commit -qm seed", path)
        shutil.copytree(src / ".jp/conversations", path / ".jp/conversations", dirs_exist_ok=True)

    def delayed_memory(self):
        """Peak memory of the filter during a clone that restores four large
        conversations, on 2 and on 8 threads: the pool's budget bounds what
        every conversation in flight holds together (filter/delayed)."""
        mb = 32 if self.quick else 256
        print(f"== delayed checkout of four {mb} MB conversations", flush=True)
        d = self.work / "memory"
        d.mkdir()
        origin = d / "origin"
        origin.mkdir()
        self.init_repo(origin, "jpblob")
        largest = 0
        for k in range(4):
            p = origin / f".jp/conversations/{17100000000 + k}-large/events.json"
            p.parent.mkdir(parents=True)
            big_conversation(p, self.payloads, mb << 20, True, 10 + k)
            largest = max(largest, p.stat().st_size)
        self.git("add -A .", origin)
        self.git("commit -qm large", origin)
        sh(f"{self.bin} install --global > /dev/null", d, self.env)
        try:
            limit_kib = largest // 1024 + 64 * 1024
            for threads in (2, 8):
                peak = d / f"peak-{threads}"
                env = dict(self.env)
                env["JPBLOB_THREADS"] = str(threads)
                # The filter alone, measured by GNU time around it.
                env["GIT_CONFIG_PARAMETERS"] = (f"'filter.jpblob.process'='/usr/bin/time -f %M -o {peak} "
                                                f"git-jpblob filter-process'")
                dest = d / f"clone-{threads}"
                sh(f"git clone -q {origin} {dest}", d, env)
                kib = int(peak.read_text().split()[-1])
                row(f"peak memory, delayed checkout of 4 x {mb} MB, {threads} threads",
                    "one conversation + 64 MiB", kib / limit_kib, "<= 1.0 of the limit", 1.0,
                    f"({kib // 1024} MiB, limit {limit_kib // 1024} MiB)")
                self.discard(dest)
        finally:
            sh(f"{self.bin} uninstall --global > /dev/null", d, self.env)
