#!/usr/bin/env python3
"""Drives the local OpenBench as a user would, through its web forms and its scripts API (#34 item 3).

  ob.py network                 upload weights/maia-1900.pb.gz as Kairos's network (scripts API, UPLOAD_NETWORK)
  ob.py sprt COMMIT             create the SPRT: default smooth(preset=kairos) against legacy (scripts API)
  ob.py spsa COMMIT             create the SPSA of two smooth keys (the web form, logged in), 8 iterations of 4
                                game pairs, at a priority above the SPRT's so that the worker plays it first
  ob.py delete ID               delete a workload (its page's Delete button, logged in)
  ob.py status ID               a workload's results (api/workload/ID/results)
  ob.py spsa-values ID          the SPSA's optimal values as `Name, value` lines (api/spsa/ID/outputs), the
                                input of `kairos tune --import openbench`

Server http://127.0.0.1:8000, user kairos/kairos (setup.sh); TC and games set by the constants below.
"""
import hashlib
import json
import os
import re
import sys

import requests

SERVER = os.environ.get("OPENBENCH_SERVER", "http://127.0.0.1:8000")
USER, PASSWORD = "kairos", "kairos"
REPO = "https://github.com/kairos-local/kairos"
HERE = os.path.dirname(os.path.abspath(__file__))
KAIROS = os.path.normpath(os.path.join(HERE, "..", ".."))
NETWORK = os.path.join(KAIROS, "weights", "maia-1900.pb.gz")
BENCH = "10192"  # `kairos bench` on a CPU with native bf16 (docs/openbench.md)
SPRT_TC = "5.0+0.05"
SPSA_TC = "5.0+0.05"
# `kairos tune --export openbench` for these two keys of smooth (docs/openbench.md).
SPSA_INPUTS = "\n".join([
    "SmoothMaxMoveBudget, float, 0.3, 0.1, 0.6, 0.02, 0.002",
    "SmoothInitTimeuse, float, 0.7, 0.3, 1.2, 0.02, 0.002",
])
# learn-node-use=true: the node limit learned node use by default when this ran (2026-11-27); without it init-timeuse
# has no effect under limit=nodes, and `kairos tune --export openbench` refuses it.
SPSA_MANAGER = "TimeManager=smooth(limit=nodes,learn-node-use=true)"


def network_sha():
    """OpenBench names a network by the first 8 hex digits of its SHA-256, upper case."""
    return hashlib.sha256(open(NETWORK, "rb").read()).hexdigest()[:8].upper()


def messages(html):
    found = re.findall(r'<div class="(error|status)-message">\s*<pre>(.*?)</pre>', html, re.DOTALL)
    return "; ".join(f"{kind}: {text.strip()}" for kind, text in found) or "(no message)"


def upload_network():
    data = {"username": USER, "password": PASSWORD, "engine": "Kairos", "name": "maia-1900",
            "action": "UPLOAD_NETWORK"}
    with open(NETWORK, "rb") as f:
        r = requests.post(f"{SERVER}/scripts/", data=data, files={"netfile": f})
    print(r.status_code, messages(r.text), "sha256", network_sha())


def common(commit):
    return {
        "dev_engine": "Kairos", "dev_repo": REPO, "dev_branch": commit, "dev_bench": BENCH,
        "dev_network": network_sha(), "book_name": "8mvs_+90_+99.epd", "upload_pgns": "COMPACT",
        "priority": "0", "throughput": "1000", "syzygy_wdl": "DISABLED", "syzygy_adj": "OPTIONAL",
        "win_adj": "None", "draw_adj": "None", "scale_method": "BASE", "scale_nps": "3000", "info": "",
    }


def create_sprt(commit):
    data = common(commit) | {
        "dev_options": "Threads=1 Hash=1 TimeManager=smooth(preset=kairos)", "dev_time_control": SPRT_TC,
        "base_engine": "Kairos", "base_repo": REPO, "base_branch": commit, "base_bench": BENCH,
        "base_network": network_sha(), "base_options": "Threads=1 Hash=1 TimeManager=legacy",
        "base_time_control": SPRT_TC,
        "test_mode": "SPRT", "test_bounds": "[0.00, 10.00]", "test_confidence": "[0.05, 0.05]",
        "test_max_games": "", "workload_size": "8",
        "username": USER, "password": PASSWORD, "action": "CREATE_TEST",
    }
    r = requests.post(f"{SERVER}/scripts/", data=data)
    print(r.status_code, messages(r.text))


def logged_in():
    session = requests.Session()
    session.get(f"{SERVER}/login/")
    r = session.post(f"{SERVER}/login/", data={"username": USER, "password": PASSWORD,
                                               "csrfmiddlewaretoken": session.cookies.get("csrftoken", "")})
    r.raise_for_status()
    return session


def create_spsa(commit):
    session = logged_in()
    session.get(f"{SERVER}/tune/new/")
    data = common(commit) | {
        "dev_options": f"Threads=1 Hash=1 {SPSA_MANAGER}", "dev_time_control": SPSA_TC,
        "spsa_inputs": SPSA_INPUTS, "spsa_reporting_type": "BATCHED", "spsa_distribution_type": "SINGLE",
        "spsa_alpha": "0.602", "spsa_gamma": "0.101", "spsa_A_ratio": "0.1", "spsa_iterations": "8",
        "spsa_pairs_per": "4", "priority": "1", "csrfmiddlewaretoken": session.cookies.get("csrftoken", ""),
    }
    r = session.post(f"{SERVER}/tune/new/", data=data, headers={"Referer": f"{SERVER}/tune/new/"})
    print(r.status_code, messages(r.text))


def delete(workload):
    session = logged_in()
    r = session.post(f"{SERVER}/test/{workload}/DELETE/",
                     data={"csrfmiddlewaretoken": session.cookies.get("csrftoken", "")},
                     headers={"Referer": f"{SERVER}/test/{workload}/"})
    print(r.status_code, messages(r.text))


def show(path):
    r = requests.get(f"{SERVER}{path}")
    try:
        print(json.dumps(r.json(), indent=1))
    except ValueError:
        print(r.status_code, r.text[:2000])


def main():
    command, *rest = sys.argv[1:] or ["help"]
    if command == "network":
        upload_network()
    elif command == "sprt":
        create_sprt(rest[0])
    elif command == "spsa":
        create_spsa(rest[0])
    elif command == "delete":
        delete(rest[0])
    elif command == "status":
        show(f"/api/workload/{rest[0]}/results/")
    elif command == "spsa-values":
        print(requests.get(f"{SERVER}/api/spsa/{rest[0]}/outputs/").text)
    else:
        print(__doc__)


if __name__ == "__main__":
    main()
