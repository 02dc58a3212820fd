#!/usr/bin/env python3
"""A fleet of simulated Star CloudPRNT printers polling one daemon (load benchmark).

Each of N devices polls every INTERVAL seconds (POST /cloudprnt with its MAC, statusCode and
HTTP Basic credentials, as Star's CloudPRNT Protocol Guide describes); a device told jobReady
fetches the job (GET with its token) and confirms it (DELETE, code 200 OK). Devices are spread
over THREADS threads, each with one keep-alive connection, polling on schedule. Prints one JSON
line: polls answered, their latency percentiles, late polls, jobs printed.

  cloudprnt_fleet.py PORT DEVICES INTERVAL SECONDS [THREADS]
"""
import base64
import http.client
import json
import sys
import threading
import time

port, devices, interval, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
threads = int(sys.argv[5]) if len(sys.argv) > 5 else 8


def mac(i):
    return "00:11:62:%02x:%02x:%02x" % (i >> 16 & 255, i >> 8 & 255, i & 255)


latencies, printed, late, errors = [], [0], [0], [0]
lock = threading.Lock()


def run(mine):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    start = time.monotonic()
    # Devices start spread over the first interval, as printers switched on at different times.
    due = {i: start + interval * (k / max(1, len(mine))) for k, i in enumerate(mine)}
    local, local_printed, local_late, local_errors = [], 0, 0, 0
    while True:
        i = min(due, key=due.get)
        when = due[i]
        if when - start > seconds:
            break
        now = time.monotonic()
        if when > now:
            time.sleep(when - now)
        elif now - when > interval:
            local_late += 1
        auth = {"Authorization": "Basic " + base64.b64encode(("p%d:pw" % i).encode()).decode()}
        body = json.dumps({"printerMAC": mac(i), "statusCode": "200%20OK", "printingInProgress": False})
        t0 = time.perf_counter()
        try:
            conn.request("POST", "/cloudprnt", body, {"Content-Type": "application/json", **auth})
            response = conn.getresponse()
            answer = response.read()
            local.append((time.perf_counter() - t0) * 1000)
            if response.status != 200:
                local_errors += 1
            else:
                reply = json.loads(answer)
                if reply.get("jobReady"):
                    token = reply["jobToken"]
                    query = "mac=%s&type=application%%2Fvnd.star.starprnt&token=%s" % (mac(i), token)
                    conn.request("GET", "/cloudprnt?" + query, headers=auth)
                    job = conn.getresponse()
                    job.read()
                    code = "200%20OK" if job.status == 200 else "520%20Timeout"
                    conn.request("DELETE", "/cloudprnt?mac=%s&code=%s&token=%s" % (mac(i), code, token), headers=auth)
                    conn.getresponse().read()
                    local_printed += job.status == 200
        except Exception:
            local_errors += 1
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        due[i] = when + interval
    with lock:
        latencies.extend(local)
        printed[0] += local_printed
        late[0] += local_late
        errors[0] += local_errors


workers = [threading.Thread(target=run, args=(list(range(t, devices, threads)),)) for t in range(threads)]
for w in workers:
    w.start()
for w in workers:
    w.join()
latencies.sort()


def pct(p):
    return round(latencies[min(len(latencies) - 1, int(len(latencies) * p))], 2) if latencies else None


print(json.dumps({"polls": len(latencies), "p50_ms": pct(0.5), "p99_ms": pct(0.99), "max_ms": pct(1.0),
                  "late": late[0], "errors": errors[0], "printed": printed[0]}))
