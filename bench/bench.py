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
from rows_big import BigRepository
from rows_large import LargeFile
from rows_many import ManyConversations
from rows_peer import Peers
from rows_scale import Scale


class Bench(LargeFile, ManyConversations, BigRepository, Scale, Peers):
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
        for the set-up's deletion, quadratically (bench/NOTES.md, "A
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--fixtures", required=True)
    ap.add_argument("--quick", action="store_true", help="smaller data, fewer runs (a smoke test)")
    ap.add_argument("--only", nargs="*", default=[], help="large many plain big history memory scale huge peer peer3000")
    ap.add_argument("--scale", action="store_true",
                    help="the growth rows only: every workload at 1,000 and 10,000 conversations (over 10 minutes)")
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    if not (Path(args.fixtures) / "jp-workspace").is_dir():
        print("bench: ../shared/fixtures is absent; nothing to measure")
        return 0
    b = Bench(args)
    start = time.time()
    try:
        sections = (("large", b.large_file), ("many", b.many_conversations), ("plain", b.without_conversations),
                    ("big", b.big_repository), ("history", b.history), ("memory", b.delayed_memory),
                    ("scale", b.scale), ("huge", b.huge),
                    ("peer", b.peer), ("peer3000", b.peer3000))
        wanted = set(args.only) | ({"scale"} if args.scale else set())
        for name, fn in sections:
            # The growth rows, the 50,000 and the peer table take too long
            # for the default run (the peers' `git gc --aggressive` of plain
            # git's server alone took 15 minutes at 300): --scale, --only
            # huge, --only peer, --only peer3000.
            if name in wanted or (not wanted and name not in ("scale", "huge", "peer", "peer3000")):
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
    for table in TABLES:
        print(f"\n{table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
