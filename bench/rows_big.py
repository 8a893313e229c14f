"""Rows of a large repository (the hook, gc, verify) and of the real history (.git sizes)."""
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


class BigRepository:
    # the hook in a large repository
    def build_repo(self, repo, n_conv, per):
        """A committed repository of n_conv conversations of `per` tool outputs
        each, its store checked out (`install --no-lean`): the blob files gc
        and verify read, and their floors with them. The base commit runs the
        hook, so every blob is tracked as a team's would be."""
        repo.mkdir()
        self.git("init -q .", repo)
        sh(f"{self.bin} install --local --no-lean > /dev/null", repo, self.env)
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
        self.git("commit -q -m base", repo)
        self.git("config --unset jpblob.fsync", repo)
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, env=self.env, capture_output=True,
                              text=True).stdout.strip()

    def make_orphans(self, repo, count):
        """`count` old blob files nothing references; their paths, one a
        line, go to orphans.txt in the work folder."""
        old = time.time() - 7200
        listed = []
        for k in range(count):
            data = f"orphan {k}".encode()
            h = hashlib.sha256(data).hexdigest()
            p = repo / f".jp/blobs/{h[:2]}/{h[2:4]}/{h}.blob.gz"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_bytes(gzip.compress(data, mtime=0))
            os.utime(p, (old, old))
            listed.append(str(p))
        (self.work / "orphans.txt").write_text("\n".join(listed) + "\n")

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
        print(f"== a repository of {n_conv} conversations, {n_conv * per} blobs, store checked out", flush=True)
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
        row(f"pre-commit, one conversation in {n_conv}, store checked out", "stand-in hook: git diff --cached --name-only", ratio,
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
        row(f"gc, {n_conv} conversations / {n_conv * per} blobs + 10%, store checked out", "list blobs + read every events.json",
            ratio, "<= 3x", 3.0, f"({a:.2f}s vs {b:.2f}s)")
        # The same floor with gc's other physical cost: deleting the 10%
        # (one unlink each, on a disk that may discard each freed block).
        floor_rm = floor + f"; xargs rm -f < {self.work / 'orphans.txt'}"
        ratio, a, b = interleave(lambda: timed(f"{self.bin} gc", repo, self.env), lambda: timed(floor_rm, repo, self.env),
                                 self.reps, setup_a=make_orphans, setup_b=make_orphans)
        row(f"gc, {n_conv} conversations / {n_conv * per} blobs + 10%, store checked out",
            "the same floor + deleting the 10% (rm)", ratio, "report", None, f"({a:.2f}s vs {b:.2f}s)")
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
        row("verify, same store, store checked out", "cat blobs | gzip -dc | sha256sum", ratio, "<= 1.0x", 1.0,
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
