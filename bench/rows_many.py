"""Rows of many conversations: git add, clone + checkout, status, branch switch; a repository without conversations."""
import base64
import gzip
import hashlib
import json
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from harness import *  # noqa: F401,F403


class ManyConversations:
    def generate_conversations(self, n, trees, seed=2, events=60):
        """n conversations made from the fixtures, the same bytes in each of
        `trees`. The first 60 events of a real conversation keep real shapes
        and sizes at about 100 KB a conversation, with unique tool outputs."""
        templates = [json.loads(f.read_text()) for f in self.files]
        counter = iter(range(10 ** 9))
        rng = random.Random(seed)
        for i in range(n):
            t = templates[i % len(templates)]
            text = conversation_from(t, lambda: perturb(rng.choice(self.payloads), next(counter)), events)
            for base in trees:
                p = base / f".jp/conversations/{17000000000 + i}-bench/events.json"
                p.parent.mkdir(parents=True, exist_ok=True)
                p.write_text(text)

    # git add / clone / status of many conversations
    def many_conversations(self):
        n = self.n_conversations
        print(f"== {n} conversations", flush=True)
        d = self.work / "many"
        d.mkdir()
        src = d / "src"
        dup = d / "dup"
        self.generate_conversations(n, (src, dup))
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
        self.index_floor_clone(origin, floor, plain_env)
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

    def index_floor_clone(self, origin, floor, plain_env):
        """A plain git clone of `origin` with every .jp/blobs entry
        skip-worktree: the index a lean clone holds, without git-jpblob."""
        self.discard(floor)
        sh(f"git clone -q --no-checkout {origin} {floor}", floor.parent, plain_env)
        sh("git config core.sparseCheckout true && git config core.sparseCheckoutCone false && "
           "git config sparse.expectFilesOutsideOfPatterns true && mkdir -p .git/info && "
           "printf '/*\\n!/.jp/blobs/\\n' > .git/info/sparse-checkout && git checkout -q", floor, plain_env)

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
