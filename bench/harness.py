"""Helpers of the benchmark: running and timing commands, interleaved ratios,
the table of rows, and the data generated from the shared fixtures."""

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

ROWS = []  # (name, peer, ratio or None, target text, met or None, note)
TABLES = []  # tables of their own (the peer table), printed after the rows


def sh(cmd, cwd=None, env=None, stdin=None, check=True, capture=False):
    """Runs a shell command; returns (seconds, stdout bytes)."""
    start = time.perf_counter()
    r = subprocess.run(cmd, shell=True, cwd=cwd, env=env, stdin=stdin,
                       stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if check and r.returncode != 0:
        raise RuntimeError(f"command failed ({r.returncode}): {cmd}\n{r.stderr.decode()[-2000:]}")
    return elapsed, r.stdout


def timed(cmd, cwd=None, env=None, stdin_path=None):
    if stdin_path:
        with open(stdin_path, "rb") as f:
            return sh(cmd, cwd, env, stdin=f)[0]
    return sh(cmd, cwd, env)[0]


def wait_for_purge(repo, label):
    """Waits for the kept copies a commit set aside (.git/jpblob/retired)
    to be deleted by the process the hook started, so that deleting them
    does not slow the next timed command, and says how long it took."""
    retired = Path(repo) / ".git/jpblob/retired"
    start = time.perf_counter()
    while retired.exists() and any(retired.iterdir()):
        time.sleep(0.05)
    took = time.perf_counter() - start
    if took > 0.05:
        print(f"  {label}: the set-aside kept copies were deleted {took:.1f}s after the commit "
              "(by a process of their own, not in the commit's time)", flush=True)
    return took


def peak_kib(cmd, cwd=None, env=None, stdin_path=None):
    out = Path(tempfile.mktemp())
    full = f"/usr/bin/time -f %M -o {out} sh -c '{cmd}'"
    if stdin_path:
        full += f" < {stdin_path}"
    sh(full, cwd, env)
    return int(out.read_text().split()[-1])


def interleave(a, b, reps, setup_a=None, setup_b=None):
    """Runs a and b alternately; returns (median ratio, median a, median b)."""
    ratio, _, _, med_a, med_b = interleave_spread(a, b, reps, setup_a, setup_b)
    return ratio, med_a, med_b


def interleave_spread(a, b, reps, setup_a=None, setup_b=None):
    """interleave, with the range of the per-pair ratios beside the median:
    (median ratio, lowest, highest, median a, median b)."""
    ta, tb = [], []
    for _ in range(reps):
        if setup_a:
            setup_a()
        ta.append(a())
        if setup_b:
            setup_b()
        tb.append(b())
    ratios = [x / y for x, y in zip(ta, tb)]
    return statistics.median(ratios), min(ratios), max(ratios), statistics.median(ta), statistics.median(tb)


def interleave_many(a, peers, reps, setup_a=None):
    """Runs a, then each peer, in turn (A B C A B C ...): one run of A serves
    every peer. peers: [(fn, setup or None)]. Returns the first peer's
    (median ratio, median time) unpacked with the median of A, then the
    rest: ((ratio, median), median_a, (ratio, median), ...)."""
    ta, tp = [], [[] for _ in peers]
    for _ in range(reps):
        if setup_a:
            setup_a()
        ta.append(a())
        for k, (fn, setup) in enumerate(peers):
            if setup:
                setup()
            tp[k].append(fn())
    out = []
    for k in range(len(peers)):
        ratios = [x / y for x, y in zip(ta, tp[k])]
        out.append((statistics.median(ratios), statistics.median(tp[k])))
    return (out[0], statistics.median(ta), *out[1:])


def row(name, peer, ratio, target, limit, detail=""):
    met = None if limit is None or ratio is None else ratio <= limit
    ROWS.append((name, peer, ratio, target, met, detail))
    status = "n/a" if ratio is None else f"{ratio:.2f}x"
    print(f"  {name}: {status} vs {peer} (target {target}) {detail}", flush=True)


def git_env(home):
    env = dict(os.environ)
    env.update(HOME=str(home), GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="bench",
               GIT_AUTHOR_EMAIL="bench@example.com", GIT_COMMITTER_NAME="bench",
               GIT_COMMITTER_EMAIL="bench@example.com")
    for k in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "JPBLOB_SKIP_SMUDGE"):
        env.pop(k, None)
    # No `gc --auto` after a commit of thousands of loose objects: it goes
    # on in the background (gc.autoDetach) and slowed whatever ran next by
    # up to three times.
    env.update(GIT_CONFIG_COUNT="1", GIT_CONFIG_KEY_0="gc.auto", GIT_CONFIG_VALUE_0="0")
    return env


# --- data -----------------------------------------------------------------

def real_conversations(fixtures):
    root = fixtures / "jp-workspace/.jp/conversations"
    return sorted(root.rglob("events.json"))


def real_payloads(files):
    out = []
    for f in files:
        for e in json.loads(f.read_text()):
            if e.get("type") == "tool_call_response" and isinstance(e.get("content"), str):
                try:
                    out.append(base64.b64decode(e["content"], validate=True))
                except Exception:
                    out.append(e["content"].encode())
    return out


def perturb(payload, tag):
    """A unique variant of a real payload with its size and shape."""
    return payload + f"\n[{tag}]".encode()


def conversation_from(template_events, payload_for, limit_events=None):
    """A JP conversation with the template's events, payloads replaced."""
    events = []
    for e in template_events[:limit_events]:
        e = dict(e)
        if e.get("type") == "tool_call_response" and isinstance(e.get("content"), str):
            e["content"] = base64.b64encode(payload_for()).decode()
        events.append(e)
    return json.dumps(events, indent=2) + "\n"


def big_conversation(path, payloads, size, unique, seed):
    rng = random.Random(seed)
    parts, total, i = [], 0, 0
    while total < size:
        p = payloads[i % len(payloads)]
        if unique:
            p = perturb(p, f"{seed}-{i}-{rng.random()}")
        b64 = base64.b64encode(p).decode()
        parts.append('{"timestamp":"2026-01-01 00:00:00.%06d","type":"tool_call_response",'
                     '"id":"t%d","content":"%s","is_error":false}' % (i % 1000000, i, b64))
        total += len(b64) + 100
        i += 1
    path.write_text("[\n" + ",\n".join(parts) + "\n]\n")


# --- rows -----------------------------------------------------------------
