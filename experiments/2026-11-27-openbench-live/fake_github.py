#!/usr/bin/env python3
"""The few GitHub endpoints a local OpenBench server and its workers call, answered from local files, over
HTTPS on 127.0.0.1 (point api.github.com, github.com and raw.githubusercontent.com there in /etc/hosts, and give
both processes REQUESTS_CA_BUNDLE=the system's authorities plus the CA that setup.sh made). OpenBench itself is
not changed.

- api.github.com/repos/OWNER/REPO/branches/BRANCH, …/commits/REF: the commit from the local repository REPO
  (`--repo NAME=PATH`), as {"sha", "commit": {"message"}} (branches nest it under "commit", as GitHub does);
- api.github.com/repos/OWNER/REPO/zipball/SHA and github.com/OWNER/REPO/archive/REF.zip: `git archive` of it;
- raw.githubusercontent.com/PATH: the file PATH under `--raw DIR` (the opening books' zips).

usage: fake_github.py --cert CERT --key KEY --repo kairos=/path/to/checkout --raw DIR [--port 443]
"""
import argparse
import http.server
import json
import os
import re
import ssl
import subprocess


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True).stdout


class Handler(http.server.BaseHTTPRequestHandler):
    repos = {}
    raw_dir = "."

    def do_GET(self):
        host = self.headers.get("Host", "").split(":")[0]
        path = self.path.split("?")[0]
        try:
            if host == "raw.githubusercontent.com":
                return self.send_file(path)
            if host == "api.github.com":
                if m := re.fullmatch(r"/repos/[^/]+/([^/]+)/(branches|commits)/([^/]+)/?", path):
                    return self.send_commit(m.group(1), m.group(3), nested=m.group(2) == "branches")
                if m := re.fullmatch(r"/repos/[^/]+/([^/]+)/zipball/([^/]+)/?", path):
                    return self.send_zip(m.group(1), m.group(2))
            if host == "github.com":
                if m := re.fullmatch(r"/[^/]+/([^/]+)/archive/([^/]+)\.zip", path):
                    return self.send_zip(m.group(1), m.group(2))
        except (KeyError, subprocess.CalledProcessError) as error:
            return self.send_json(404, {"message": f"Not Found ({error})"})
        self.send_json(404, {"message": "Not Found"})

    def send_commit(self, repo, ref, nested):
        local = self.repos[repo]
        sha = git(local, "rev-parse", "--verify", ref + "^{commit}").decode().strip()
        message = git(local, "log", "-1", "--format=%B", sha).decode()
        commit = {"sha": sha, "commit": {"message": message}}
        self.send_json(200, {"name": ref, "commit": commit} if nested else commit)

    def send_zip(self, repo, ref):
        local = self.repos[repo]
        sha = git(local, "rev-parse", "--verify", ref + "^{commit}").decode().strip()
        body = git(local, "archive", "--format=zip", f"--prefix={repo}-{sha[:12]}/", sha)
        self.send_bytes(200, body, "application/zip")

    def send_file(self, path):
        full = os.path.realpath(os.path.join(self.raw_dir, path.lstrip("/")))
        if not full.startswith(os.path.realpath(self.raw_dir)) or not os.path.isfile(full):
            return self.send_json(404, {"message": "Not Found"})
        with open(full, "rb") as f:
            self.send_bytes(200, f.read(), "application/octet-stream")

    def send_json(self, code, value):
        self.send_bytes(code, json.dumps(value).encode(), "application/json")

    def send_bytes(self, code, body, kind):
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cert", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--repo", action="append", default=[], help="NAME=PATH of a local git repository")
    parser.add_argument("--raw", default=".")
    parser.add_argument("--port", type=int, default=443)
    args = parser.parse_args()
    Handler.repos = dict(item.split("=", 1) for item in args.repo)
    Handler.raw_dir = args.raw
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
