#!/usr/bin/env python3
"""git-jpblob benchmark: ratios against peers and floors, measured in one run.

Every row times git-jpblob (A) and its peer or floor (B) in interleaved runs,
A B A B ..., on this machine, now, and reports the median of the per-pair
ratios A/B. Absolute times are shown for orientation only: these machines are
shared and noisy, so only ratios are compared with targets.
"""
import argparse
import base64
import gzip
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness import *  # noqa: F401,F403 (sh, timed, row, ROWS, the data generators)


class Bench:
    def __init__(self, args):
        self.bin = Path(args.bin).resolve()
        self.fixtures = Path(args.fixtures).resolve()
        self.quick = args.quick
        self.reps = 3  # interleaved pairs a row: enough for a median inside ten minutes
        self.work = Path(tempfile.mkdtemp(prefix="jpblob-bench-"))
        self.home = self.work / "home"
        self.home.mkdir()
        self.env = git_env(self.home)
        # install names git-jpblob, found on PATH, in the config and hooks.
        self.env["PATH"] = f"{self.bin.parent}:{self.env.get('PATH', '')}"
        self.files = real_conversations(self.fixtures)
        self.payloads = real_payloads(self.files)
        self.mb = 20 if args.quick else 100
        self.n_conversations = 200 if args.quick else 1000

    def discard(self, path):
        """Moves `path` out of the way instead of deleting it now: on an ext4
        without a journal (this machine's) the kernel rescans the inodes
        freed in the last minute on every new one, so a timed run that
        creates thousands of files right after thousands were deleted pays
        for the set-up's deletion, quadratically (docs/ARCHITECTURE.md, "A
        cold clean's cost on disk"). Everything moved here goes with the
        work folder at the end. Both sides of a row get the same treatment."""
        path = Path(path)
        if not path.exists():
            return
        trash = self.work / "trash"
        trash.mkdir(exist_ok=True)
        path.rename(trash / f"{len(list(trash.iterdir()))}-{path.name}")

    def git(self, args, cwd, check=True):
        return sh(f"git {args}", cwd, self.env, check=check)

    def install(self, repo):
        sh(f"{self.bin} install --local", repo, self.env)

    def init_repo(self, repo, kind):
        """An empty repository set up as `kind`: jpblob, plain or lfs."""
        self.git("init -q .", repo)
        if kind == "jpblob":
            self.install(repo)
        elif kind == "lfs":
            sh("git lfs install --local > /dev/null && git lfs track '.jp/conversations/**/events.json' > /dev/null",
               repo, self.env)

    # clean, smudge and memory on one large conversation
    def large_file(self):
        print(f"== one {self.mb} MB conversation", flush=True)
        d = self.work / "large"
        d.mkdir()
        cold = d / "cold.json"
        big_conversation(cold, self.payloads, self.mb << 20, True, 1)
        payload_bytes = d / "payloads.bin"
        with open(payload_bytes, "wb") as f:
            for e in json.loads(cold.read_text()):
                f.write(base64.b64decode(e["content"]))
        store = d / "store"

        def reset_store():
            self.discard(store)
            store.mkdir()
            # The deletions are the set-up's: flushed here, so the timed
            # clean's filesystem syncs do not pay for them.
            os.sync()

        clean = f"{self.bin} clean --store {store} > {d}/cleaned.json"
        ratio, a, b = interleave(lambda: timed(clean, d, self.env, cold),
                                 lambda: timed(f"gzip -6 -c {payload_bytes} > /dev/null", d, self.env),
                                 self.reps, setup_a=reset_store)
        row(f"clean, cold, {self.mb} MB", "gzip -6 of the payload bytes", ratio, "<= 1.25x", 1.25,
            f"({a:.2f}s vs {b:.2f}s)")

        # The same clean with the store in memory (/dev/shm): what is left
        # once the file system's cost of 20,000 files in their aa/bb folders
        # is taken away, so the two rows tell compute from metadata.
        shm = Path("/dev/shm")
        if shm.is_dir():
            mem_store = Path(tempfile.mkdtemp(dir=shm, prefix="jpblob-bench-"))

            def reset_mem_store():
                shutil.rmtree(mem_store, ignore_errors=True)
                mem_store.mkdir()

            try:
                ratio, a, b = interleave(
                    lambda: timed(f"{self.bin} clean --store {mem_store} > /dev/null", d, self.env, cold),
                    lambda: timed(f"gzip -6 -c {payload_bytes} > /dev/null", d, self.env),
                    self.reps, setup_a=reset_mem_store)
            finally:
                shutil.rmtree(mem_store, ignore_errors=True)
            row(f"clean, cold, {self.mb} MB, store in memory", "gzip -6 of the payload bytes", ratio, "report",
                None, f"({a:.2f}s vs {b:.2f}s)")

        input_kib = cold.stat().st_size // 1024
        reset_store()
        kib = peak_kib(f"{self.bin} clean --store {store} > /dev/null", d, self.env, cold)
        limit_kib = 2 * input_kib + 64 * 1024
        row(f"peak memory, clean of {self.mb} MB", "2x input + 64 MB", kib / limit_kib, "<= 1.0 of the limit",
            1.0, f"({kib // 1024} MiB, limit {limit_kib // 1024} MiB)")

        # smudge against gzip -dc of the same blobs
        blobs = d / "blobs.gz"
        with open(blobs, "wb") as out:
            for p in sorted(store.rglob("*.blob.gz")):
                out.write(p.read_bytes())
        smudge = f"{self.bin} smudge --store {store} > /dev/null"
        ratio, a, b = interleave(lambda: timed(smudge, d, self.env, d / "cleaned.json"),
                                 lambda: timed(f"gzip -dc {blobs} > /dev/null", d, self.env), self.reps)
        row(f"smudge, {self.mb} MB", "gzip -dc of the same blobs", ratio, "<= 1.5x", 1.5, f"({a:.2f}s vs {b:.2f}s)")

        # warm clean against git lfs clean, on the large file and the largest real one
        lfs = d / "lfsrepo"
        self.git(f"init -q {lfs}", d)
        sh("git lfs install --local > /dev/null", lfs, self.env)
        largest = max(self.files, key=lambda p: p.stat().st_size)
        for label, src in ((f"{self.mb} MB", cold), ("largest real", largest)):
            sh(f"{self.bin} clean --store {store} > /dev/null", d, self.env, stdin=open(src, "rb"))
            sh(f"git lfs clean x.json > /dev/null", lfs, self.env, stdin=open(src, "rb"))
            ratio, a, b = interleave(
                lambda: timed(f"{self.bin} clean --store {store} > /dev/null", d, self.env, src),
                lambda: timed("git lfs clean x.json > /dev/null", lfs, self.env, src), self.reps)
            row(f"clean, warm, {label}", "git lfs clean", ratio, "<= 1.0x", 1.0, f"({a:.3f}s vs {b:.3f}s)")

    # git add / clone / status of many conversations
    def many_conversations(self):
        n = self.n_conversations
        print(f"== {n} conversations", flush=True)
        d = self.work / "many"
        d.mkdir()
        templates = [json.loads(f.read_text()) for f in self.files]
        counter = iter(range(10 ** 9))
        src = d / "src"
        dup = d / "dup"
        rng = random.Random(2)
        for i in range(n):
            t = templates[i % len(templates)]
            # The first 60 events keep real shapes and sizes at about 100 KB
            # a conversation, so 1,000 fit the ten-minute budget.
            text = conversation_from(t, lambda: perturb(rng.choice(self.payloads), next(counter)), 60)
            for base in (src, dup):
                p = base / f".jp/conversations/{17000000000 + i}-bench/events.json"
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(text)
        total_mb = sum(p.stat().st_size for p in src.rglob("events.json")) / 2 ** 20

        def fresh(path, kind, tree):
            self.discard(path)
            path.mkdir()
            shutil.copytree(tree / ".jp", path / ".jp")
            self.init_repo(path, kind)

        ra, rb, rl = d / "a", d / "b", d / "l"
        add = "git add .jp/conversations"
        # One cold add of ours serves both peers: A (plain) (lfs) A (plain) (lfs) ...
        (ratio, b), a_cold, (ratio_lfs, b_lfs) = interleave_many(
            lambda: timed(add, ra, self.env),
            [(lambda: timed(add, rb, self.env), lambda: fresh(rb, "plain", src)),
             (lambda: timed(add, rl, self.env), lambda: fresh(rl, "lfs", src))],
            self.reps, setup_a=lambda: fresh(ra, "jpblob", src))
        row(f"git add {n} conversations, cold, adopting repository", f"plain git add ({total_mb:.0f} MB)", ratio,
            "<= 1.5x", 1.5, f"({a_cold:.2f}s vs {b:.2f}s)")
        shutil.rmtree(rl, ignore_errors=True)

        # The default set-up: a repository that holds conversations already
        # is lean (SPEC 2), and a new blob never touches the work tree.
        seed = d / "seed"
        p = seed / ".jp/conversations/16999999999-seed/events.json"
        p.parent.mkdir(parents=True)
        shutil.copy(next(src.rglob("events.json")), p)

        def fresh_lean(path, kind):
            fresh(path, kind, seed)
            self.git("add -A .", path)
            self.git("commit -qm seed", path)
            shutil.copytree(src / ".jp/conversations", path / ".jp/conversations", dirs_exist_ok=True)
            if kind == "jpblob" and sh("git config core.sparseCheckout", path, self.env,
                                       capture=True)[1].strip() != b"true":
                raise RuntimeError("the bench's lean repository is not lean")

        ratio, a, b = interleave(lambda: timed(add, ra, self.env), lambda: timed(add, rb, self.env), self.reps,
                                 setup_a=lambda: fresh_lean(ra, "jpblob"), setup_b=lambda: fresh_lean(rb, "plain"))
        row(f"git add {n} conversations, cold, lean (the default)", "plain git add, same repository", ratio,
            "<= 1.2x", 1.2, f"({a:.2f}s vs {b:.2f}s)")

        # Warm: the same conversations again, every blob already in the store.
        fresh(ra, "jpblob", src)
        timed(add, ra, self.env)
        blobs = ra / ".jp/blobs"

        def warm():
            fresh(rb, "jpblob", dup)
            shutil.copytree(blobs, rb / ".jp/blobs")

        rc = d / "c"
        ratio, a, b = interleave(lambda: timed(add, rb, self.env), lambda: timed(add, rc, self.env), self.reps,
                                 setup_a=warm, setup_b=lambda: fresh(rc, "plain", dup))
        row(f"git add {n} conversations, warm", "plain git add", ratio, "<= 1.2x", 1.2, f"({a:.2f}s vs {b:.2f}s)")

        row(f"git add {n} conversations", "git-lfs tracking them", ratio_lfs, "report", None,
            f"({a_cold:.2f}s vs {b_lfs:.2f}s)")

        # clone + checkout, and status right after
        origins = {}
        for kind in ("jpblob", "plain", "lfs"):
            o = d / f"origin-{kind}"
            fresh(o, kind, src)
            self.git("add -A .", o)
            self.git("commit -qm conversations", o)
            origins[kind] = o
        # the clone side needs the filter config: global, as a user has it,
        # for git-lfs too (without `git lfs install` a clone checks out
        # pointer files and smudges nothing). A clone of conversations is
        # lean by default (core/workspace/lean): the post-checkout hook the
        # filter installs during the clone drops the blob files git wrote.
        sh(f"{self.bin} install --global > /dev/null", d, self.env)
        sh("git lfs install --skip-repo > /dev/null", d, self.env)
        plain_env = dict(self.env)
        plain_env["GIT_CONFIG_PARAMETERS"] = "'filter.jpblob.process'='' 'filter.jpblob.required'='false'"

        def clone(kind):
            dest = d / f"clone-{kind}"
            self.discard(dest)
            env = plain_env if kind == "plain" else self.env
            return timed(f"git clone -q {origins[kind]} {dest}", d, env)

        def clone_rows(label):
            # One clone of ours serves both peers.
            try:
                self.discard(d / "lfs-probe")
                sh(f"git clone -q {origins['lfs']} {d / 'lfs-probe'}", d, self.env)
                peers = [(lambda: clone("plain"), None), (lambda: clone("lfs"), None)]
                lfs_failure = ""
            except RuntimeError as e:
                peers = [(lambda: clone("plain"), None)]
                lfs_failure = str(e).splitlines()[0][:60]
            results = interleave_many(lambda: clone("jpblob"), peers, self.reps)
            (ratio, b), a = results[0], results[1]
            row(f"git clone + checkout, {n} conversations{label}", "plain git clone", ratio,
                "<= 1.5x" if not label else "report", 1.5 if not label else None, f"({a:.2f}s vs {b:.2f}s)")
            if len(results) > 2:
                ratio_lfs, b2 = results[2]
                row(f"git clone + checkout, {n} conversations{label}", "git-lfs clone", ratio_lfs, "report", None,
                    f"({a:.2f}s vs {b2:.2f}s)")
            else:
                row(f"git clone + checkout, {n} conversations{label}", "git-lfs clone", None, "report", None,
                    f"(git-lfs clone failed: {lfs_failure})")

        def status_row(label, target):
            clone("jpblob")
            clone("plain")
            time.sleep(1.1)  # past the racy-git window for both clones
            ours, theirs = d / "clone-jpblob", d / "clone-plain"
            limit = None if target == "report" else float(target[3:-1])

            def measure(name):
                # One warm-up each, then interleaved pairs.
                timed("git status", ours, self.env)
                timed("git status", theirs, plain_env)
                ratio, a, b = interleave(lambda: timed("git status", ours, self.env),
                                         lambda: timed("git status", theirs, plain_env), self.reps * 2)
                row(name, "plain git status", ratio, target, limit, f"({a * 1000:.0f}ms vs {b * 1000:.0f}ms)")

            measure(f"git status after checkout{label}")
            # The same with the untracked cache on both sides, as editors run it.
            for repo in (ours, theirs):
                sh("git config core.untrackedCache true", repo, self.env)
            measure(f"git status, untracked cache on both sides{label}")

        # As a teammate who ran `git jpblob install` once has it: a lean
        # work tree (blob files written by git, then dropped by the hook).
        clone_rows("")

        # The floor of the default mechanism: git writes the blob files
        # before anything of git-jpblob runs (the post-checkout hook drops
        # them), so what writing and removing them costs git itself is plain
        # git's clone of the same repository, blob files and all, then
        # their removal (on a disk that discards freed blocks, most of it).
        def floor_clone():
            dest = d / "clone-floor"
            self.discard(dest)
            return timed(f"git clone -q {origins['jpblob']} {dest} && rm -rf {dest}/.jp/blobs", d, plain_env)

        ratio, a, b = interleave(lambda: clone("jpblob"), floor_clone, self.reps)
        row(f"git clone + checkout, {n} conversations", "floor: plain clone + removing its blob files", ratio,
            "<= 1.1x", 1.1, f"({a:.2f}s vs {b:.2f}s)")
        status_row("", "<= 1.2x")
        self.status_against_index_floor(d, origins["jpblob"], plain_env)
        # The opt-in clone template: no blob file is ever written.
        sh(f"{self.bin} install --global --clone-template > /dev/null", d, self.env)
        clone_rows(", clone template")
        sh(f"{self.bin} install --global > /dev/null", d, self.env)

        # git checkout of another branch (half the conversations changed) and
        # back, in fresh clones.
        clone("jpblob")
        clone("plain")
        for kind in ("jpblob", "plain"):
            repo = d / f"clone-{kind}"
            env = self.env if kind == "jpblob" else plain_env
            sh("git checkout -q -b half", repo, env)
            for p in sorted((repo / ".jp/conversations").glob("*/events.json"))[::2]:
                p.write_text(p.read_text().replace('"type"', '"type" ', 1))
            sh("git add .jp/conversations && git commit -q --no-verify -m half", repo, env)
            sh("git checkout -q -", repo, env)
        ratio, a, b = interleave(
            lambda: timed("git checkout -q half && git checkout -q -", d / "clone-jpblob", self.env),
            lambda: timed("git checkout -q half && git checkout -q -", d / "clone-plain", plain_env), self.reps)
        row("git checkout of another branch and back (500 conversations)", "plain git checkout", ratio, "report",
            None, f"({a:.2f}s vs {b:.2f}s)")

        # The store checked out (`install --no-lean`, or JP with RFD 066).
        sh(f"{self.bin} install --global --no-lean > /dev/null", d, self.env)
        clone_rows(", store checked out")
        status_row(", store checked out", "report")
        sh(f"{self.bin} uninstall --global > /dev/null", d, self.env)

    def status_against_index_floor(self, d, origin, plain_env):
        """git status in the lean clone against plain git on a clone with the
        same index entries, every .jp/blobs entry skip-worktree: what RFD
        066's one-file-a-blob layout costs git itself."""
        floor = d / "floor"
        self.discard(floor)
        sh(f"git clone -q --no-checkout {origin} {floor}", d, plain_env)
        sh("git config core.sparseCheckout true && git config core.sparseCheckoutCone false && "
           "git config sparse.expectFilesOutsideOfPatterns true && mkdir -p .git/info && "
           "printf '/*\\n!/.jp/blobs/\\n' > .git/info/sparse-checkout && git checkout -q", floor, plain_env)
        ours = d / "clone-jpblob"
        self.discard(ours)
        sh(f"git clone -q {origin} {ours}", d, self.env)
        time.sleep(1.1)  # past the racy-git window for both
        timed("git status", ours, self.env)
        timed("git status", floor, plain_env)
        ratio, a, b = interleave(lambda: timed("git status", ours, self.env),
                                 lambda: timed("git status", floor, plain_env), self.reps * 2)
        row("git status after clone, lean", "index floor: plain git, same index", ratio, "<= 1.1x", 1.1,
            f"({a * 1000:.0f}ms vs {b * 1000:.0f}ms)")

    def without_conversations(self):
        """A repository without conversations must not notice git-jpblob:
        git status there with git-jpblob installed against without."""
        print("== a repository without conversations", flush=True)
        d = self.work / "plain-repo"
        d.mkdir()
        origin = d / "origin"
        origin.mkdir()
        for i in range(10000):
            f = origin / f"src/{i % 100}/f{i}.rs"
            f.parent.mkdir(parents=True, exist_ok=True)
            f.write_text(f"fn f{i}() {{}}\n")
        self.git("init -q .", origin)
        self.git("add -A .", origin)
        self.git("commit -qm code", origin)
        bare_home = self.work / "home-without"
        bare_home.mkdir(exist_ok=True)
        if (self.home / ".gitconfig").exists():
            shutil.copy(self.home / ".gitconfig", bare_home / ".gitconfig")
        without_env = git_env(bare_home)
        sh(f"{self.bin} install --global > /dev/null", d, self.env)
        sh(f"git clone -q {origin} {d / 'with'}", d, self.env)
        sh(f"git clone -q {origin} {d / 'without'}", d, without_env)
        time.sleep(1.1)
        timed("git status", d / "with", self.env)
        timed("git status", d / "without", without_env)
        ratio, a, b = interleave(lambda: timed("git status", d / "with", self.env),
                                 lambda: timed("git status", d / "without", without_env), self.reps * 2)
        row("git status, 10,000 files, no conversations", "the same before install", ratio, "<= 1.05x", 1.05,
            f"({a * 1000:.0f}ms vs {b * 1000:.0f}ms)")
        sh(f"{self.bin} uninstall --global > /dev/null", d, self.env)

    # the hook in a large repository
    def build_repo(self, repo, n_conv, per):
        """A committed repository of n_conv conversations of `per` tool outputs each."""
        repo.mkdir()
        self.git("init -q .", repo)
        self.install(repo)
        self.git("config jpblob.fsync false", repo)  # set-up only; timed commands sync as usual
        rng = random.Random(n_conv)
        conv_root = repo / ".jp/conversations"
        for i in range(n_conv):
            events = []
            for k in range(per):
                data = f"tool output {i}/{k} {rng.random()}\n".encode() * rng.randint(1, 8)
                events.append({"timestamp": "2026-01-01 00:00:00.000000", "type": "tool_call_response",
                               "id": f"t{k}", "content": base64.b64encode(data).decode(), "is_error": False})
            p = conv_root / f"{17000000000 + i}-c/events.json"
            p.parent.mkdir(parents=True)
            p.write_text(json.dumps(events, indent=2) + "\n")
        self.git("add -A .", repo)
        self.git("commit -q --no-verify -m base", repo)
        self.git("config --unset jpblob.fsync", repo)
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, env=self.env, capture_output=True,
                              text=True).stdout.strip()

    def make_orphans(self, repo, count):
        old = time.time() - 7200
        for k in range(count):
            data = f"orphan {k}".encode()
            h = hashlib.sha256(data).hexdigest()
            p = repo / f".jp/blobs/{h[:2]}/{h[2:4]}/{h}.blob.gz"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(gzip.compress(data, mtime=0))
            os.utime(p, (old, old))

    def gc_time(self, repo, orphans):
        times = []
        for _ in range(self.reps):
            self.make_orphans(repo, orphans)
            times.append(timed(f"{self.bin} gc", repo, self.env))
        return statistics.median(times)

    # the hook, gc and verify in a large repository
    def big_repository(self):
        n_conv = 500 if self.quick else 5000
        per = 20
        print(f"== a repository of {n_conv} conversations, {n_conv * per} blobs", flush=True)
        repo = self.work / "bigrepo"
        head = self.build_repo(repo, n_conv, per)
        conv_root = repo / ".jp/conversations"
        hooks = repo / ".git/hooks"
        ours = (hooks / "pre-commit").read_text()
        standin = "#!/bin/sh\ngit diff --cached --name-only > /dev/null\n"
        target = conv_root / f"{17000000000 + n_conv // 2}-c/events.json"
        counter = iter(range(10 ** 9))

        def prepare(hook_text):
            self.git(f"reset -q --hard {head}", repo)
            (hooks / "pre-commit").write_text(hook_text)
            events = json.loads(target.read_text())
            events.append({"timestamp": "2026-01-02 00:00:00.000000", "type": "tool_call_response",
                           "id": "new", "content": base64.b64encode(f"new output {next(counter)}".encode()).decode(),
                           "is_error": False})
            target.write_text(json.dumps(events, indent=2) + "\n")
            self.git(f"add {target}", repo)

        commit = "git commit -q -m one"
        ratio, a, b = interleave(lambda: timed(commit, repo, self.env), lambda: timed(commit, repo, self.env),
                                 self.reps, setup_a=lambda: prepare(ours), setup_b=lambda: prepare(standin))
        row(f"pre-commit, one conversation in {n_conv}", "stand-in hook: git diff --cached --name-only", ratio,
            "<= 1.5x", 1.5, f"(commit {a * 1000:.0f}ms vs {b * 1000:.0f}ms)")
        self.git(f"reset -q --hard {head}", repo)
        (hooks / "pre-commit").write_text(ours)

        # gc with 10% of the blobs unreferenced, against listing every blob
        # and reading every events.json once.
        orphans = n_conv * per // 10
        make_orphans = lambda: self.make_orphans(repo, orphans)
        floor = ("find .jp/blobs -type f > /dev/null; "
                 "find .jp/conversations -name events.json -print0 | xargs -0 cat > /dev/null")
        ratio, a, b = interleave(lambda: timed(f"{self.bin} gc", repo, self.env), lambda: timed(floor, repo, self.env),
                                 self.reps, setup_a=make_orphans)
        row(f"gc, {n_conv} conversations / {n_conv * per} blobs + 10%", "list blobs + read every events.json",
            ratio, "<= 3x", 3.0, f"({a:.2f}s vs {b:.2f}s)")
        half = self.work / "halfrepo"
        self.build_repo(half, n_conv // 2, per)
        t_half = self.gc_time(half, orphans // 2)
        t_full = self.gc_time(repo, orphans)
        row(f"gc scaling: {n_conv // 2} -> {n_conv} conversations", f"gc at {n_conv // 2} / {n_conv * per // 2} blobs",
            t_full / t_half, "<= 2.2x for 2x data", 2.2, f"({t_full:.2f}s vs {t_half:.2f}s)")

        make_orphans()
        verify_floor = "find .jp/blobs -name '*.blob.gz' -print0 | xargs -0 cat | gzip -dc | sha256sum > /dev/null"
        ratio, a, b = interleave(lambda: timed(f"{self.bin} verify > /dev/null", repo, self.env),
                                 lambda: timed(verify_floor, repo, self.env), self.reps)
        row("verify, same store", "cat blobs | gzip -dc | sha256sum", ratio, "<= 1.0x", 1.0,
            f"({a:.2f}s vs {b:.2f}s)")

    # repository size on the real history
    def history(self):
        print("== .git size on the real 28-commit history", flush=True)
        bundle = self.fixtures / "jp-conversations-history.bundle"
        d = self.work / "history"
        d.mkdir()
        src = d / "src"
        self.git(f"clone -q {bundle} {src}", d)
        commits = subprocess.run(["git", "rev-list", "--reverse", "HEAD"], cwd=src, env=self.env,
                                 capture_output=True, text=True).stdout.split()
        sizes, loose = {}, {}
        for kind in ("jpblob", "plain", "lfs"):
            r = d / kind
            r.mkdir()
            self.init_repo(r, kind)
            for c in commits:
                self.git(f"checkout -q {c}", src)
                shutil.rmtree(r / ".jp/conversations", ignore_errors=True)
                shutil.copytree(src / ".jp/conversations", r / ".jp/conversations")
                self.git("add -A .", r)
                self.git("commit -q --allow-empty -m c", r)
            # Before any gc: the loose objects a user carries between
            # automatic gcs. (For git-lfs, .git/lfs holds the contents.)
            loose[kind] = sum(p.stat().st_size for p in (r / ".git").rglob("*") if p.is_file())
            self.git("gc -q --aggressive", r)
            sizes[kind] = sum(p.stat().st_size for p in (r / ".git").rglob("*") if p.is_file())
        detail = ", ".join(f"{k} {v / 2 ** 20:.2f} MiB" for k, v in loose.items())
        row(".git size before any git gc, real history", "plain git", loose["jpblob"] / loose["plain"], "report",
            None, f"({detail})")
        row(".git size before any git gc, real history", "git-lfs", loose["jpblob"] / loose["lfs"], "report",
            None, "")
        detail = ", ".join(f"{k} {v / 2 ** 20:.2f} MiB" for k, v in sizes.items())
        row(".git size after git gc --aggressive, real history", "plain git", sizes["jpblob"] / sizes["plain"],
            "<= 0.85x", 0.85, f"({detail})")
        row(".git size after git gc --aggressive, real history", "git-lfs", sizes["jpblob"] / sizes["lfs"],
            "report", None, "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--quick", action="store_true", help="smaller data, fewer runs (a smoke test)")
    ap.add_argument("--only", nargs="*", default=[], help="large many plain big history")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    if not (Path(args.fixtures) / "jp-workspace").is_dir():
        print("bench: ../shared/fixtures is absent; nothing to measure")
        return 0
    b = Bench(args)
    start = time.time()
    try:
        for name, fn in (("large", b.large_file), ("many", b.many_conversations),
                         ("plain", b.without_conversations), ("big", b.big_repository), ("history", b.history)):
            if not args.only or name in args.only:
                section = time.time()
                fn()
                print(f"  ({name}: {time.time() - section:.0f}s)", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(b.work, ignore_errors=True)
    print(f"\ngit-jpblob benchmark ({'quick' if args.quick else 'full'}; {time.time() - start:.0f}s; "
          f"median of {b.reps} interleaved pairs; lower is better)\n")
    print(f"| {'row':<52} | {'measured against':<46} | {'ratio':>6} | {'target':<20} | met |")
    print(f"|{'-' * 54}|{'-' * 48}|{'-' * 8}|{'-' * 22}|-----|")
    for name, peer, ratio, target, met, detail in ROWS:
        r = "n/a" if ratio is None else f"{ratio:.2f}x"
        m = "-" if met is None else ("yes" if met else "NO")
        print(f"| {name:<52} | {peer:<46} | {r:>6} | {target:<20} | {m:<3} |")
    print()
    for name, peer, ratio, target, met, detail in ROWS:
        if detail:
            print(f"  {name} vs {peer}: {detail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
