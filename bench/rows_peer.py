"""The peer table (issue 48): git-jpblob beside what a team would pick instead,
plain git and git-lfs tracking `.jp/conversations/**/events.json` whole, each
set up in a HOME of its own as a user has it: adopting the conversations, the
next turn in every one, a clone from a bare remote on disk, status after it,
and the sizes of the server and of a clone."""
import json
import random
import shutil
import statistics
import time
from pathlib import Path

from harness import *  # noqa: F401,F403

KINDS = ("plain", "lfs", "jpblob")
HEADS = {"plain": "plain git", "lfs": "git-lfs", "jpblob": "git-jpblob"}


def next_second():
    """Sleeps into the next second: what is added was written in an earlier
    one, as a user adds what JP wrote, so no side's index holds it racily
    clean (bench/NOTES.md, "git's racy-clean refresh")."""
    time.sleep(1.01 - time.time() % 1.0)


def disk_mib(path):
    """Disk used by a folder (allocated blocks, as `du` counts them), in MiB."""
    return int(sh(f"du -s -B1 {path}", capture=True)[1].split()[0]) / 2 ** 20


class Peers:
    def peer(self):
        self.peer_table(30 if self.quick else 300, 5)

    def peer3000(self):
        self.peer_table(300 if self.quick else 3000, self.reps)

    def real_turns(self):
        """Every turn of the fixtures' conversations (a chat_request and the
        events up to the next one) that runs a tool: the shapes of a next turn."""
        turns = []
        for f in self.files:
            events = json.loads(f.read_text())
            starts = [k for k, e in enumerate(events) if e.get("type") == "chat_request"] + [len(events)]
            for s, e in zip(starts, starts[1:]):
                if any(ev.get("type") == "tool_call_response" for ev in events[s:e]):
                    turns.append(events[s:e])
        return turns

    def peer_envs(self, d):
        """Each side's own HOME: nothing installed for plain git, `git lfs
        install` for git-lfs, `git jpblob install` (global, lean) for ours."""
        envs = {}
        for kind in KINDS:
            home = d / f"home-{kind}"
            home.mkdir()
            env = git_env(home)
            env["PATH"] = self.env["PATH"]
            envs[kind] = env
        sh(f"{self.bin} install --global > /dev/null", d, envs["jpblob"])
        sh("git lfs install --skip-repo > /dev/null", d, envs["lfs"])
        return envs

    def peer_table(self, n, reps):
        print(f"== peers: {n} conversations, plain git, git-lfs, git-jpblob", flush=True)
        d = self.work / f"peer-{n}"
        d.mkdir()
        src = d / "src"
        self.generate_conversations(n, (src,), seed=48 + n)
        docs = sorted(src.rglob("events.json"))
        total_mb = sum(p.stat().st_size for p in docs) / 2 ** 20
        envs = self.peer_envs(d)
        repos = {kind: d / f"work-{kind}" for kind in KINDS}
        split = {}  # (step, kind) -> [seconds]

        def steps(kind, step, commands):
            """Times each command in turn; records each and returns their sum."""
            total = 0.0
            for name, cmd in commands:
                took = timed(cmd, repos[kind], envs[kind])
                split.setdefault((step, name, kind), []).append(took)
                total += took
            if kind == "jpblob":
                wait_for_purge(repos[kind], f"{step}, {n}")
            return total

        def adoption(kind):
            path = repos[kind]
            self.discard(path)
            path.mkdir()
            shutil.copytree(src / ".jp", path / ".jp")
            self.git("init -q -b main .", path)
            if kind == "jpblob":
                # Inside a repository: the global config again, .gitattributes and the hooks.
                sh(f"{self.bin} install > /dev/null", path, envs[kind])
            if kind == "lfs":
                sh("git lfs install > /dev/null && git lfs track '.jp/conversations/**/events.json' > /dev/null",
                   path, envs[kind])
            sh("sync", d)
            next_second()

        commit = [("git add", "git add -A ."), ("git commit", "git commit -qm conversations")]

        def side(kind, step, setup=None):
            return (lambda: steps(kind, step, commit), setup)

        (adopt_lfs, adopt_plain), adopt_ours = self.rounds(
            side("jpblob", "adopt", lambda: adoption("jpblob")),
            [side("lfs", "adopt", lambda: adoption("lfs")), side("plain", "adopt", lambda: adoption("plain"))],
            reps)

        if not sh("git ls-files .jp/blobs", repos["jpblob"], envs["jpblob"], capture=True)[1]:
            raise RuntimeError("git-jpblob's adoption committed no blob: its filter did not run")

        # The next turn: one real-shaped turn appended to every conversation,
        # the same bytes on each side, in the repositories the last round adopted.
        turns = self.real_turns()
        texts = [p.read_text() for p in docs]
        counter = iter(range(10 ** 9))
        rng = random.Random(n)
        names = [p.relative_to(src) for p in docs]
        round_no = iter(range(10 ** 6))

        def next_turn():
            r = next(round_no)
            for i, text in enumerate(texts):
                turn = json.loads(conversation_from(turns[(i + r) % len(turns)],
                                                    lambda: perturb(rng.choice(self.payloads), f"turn {next(counter)}")))
                texts[i] = json.dumps(json.loads(text) + turn, indent=2) + "\n"
                for kind in KINDS:
                    (repos[kind] / names[i]).write_text(texts[i])
            sh("sync", d)
            next_second()

        (turn_lfs, turn_plain), turn_ours = self.rounds(
            side("jpblob", "turn", next_turn), [side("lfs", "turn"), side("plain", "turn")], reps)

        servers = self.serve(d, repos, envs)
        clones = {kind: d / f"clone-{kind}" for kind in KINDS}

        def clone(kind, env=None, after=""):
            dest = clones[kind] if env is None else d / "clone-floor"
            self.discard(dest)
            return timed(f"git clone -q file://{servers[kind]} {dest}{after}", d, env or envs[kind])

        floor = "floor: plain git's clone of git-jpblob's server + removing its .jp/blobs files"
        (clone_lfs, clone_plain, clone_floor), clone_ours = self.rounds(
            (lambda: clone("jpblob"), None),
            [(lambda: clone("lfs"), None), (lambda: clone("plain"), None),
             (lambda: clone("jpblob", envs["plain"], f" && rm -rf {d / 'clone-floor'}/.jp/blobs"), None)], reps)
        if any((clones["jpblob"] / ".jp/blobs").rglob("*.blob.gz")):
            raise RuntimeError("git-jpblob's clone is not lean")
        if (clones["lfs"] / names[0]).read_text().startswith("version https://git-lfs"):
            raise RuntimeError("git-lfs's clone checked out pointer files: its smudge did not run")

        index_floor = d / "index-floor"
        self.index_floor_clone(servers["jpblob"], index_floor, envs["plain"])
        time.sleep(1.1)  # past the racy-git window for every clone
        status = {kind: (clones[kind], envs[kind]) for kind in KINDS}
        status["floor"] = (index_floor, envs["plain"])
        for where, env in status.values():
            timed("git status", where, env)
        (status_floor, status_lfs, status_plain), status_ours = self.rounds(
            (lambda: timed("git status", *status["jpblob"]), None),
            [(lambda k=k: timed("git status", *status[k]), None) for k in ("floor", "lfs", "plain")], reps * 2)

        clone_mib = {kind: disk_mib(clones[kind]) for kind in KINDS}
        for kind in KINDS:
            sh("git gc -q --aggressive", servers[kind], envs[kind])
        server_mib = {kind: disk_mib(servers[kind]) for kind in KINDS}

        times = lambda ours, lfs, plain: {"jpblob": ours, "lfs": lfs[1], "plain": plain[1]}  # noqa: E731
        lines = [f"| {n} conversations ({total_mb:.0f} MB), medians of {reps} interleaved rounds "
                 f"| plain git | git-lfs | git-jpblob | vs git-lfs | vs plain git | target | met |",
                 "|---|---|---|---|---|---|---|---|"]

        def line(name, values, unit, vs_lfs, vs_plain, target="report", limit=None, against=None):
            fmt = (lambda v: f"{v * 1000:.0f} ms") if unit == "ms" else (
                (lambda v: f"{v:.2f} s") if unit == "s" else (lambda v: f"{v:.1f} MiB"))
            checked = vs_lfs if against is None else against
            met = "–" if limit is None else ("yes" if checked <= limit else "NO")
            lines.append(f"| {name} | {fmt(values['plain'])} | {fmt(values['lfs'])} | {fmt(values['jpblob'])} "
                         f"| {vs_lfs:.2f}× | {vs_plain:.2f}× | {target} | {met} |")

        def split_line(step, name):
            values = {k: statistics.median(split[(step, name, k)]) for k in KINDS}
            line(f"  of which `{name}`", values, "s", values["jpblob"] / values["lfs"],
                 values["jpblob"] / values["plain"], "(medians' ratio)")

        line("adopt: `git add` + `git commit` of every conversation", times(adopt_ours, adopt_lfs, adopt_plain), "s",
             adopt_lfs[0], adopt_plain[0], "≤ 1.5× git-lfs", 1.5)
        split_line("adopt", "git add")
        split_line("adopt", "git commit")
        line("next turn in every conversation: `git add` + `git commit`", times(turn_ours, turn_lfs, turn_plain), "s",
             turn_lfs[0], turn_plain[0], "≤ 1.0× git-lfs", 1.0)
        split_line("turn", "git add")
        split_line("turn", "git commit")
        line("`git clone` of the bare remote", times(clone_ours, clone_lfs, clone_plain), "s", clone_lfs[0],
             clone_plain[0], f"≤ 1.0× floor ({clone_floor[1]:.2f} s): {clone_floor[0]:.2f}×", 1.0, clone_floor[0])
        line("`git status` after the clone", times(status_ours, status_lfs, status_plain), "ms", status_lfs[0],
             status_plain[0], f"≤ 1.1× index floor ({status_floor[1] * 1000:.0f} ms): {status_floor[0]:.2f}×", 1.1,
             status_floor[0])
        line("server repository after `git gc --aggressive`", server_mib, "MiB",
             server_mib["jpblob"] / server_mib["lfs"], server_mib["jpblob"] / server_mib["plain"])
        line("a clone: `.git` + work tree", clone_mib, "MiB", clone_mib["jpblob"] / clone_mib["lfs"],
             clone_mib["jpblob"] / clone_mib["plain"])
        TABLES.append("\n".join(lines))
        print("\n".join(lines), flush=True)

        label = f"peers, {n} conversations"
        row(f"{label}: adopt (add + commit)", "git-lfs", adopt_lfs[0], "<= 1.5x", 1.5,
            f"({adopt_ours:.2f}s vs {adopt_lfs[1]:.2f}s; plain git {adopt_plain[1]:.2f}s)")
        row(f"{label}: next turn (add + commit)", "git-lfs", turn_lfs[0], "<= 1.0x", 1.0,
            f"({turn_ours:.2f}s vs {turn_lfs[1]:.2f}s; plain git {turn_plain[1]:.2f}s)")
        row(f"{label}: git clone", "floor: plain clone + removing .jp/blobs", clone_floor[0], "<= 1.0x", 1.0,
            f"({clone_ours:.2f}s vs {clone_floor[1]:.2f}s)")
        row(f"{label}: git clone", "git-lfs clone", clone_lfs[0], "report", None,
            f"({clone_ours:.2f}s vs {clone_lfs[1]:.2f}s)")
        row(f"{label}: git status after clone", "index floor: plain git, same index", status_floor[0], "<= 1.1x",
            1.1, f"({status_ours * 1000:.0f}ms vs {status_floor[1] * 1000:.0f}ms)")
        row(f"{label}: server after gc --aggressive", "git-lfs", server_mib["jpblob"] / server_mib["lfs"], "report",
            None, f"({server_mib['jpblob']:.1f} vs {server_mib['lfs']:.1f} MiB; plain {server_mib['plain']:.1f})")
        row(f"{label}: clone .git + work tree", "git-lfs", clone_mib["jpblob"] / clone_mib["lfs"], "report", None,
            f"({clone_mib['jpblob']:.1f} vs {clone_mib['lfs']:.1f} MiB; plain {clone_mib['plain']:.1f})")

    @staticmethod
    def rounds(ours, peers, reps):
        """interleave_many, ours first in each round: ([(median ratio, median
        seconds) of each peer], median seconds of ours)."""
        fn, setup = ours
        first, median_ours, *rest = interleave_many(fn, peers, reps, setup_a=setup)
        return [first, *rest], median_ours

    def serve(self, d, repos, envs):
        """A bare remote on disk for each side, pushed to as a team would:
        git-lfs's pre-push hook copies its objects into the server's. Pushed
        to and cloned by file:// URL, git's transport as over a network
        (a clone by path hard-links git's objects instead), and the one
        git-lfs's local transfer takes."""
        servers = {}
        for kind in KINDS:
            server = d / f"server-{kind}.git"
            sh(f"git init -q --bare -b main {server}", d, envs[kind])
            sh(f"git push -q file://{server} main", repos[kind], envs[kind])
            servers[kind] = server
        if not any((servers["lfs"] / "lfs/objects").rglob("*")):
            raise RuntimeError("git-lfs's push left no object on its server")
        return servers
