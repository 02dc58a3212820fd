#!/usr/bin/env python3
"""Soak the release daemon: mixed submissions (some retried with their key), previews, job
listings and idle connections for SECONDS, sampling its memory and open files.

    python3 scripts/soak.py [SECONDS] [--json out.json] [--rate JOBS_PER_SECOND]

Submissions are paced (default 12 jobs/s over four directory printers, about 20,000 jobs an
hour) so the printers keep up and the queue can drain at the end: a faster stream only grows a
backlog that takes hours to print.

At the end the queue must drain and every accepted job must be printed exactly once (one PDF
per job at the directory printer). Prints a summary (RSS at start, after warm-up and at the end,
open files, requests by status) and exits non-zero if a promise broke or memory or files grew
after the warm-up. RSS is reported with its anonymous and file-backed parts: a leak grows the
first; the binary's own pages, faulted in as paths and locales are first used, the second."""
import http.client
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.environ.get("RECEIPT_BINARY", os.path.join(ROOT, ".build/release/receipt"))
SECONDS = int(sys.argv[1]) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 1800
OUT = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
RATE = float(sys.argv[sys.argv.index("--rate") + 1]) if "--rate" in sys.argv else 12.0
PRINTERS = ["archive1", "archive2", "archive3", "archive4"]
ORDER = json.load(open(os.path.join(ROOT, "Templates/Examples/small.json")))


def memory_kib(pid):
    """RSS, and its anonymous and file-backed parts: a leak grows the anonymous part; the
    binary's own pages (code, the ICU data linked into it) are file-backed and fault in as paths
    and locales are first used."""
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            name, _, value = line.partition(":")
            if name in ("VmRSS", "RssAnon", "RssFile"):
                fields[name] = int(value.split()[0])
    return {"rss_kib": fields.get("VmRSS", 0), "anon_kib": fields.get("RssAnon", 0), "file_kib": fields.get("RssFile", 0)}


def rss_kib(pid):
    return memory_kib(pid)["rss_kib"]


def open_files(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def main():
    work = tempfile.mkdtemp(prefix="receipt-soak-")
    archive = os.path.join(work, "archive")
    os.mkdir(archive)
    log = open(os.path.join(work, "serve.log"), "w")
    daemon = subprocess.Popen(
        [BINARY, "serve", "--port", "0", "--db", os.path.join(work, "queue.sqlite"),
         *[a for p in PRINTERS for a in ("--printer", f"{p}=dir:{archive}")],
         "--templates", os.path.join(ROOT, "Templates")],
        stdout=subprocess.PIPE, stderr=log, text=True)
    # The API's and the IPP printers' addresses, in the order their listeners came up.
    line = ""
    for _ in range(5):
        line = daemon.stdout.readline()
        if "http://127.0.0.1:" in line:
            break
    else:
        sys.exit(f"soak: the daemon did not say its API's address (last line: {line!r})")
    port = int(line.split("http://127.0.0.1:")[1].split("/")[0])
    stop = threading.Event()
    lock = threading.Lock()
    statuses = {}
    accepted = {}  # key -> job id
    problems = []
    rng = random.Random(20261123)

    def record(kind, status):
        with lock:
            statuses[f"{kind} {status}"] = statuses.get(f"{kind} {status}", 0) + 1

    def request(method, path, body=None, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def submitter(seed):
        r = random.Random(seed)
        n = 0
        while not stop.is_set():
            n += 1
            key = f"soak-{seed}-{n}"
            order = dict(ORDER, number=f"{seed}-{n}", id=820982911946154508 + n)
            body = json.dumps({"template": "receipt", "printer": PRINTERS[n % len(PRINTERS)], "data": order})
            headers = {"Content-Type": "application/json", "Idempotency-Key": key}
            try:
                status, answer = request("POST", "/v1/jobs", body, headers)
                record("submit", status)
                if status in (200, 202):
                    job = json.loads(answer)["id"]
                    with lock:
                        accepted[key] = job
                    if r.random() < 0.2:  # the answer was "lost": the same request again
                        again, answer = request("POST", "/v1/jobs", body, headers)
                        record("resend", again)
                        if again != 200 or json.loads(answer)["id"] != job:
                            problems.append(f"resend of {key}: {again}")
            except Exception as error:  # noqa: BLE001 - a soak counts every failure
                record("submit", type(error).__name__)
            time.sleep(r.uniform(0.5, 1.5) * 4 / RATE)  # four submitters

    def previewer():
        body = json.dumps({"template": "receipt", "data": ORDER})
        while not stop.is_set():
            try:
                status, _ = request("POST", "/v1/render?format=png", body, {"Content-Type": "application/json"})
                record("render", status)
            except Exception as error:  # noqa: BLE001
                record("render", type(error).__name__)
            time.sleep(0.2)

    def reader():
        while not stop.is_set():
            try:
                status, _ = request("GET", "/v1/jobs?limit=50")
                record("list", status)
            except Exception as error:  # noqa: BLE001
                record("list", type(error).__name__)
            time.sleep(0.5)

    def idler():
        while not stop.is_set():
            sockets = []
            for _ in range(50):
                try:
                    sockets.append(socket.create_connection(("127.0.0.1", port), timeout=5))
                except OSError:
                    record("idle", "refused")
            time.sleep(rng.uniform(1, 20))
            for s in sockets:
                s.close()

    threads = [threading.Thread(target=submitter, args=(i,)) for i in range(4)]
    threads += [threading.Thread(target=previewer), threading.Thread(target=reader), threading.Thread(target=idler)]
    samples = []
    started = time.time()
    for t in threads:
        t.start()
    warmup = None
    while time.time() - started < SECONDS:
        time.sleep(10)
        sample = {"t": round(time.time() - started), **memory_kib(daemon.pid), "fds": open_files(daemon.pid),
                  "accepted": len(accepted)}
        samples.append(sample)
        if warmup is None and sample["t"] >= min(300, SECONDS / 4):
            warmup = sample
        print(f"soak: {sample}", flush=True)
    stop.set()
    for t in threads:
        t.join()
    # Drain: every accepted job printed once.
    deadline = time.time() + 1200
    while time.time() < deadline:
        status, answer = request("GET", "/v1/printers")
        printers = json.loads(answer)["printers"]
        if all(p["queued"] == 0 and p["printing"] == 0 for p in printers):
            break
        time.sleep(1)
    end = {**memory_kib(daemon.pid), "fds": open_files(daemon.pid)}
    files = os.listdir(archive)
    pdfs = [f for f in files if f.endswith(".pdf")]
    ids = {}
    for f in pdfs:
        job = f[:-4].split("-", 1)[1]
        ids[job] = ids.get(job, 0) + 1
    for key, job in accepted.items():
        if ids.get(job, 0) != 1:
            problems.append(f"{key} ({job}) printed {ids.get(job, 0)} times")
    unexpected = {k: v for k, v in statuses.items() if not k.endswith((" 200", " 202", " 429"))}
    if unexpected:
        problems.append(f"unexpected answers: {unexpected}")
    first = samples[0] if samples else end
    warm = warmup or first
    growth = end["rss_kib"] - warm["rss_kib"]
    if growth > max(8 * 1024, warm["rss_kib"] * 0.25):
        problems.append(f"RSS grew {growth} KiB after the warm-up")

    if end["fds"] > warm["fds"] + 20:
        problems.append(f"open files grew from {warm['fds']} to {end['fds']}")
    daemon.send_signal(signal.SIGTERM)
    code = daemon.wait(timeout=60)
    if code != 0:
        problems.append(f"SIGTERM exit {code}")
    summary = {
        "seconds": SECONDS, "accepted": len(accepted), "printed": len(pdfs), "statuses": statuses,
        "rss_kib": {"first": first["rss_kib"], "warm": warm["rss_kib"], "end": end["rss_kib"],
                    "peak": max(s["rss_kib"] for s in samples) if samples else end["rss_kib"]},
        "anon_kib": {"first": first["anon_kib"], "warm": warm["anon_kib"], "end": end["anon_kib"]},
        "file_kib": {"first": first["file_kib"], "warm": warm["file_kib"], "end": end["file_kib"]},
        "fds": {"first": first["fds"], "warm": warm["fds"], "end": end["fds"]},
        "problems": problems, "samples": samples,
    }
    print(json.dumps({k: v for k, v in summary.items() if k != "samples"}, indent=2))
    if OUT:
        json.dump(summary, open(OUT, "w"), indent=2)
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
