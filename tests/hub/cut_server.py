#!/usr/bin/env python3
"""A one-file Hub that breaks connections on cue, for the download tests nginx cannot stage (rows N8, N9 of
anchors-reliability): it serves one repo, `cut/model` with one LFS file, and

  - cuts the first GET of the file after CUT bytes (Content-Length promises all of it, then the socket closes),
  - then answers a Range request with 206 and the rest (mode "resume"), or ignores Range and sends the whole
    file again with 200 (mode "ignore-range"), or does so and cuts it at the same place again before it
    honours the next Range (mode "ignore-range-and-cut");
  - or, in mode "stall", sends the headers of every file GET and then nothing at all (a slow-loris server, N18);
  - or, in mode "drip", sends them and then 4 bytes every half second (a slow-loris that is never silent);
  - or, in mode "compressed", answers with a Content-Encoding of gzip although identity was asked for;
  - or, in mode "huge-header", answers with a header line of 150 KB (over libcurl's 100 KB limit).

usage: cut_server.py PORT_FILE MODE FILE_SIZE CUT
Writes the port it listens on (127.0.0.1, picked by the OS) to PORT_FILE, then serves until killed. Every
request line and its Range header are appended to PORT_FILE + ".log".
"""
import hashlib
import http.server
import json
import os
import sys
import time

port_file, mode, size, cut = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
body = bytes((i * 7 + 3) % 251 for i in range(size))
sha = hashlib.sha256(body).hexdigest()
commit = "c" * 40
info = json.dumps({"id": "cut/model", "sha": commit, "siblings": [
    {"rfilename": "weights.bin", "size": size, "blobId": "b" * 40, "lfs": {"sha256": sha, "size": size}}]}).encode()
state = {"gets": 0}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        with open(port_file + ".log", "a") as f:
            f.write(f"{self.command} {self.path} range={self.headers.get('Range', '')}\n")

    def send(self, status, data, extra=()):
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def promise(self, meta):
        """The headers of a 200 promising the whole file; its body is up to the caller."""
        self.send_response(200)
        self.send_header("Content-Length", str(size))
        for k, v in meta:
            self.send_header(k, v)
        self.end_headers()

    def do_GET(self):
        if self.path.startswith("/api/models/cut/model"):
            return self.send(200, info, [("Content-Type", "application/json")])
        if not self.path.startswith("/cut/model/resolve/"):
            return self.send(404, b"{}", [("X-Error-Code", "RepoNotFound")])
        meta = [("X-Repo-Commit", commit), ("X-Linked-Etag", f'"{sha}"'), ("X-Linked-Size", str(size))]
        state["gets"] += 1
        rng = self.headers.get("Range")
        if mode == "huge-header":
            return self.send(200, body, meta + [("X-Padding", "a" * 150_000)])
        if mode == "compressed":
            # Sent "compressed" although identity was asked for: not the file's bytes.
            return self.send(200, body, meta + [("Content-Encoding", "gzip")])
        if mode == "stall":
            self.promise(meta)
            self.wfile.flush()
            time.sleep(60)
            return
        if mode == "drip":
            self.promise(meta)
            try:
                for at in range(0, size, 4):
                    self.wfile.write(body[at:at + 4])
                    self.wfile.flush()
                    time.sleep(0.5)
            except OSError:  # the client gave up
                pass
            return
        if state["gets"] == 1 or (mode == "ignore-range-and-cut" and state["gets"] == 2):
            # ("ignore-range-and-cut": the resumed request gets the whole file again, 200, cut as well.)
            # Promise the whole body, deliver CUT bytes, drop the connection.
            self.promise(meta)
            self.wfile.write(body[:cut])
            self.wfile.flush()
            self.close_connection = True
            self.connection.shutdown(2)
            return
        if rng and mode in ("resume", "ignore-range-and-cut"):
            start = int(rng.split("=")[1].split("-")[0])
            return self.send(206, body[start:], meta + [("Content-Range", f"bytes {start}-{size - 1}/{size}")])
        return self.send(200, body, meta)


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(port_file + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
# Renamed into place last: the test polls for the file.
os.rename(port_file + ".tmp", port_file)
server.serve_forever()
