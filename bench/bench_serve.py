"""Benchmark: `corpusdb serve` with N concurrent browser sessions (run by hand; prints, asserts nothing).

    python bench/bench_serve.py [--sessions 1,4] [--keys 100] [--think 0.2] [--read 0] [--chars 2000]
    python bench/bench_serve.py --sessions 1,10,20,40      # the issue's sizes (minutes on 2 cores)
    python bench/bench_serve.py --sessions 20 --keys 60 --think 1.0        # a key a second each
    python bench/bench_serve.py --sessions 20 --keys 60 --think 0.2 --read 2   # bursts, then reading

Builds a SQLite project (one annotator per session, each with a password and a document of
``--chars`` characters), starts `corpusdb serve`, and for each N: N sessions connect over the
websocket protocol at once (``tui.webclient``, what a browser tab sends and receives), log in, open
their document and, once every session is in its document, type ``--keys`` keystrokes that annotate
(move a word, ``a``, ``p`` for protein: a span every three keys). Each key comes ``--think`` seconds
(on average: ``--jitter``) after the previous one was painted, the first one up to ``--think``
seconds after the start, so that sessions do not type in step; ``--read`` adds a pause after each
span (uniform, that mean), for people who type a burst and then read. Printed per N:

* memory per session: PSS of each session's processes (the shell textual-serve starts and the
  Python app under it; PSS splits the pages they share), the median; and the total of the server
  plus every session;
* keystroke → screen: from sending a key to the bytes that show its effect arriving (the type
  picker after ``a``; the span counted in the status line after ``p``; the first frame after ``w``,
  a cursor move that changes no text), p50 and p95, and p95 by kind of key;
* CPU a key: every process of the server's group (the server, and each session's shell and app)
  while all sessions type, over the keys sent meanwhile; and, apart, what this bench's own client
  spent (a browser's work, done on each annotator's machine, not the server's);
* the spans saved (read back from the database: the keystrokes did annotate), and the keys lost: a
  key whose effect never showed within 20 s is counted, Escape resyncs, and it is left out of the
  latencies.

Why the client finds a key's effect in the bytes rather than on an emulated screen: pyte (a VT100
emulator in pure Python) spent about 15 ms of CPU a key here, as much as half of what the server
spends, on the server's own two cores; a browser does that work on the annotator's machine. The
screen is still emulated when a key is lost (to resync) and for the login and the document list.
Why everyone is in before anyone types: a burst of logins (each a Python start and a 0.4 s scrypt
check) saturates the cores for many seconds; keys typed meanwhile measured the logins, not typing
(the login time is printed on its own).

The baseline, in the same run: `corpusdb tui --as NAME --open DOC` in a local pseudo-terminal of the
same size, the same keys and think time, the same figures (one process, no server, no websocket).
Goal (issue 23): 20 concurrent annotators with p95 <= 150 ms and <= 150 MB a session.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import select
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from corpusdb.api import Corpus  # noqa: E402
from corpusdb.basics.records import Document  # noqa: E402
from tests.serve_support import served  # noqa: E402
from tui.sample import long_document  # noqa: E402
from tui.webclient import ServedSession  # noqa: E402

WIDTH, HEIGHT = 100, 30
ROUND = ("w", "a", "p")  # next word; annotate; protein (the schema's key picks at once)


@dataclass(frozen=True)
class Pace:
    """How the sessions type (the command line's options, passed down as one)."""

    keys: int = 100
    think: float = 0.2
    jitter: float = 0.5
    read: float = 0.0
    together: bool = True
    emulate: bool = False

    def pause(self, rng: random.Random) -> float:
        """Seconds before the next key: ``think``, give or take ``jitter`` of it."""
        return self.think * rng.uniform(1 - self.jitter, 1 + self.jitter)


def build(url: str, people: int, chars: int) -> None:
    owner = Corpus.create("bench", "biorelex-1.0", url=url)
    text, _ = long_document(chars, 0)
    owner.add_documents([Document(f"doc{i}", text) for i in range(people)])
    for i in range(people):
        owner.add_annotator(f"a{i}")
        owner.create_set(f"doc{i}", f"a{i}")
        owner.set_password(f"a{i}", f"pw-{i}")


def pss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def group_pids(sid: int) -> dict[int, int]:
    """pid -> parent pid of every live process in session ``sid`` (the server's group)."""
    out = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.getsid(int(entry)) == sid:
                    stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
                    if stat[0] != "Z":
                        out[int(entry)] = int(stat[1])
            except OSError:
                pass
    return out


TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int) -> float:
    """User + system CPU seconds the process has used (0 once it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(stat[11]) + int(stat[12])) / TICK


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


async def one_session(
    base: str,
    i: int,
    pace: Pace,
    lat: list[tuple[str, float]],
    typing: list[int],
    lost: list[str],
    sent_at: list[float],
    ready: asyncio.Barrier | None,
) -> float:
    s = ServedSession(base, width=WIDTH, height=HEIGHT, lazy=not pace.emulate)

    async def shows(needle: str, since: int) -> None:
        if pace.emulate:  # the screen emulated at every frame, as this bench did before
            await s.wait_for(needle, timeout=20)
        else:
            await s.wait_for_output(needle, since, timeout=20)

    rng = random.Random(i)  # the same pauses in every run
    await s.connect()
    t0 = time.perf_counter()
    await s.log_in(f"a{i}", f"pw-{i}", expect="My documents", timeout=300)
    login = time.perf_counter() - t0
    await s.wait_for("not started", timeout=120)
    await s.send("enter")
    await s.wait_for(f"doc{i} — a{i}", timeout=120)
    if ready is not None:  # everyone is in their document: they start to type together
        await ready.wait()
    await asyncio.sleep(rng.uniform(0, pace.think) if pace.jitter else pace.think)  # not in step
    typing.append(i)
    made = 0
    for k in range(pace.keys):
        key = ROUND[k % len(ROUND)]
        before, since = s.frames, s.received
        sent = time.perf_counter()
        sent_at.append(sent)
        await s.send(key)
        # until the screen shows the key's effect: the picker, the new span counted, or (a cursor
        # move, which changes no text) its first frame; found in the bytes received (no emulator)
        try:
            if key == "a":
                await shows("picks its type", since)
            elif key == "p":
                await shows(f"· {made + 1} spans", since)
                made += 1
            else:
                await s.wait_until(
                    lambda before=before: s.frames > before, f"a frame after {key!r}", timeout=20
                )
        except TimeoutError:  # the key was lost (typed into a dialog still opening): count it, resync
            lost.append(key)
            await s.send("escape")
            await asyncio.sleep(1.0)
            counted = re.search(r"(\d+) spans", s.text())
            made = int(counted.group(1)) if counted else made
            continue
        lat.append((key, time.perf_counter() - sent))
        await asyncio.sleep(pace.pause(rng))
        if pace.read and key == ROUND[-1]:  # a span made: the person reads on before the next one
            await asyncio.sleep(rng.uniform(0, 2 * pace.read))
    await s.close()
    return login


async def round_of(base: str, n: int, pace: Pace, sid: int) -> dict[str, object]:
    lat: list[tuple[str, float]] = []
    typing: list[int] = []
    lost: list[str] = []
    sent_at: list[float] = []
    ready = asyncio.Barrier(n) if pace.together else None
    tasks = [
        asyncio.create_task(one_session(base, i, pace, lat, typing, lost, sent_at, ready)) for i in range(n)
    ]
    # memory while every session types: sampled once all have logged in and opened their document
    # (a login's scrypt check holds 128 MiB for a moment: that passing peak is not a session's size)
    peak: dict[str, float] = {"total": 0.0, "per": 0.0}
    # CPU while every session types: from when the last one began to when the first one ends, every
    # process of the server's group (the server, the shells, the apps), over the keys sent meanwhile
    cpu0: tuple[float, dict[int, float]] | None = None
    cpu = {"server": 0.0, "apps": 0.0, "keys": 0.0, "client": 0.0, "seconds": 0.0}
    client0 = 0.0
    while not all(t.done() for t in tasks):
        if len(typing) < n:
            await asyncio.sleep(0.2)
            continue
        procs = group_pids(sid)
        server = min(procs) if procs else 0
        now, times = time.perf_counter(), {p: cpu_s(p) for p in procs}
        if cpu0 is None:
            cpu0, client0 = (now, times), time.process_time()
        elif not any(t.done() for t in tasks):
            start, before = cpu0
            used = {p: times[p] - before[p] for p in times if p in before}
            cpu = {
                "server": used.get(server, 0.0),
                "apps": sum(v for p, v in used.items() if p != server),
                "keys": float(sum(1 for t in sent_at if start <= t <= now)),
                "client": time.process_time() - client0,
                "seconds": now - start,
            }
        sessions = {p for p, parent in procs.items() if parent == server}  # the shells
        per = [pss_kib(p) + sum(pss_kib(c) for c, pp in procs.items() if pp == p) for p in sessions]
        total = sum(pss_kib(p) for p in procs)
        if len(per) == n and total > peak["total"]:
            peak = {"total": total, "per": statistics.median(per)}
        await asyncio.sleep(1.0)
    logins = [t.result() for t in tasks]
    # a closed tab ends its session process after the save still in flight: wait for them to end
    # before the server is stopped (stopping it kills its group), so "spans saved" counts every save
    deadline = time.perf_counter() + 60
    while len(group_pids(sid)) > 1 and time.perf_counter() < deadline:
        await asyncio.sleep(0.2)
    return {"lat": lat, "logins": logins, "mem": peak, "lost": lost, "cpu": cpu}


def local_tui(url: str, pace: Pace, who: int) -> dict[str, object]:
    """The same keys in a local pseudo-terminal: `corpusdb tui --as aK --open docK`, a person and a
    document of its own (the served sessions' documents hold their spans by now)."""
    import fcntl
    import pty
    import struct
    import termios

    import pyte

    screen = pyte.Screen(WIDTH, HEIGHT)
    stream = pyte.ByteStream(screen)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", HEIGHT, WIDTH, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "corpusdb", "--db", url, "tui", "--as", f"a{who}", "--open", f"doc{who}"],
        stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
    )  # fmt: skip
    os.close(slave)

    out = bytearray()  # the bytes since the last key: its effect is found there (no emulator)

    def read(timeout: float, feed: bool = False) -> float | None:
        if select.select([master], [], [], timeout)[0]:
            try:
                data = os.read(master, 1 << 20)
            except OSError:  # the app ended: its terminal closed
                return None
            if feed:
                stream.feed(data)
            out.extend(data)
            return time.perf_counter()
        return None

    lat: list[tuple[str, float]] = []
    rng = random.Random(who)
    try:
        deadline = time.time() + 60
        while f"doc{who} — a{who}" not in "\n".join(screen.display) and time.time() < deadline:
            read(0.1, feed=True)
        time.sleep(pace.think)
        while read(0.05):
            pass
        cpu0 = cpu_s(proc.pid)
        made = 0
        for k in range(pace.keys):
            key = ROUND[k % len(ROUND)]
            out.clear()
            sent = time.perf_counter()
            os.write(master, key.encode())
            if key == "p":
                made += 1
            want = {"a": "picks its type", "p": f"· {made} spans"}.get(key)
            got = read(30)
            while want is not None and want.encode() not in out and got is not None:
                got = read(30)
            if got is not None:
                lat.append((key, got - sent))
            end = time.perf_counter() + pace.pause(rng)
            while time.perf_counter() < end:  # drain the rest of the frame while "thinking"
                read(max(0.0, end - time.perf_counter()))
        mem = pss_kib(proc.pid)
        cpu = cpu_s(proc.pid) - cpu0
        os.write(master, b"\x11")
        t = time.time()
        while proc.poll() is None and time.time() - t < 10:
            read(0.05)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        os.close(master)
    return {"lat": lat, "mem": mem, "cpu_ms": cpu * 1000 / max(1, pace.keys)}


def saved_spans(url: str, n: int) -> list[int]:
    owner = Corpus.open(url=url)
    return [len(owner.as_user(f"a{i}").my_set(f"doc{i}").annotations.spans) for i in range(n)]


def ms(x: float) -> str:
    return f"{x * 1000:.0f} ms"


def latencies(lat: list[tuple[str, float]]) -> str:
    """p50 / p95 of every key, then p95 by kind of key (a cursor move, the picker, the span)."""
    every = [x for _k, x in lat]
    kinds = " ".join(f"{k} {ms(pct([x for kk, x in lat if kk == k], 0.95))}" for k in ROUND)
    return f"p50 {ms(pct(every, 0.5))}, p95 {ms(pct(every, 0.95))} ({len(every)} keys; p95 by key: {kinds})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--sessions", default="1,4", help="comma-separated N (default 1,4; the issue's: 1,10,20,40)"
    )
    ap.add_argument("--keys", type=int, default=100)
    ap.add_argument(
        "--think", type=float, default=0.2, help="mean seconds between a key's frame and the next key"
    )
    ap.add_argument(
        "--jitter", type=float, default=0.5,
        help="each pause is think x uniform(1-j, 1+j), the first one uniform(0, think): people do not "
        "type in step (0: every pause is think, every session starts at once)",
    )  # fmt: skip
    ap.add_argument(
        "--staggered", action="store_true",
        help="each session types as soon as it has logged in (the first ones type while the others log in)",
    )  # fmt: skip
    ap.add_argument(
        "--read", type=float, default=0.0,
        help="mean seconds a person reads after each span (uniform 0 to twice it): keys come in bursts",
    )  # fmt: skip
    ap.add_argument(
        "--emulate", action="store_true",
        help="the client emulates every session's screen at every frame (pyte), on this machine's cores, as "
        "this bench did before 2026-11-28 13:30 UTC",
    )  # fmt: skip
    ap.add_argument("--chars", type=int, default=2000)
    args = ap.parse_args()
    sizes = [int(x) for x in args.sessions.split(",")]
    pace = Pace(args.keys, args.think, args.jitter, args.read, not args.staggered, args.emulate)
    load = os.getloadavg()
    print(f"bench_serve {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {load[0]:.2f}, "
          f"{os.cpu_count()} cores; {args.keys} keys a session, {args.think:.2f} s think time "
          f"(jitter {args.jitter:.0%}), {args.read:.1f} s reading after each span; typing {'as each logs in' if args.staggered else 'once all are in'}"
          f"{'; client emulating every screen' if args.emulate else ''}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            url = f"sqlite:///{tmp}/bench-{n}.sqlite"
            build(url, n + 1, args.chars)  # the last person is the local TUI's
            with served(url, "--idle-timeout", "0", cwd=Path(tmp)) as (base, proc):
                got = asyncio.run(round_of(base, n, pace, os.getsid(proc.pid)))
            spans = saved_spans(url, n)
            lat, mem = got["lat"], got["mem"]
            assert isinstance(lat, list) and isinstance(mem, dict)
            logins, cpu = got["logins"], got["cpu"]
            assert isinstance(logins, list) and isinstance(cpu, dict)
            per_key = {k: cpu[k] * 1000 / max(1.0, cpu["keys"]) for k in ("server", "apps", "client")}
            print(
                f"served N={n:>3}: key→screen {latencies(lat)}; "
                f"PSS a session {mem['per'] / 1024:.0f} MiB (median), all {mem['total'] / 1024:.0f} MiB; "
                f"login median {statistics.median(logins):.2f} s; spans saved {min(spans)}-{max(spans)} a session"
                f"; keys lost {len(got['lost'])}"
            )
            print(
                f"  CPU a key: {per_key['server'] + per_key['apps']:.1f} ms (server {per_key['server']:.1f}, "
                f"session processes {per_key['apps']:.1f}; {cpu['keys']:.0f} keys while all typed, "
                f"{cpu['keys'] / max(cpu['seconds'], 1e-9):.1f} keys a second in all; "
                f"besides, this bench's client {per_key['client']:.1f}, a browser's work on another machine); "
                f"at 100 keys/s on {os.cpu_count()} cores: "
                f"{(per_key['server'] + per_key['apps']) / 10 / (os.cpu_count() or 1):.0%} of the machine"
            )
            local = local_tui(url, pace, n)
            llat = local["lat"]
            assert isinstance(llat, list)
            print(
                f"  local tui (same run): key→screen {latencies(llat)}; "
                f"PSS {int(local['mem']) / 1024:.0f} MiB; CPU a key {float(local['cpu_ms']):.1f} ms; "
                f"served/local p95 {pct([x for _k, x in lat], 0.95) / max(pct([x for _k, x in llat], 0.95), 1e-9):.1f}x"
            )
    _ = signal  # (the server's group is ended by tests.serve_support.served)


if __name__ == "__main__":
    main()
