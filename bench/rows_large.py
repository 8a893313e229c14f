"""Rows of one large conversation: clean (cold, warm, in memory), smudge, peak memory."""
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


class LargeFile:
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

        # Moves with the disk more than with the code: the median of three
        # pairs at least, with their range beside it.
        clean = f"{self.bin} clean --store {store} > {d}/cleaned.json"
        ratio, low, high, a, b = interleave_spread(
            lambda: timed(clean, d, self.env, cold),
            lambda: timed(f"gzip -6 -c {payload_bytes} > /dev/null", d, self.env),
            max(3, self.reps), setup_a=reset_store)
        row(f"clean, cold, {self.mb} MB (median of {max(3, self.reps)})", "gzip -6 of the payload bytes", ratio,
            "<= 1.0x", 1.0, f"({a:.2f}s vs {b:.2f}s; range {low:.2f}x-{high:.2f}x)")

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
