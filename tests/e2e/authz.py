# SPDX-License-Identifier: Apache-2.0
"""Helpers of the authorization matrix (test_security_authz.py): raw
frames with any credential, their outcome in a word, a private munged with
a key of its own, and hand-made JWTs.

Outcomes, as the matrix in docs/security.md writes them:

  ok      the daemon answered without error
  error   authorized, then refused for another reason (a body the handler
          takes as invalid: the matrix's bodies are not real launches)
  denied  EDRV_ACCESS_DENIED from the handler (ownership, admin level),
          or EDRV_USER_ID_MISSING ("Security violation") for a job
          submitted on behalf of another user
  role    EDRV_ACCESS_DENIED from the server: "uid N may not send 'T'"
          (the handler table's roles)
  auth    EDRV_PROTOCOL_AUTH: the credential itself was refused
  hidden  a listing answered without the target (PrivateData)
  401/403/... the HTTP status, for droverrestd's paths
"""

import base64
import hashlib
import hmac
import json
import os
import socket
import struct
import subprocess
import time

from cluster import ClusterError, wait_until

EDRV_PROTOCOL_AUTH = 1007
EDRV_ACCESS_DENIED = 2002
EDRV_USER_ID_MISSING = 2010


def body_text(body):
    """The body as src/proto/auth.c hashes it: compact, sorted keys."""
    return json.dumps(body, separators=(",", ":"), sort_keys=True,
                      ensure_ascii=False)


def munge_payload(msg_type, body):
    """The payload binding a MUNGE credential to (type, body)."""
    digest = hashlib.sha256(msg_type.encode() + b"\0"
                            + body_text(body).encode()).hexdigest()
    return f"drv2:{digest}"


def mint(socket_path, msg_type, body, user=None, ttl=None):
    """A MUNGE credential for (type, body) from the munged at socket_path,
    as 'user' (runuser) or as the caller; 'ttl' seconds of life."""
    cmd = ["munge", "-S", str(socket_path), "-s",
           munge_payload(msg_type, body)]
    if ttl is not None:
        cmd += ["-t", str(ttl)]
    if user is not None:
        cmd = ["runuser", "-u", user, "--", *cmd]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=30)
    if r.returncode != 0:
        raise ClusterError(f"munge: {r.stderr.strip()}")
    return r.stdout.strip()


def frame(msg_type, body, cred):
    """One request frame; cred None: the frame has no "cred" key."""
    msg = {"v": 1, "type": msg_type, "body": body}
    if cred is not None:
        msg["cred"] = cred
    data = json.dumps(msg).encode()
    return struct.pack(">I", len(data)) + data


def send(port, data, timeout=10):
    """Send one frame (bytes) to 127.0.0.1:port; (errnum, errstr, body) of
    the answer, errnum 0 for a success."""
    with socket.create_connection(("127.0.0.1", port), timeout) as s:
        s.sendall(data)
        (length,) = struct.unpack(">I", _recv_exact(s, 4))
        resp = json.loads(_recv_exact(s, length))
    body = resp.get("body", {})
    if resp.get("type") == "error":
        return body.get("errnum"), body.get("errstr", ""), body
    return 0, "", body


def _recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise ClusterError("connection closed mid-frame")
        buf += chunk
    return buf


def outcome(errnum, errstr):
    """The matrix's word for an answer (see the module's docstring)."""
    if errnum == 0:
        return "ok"
    if errnum == EDRV_PROTOCOL_AUTH:
        return "auth"
    if errnum == EDRV_ACCESS_DENIED:
        return "role" if "may not send" in errstr else "denied"
    if errnum == EDRV_USER_ID_MISSING:
        return "denied"
    return "error"


class PrivateMunged:
    """A munged of the test's own, with a key of its own: its credentials
    are genuine MUNGE credentials that the cluster's munged cannot decode.
    """

    def __init__(self, directory):
        self.dir = directory
        self.dir.mkdir(parents=True, exist_ok=True)
        os.chmod(self.dir, 0o755)
        self.socket = self.dir / "munge.socket"
        self.pidfile = self.dir / "munged.pid"
        key = self.dir / "munge.key"
        key.write_bytes(os.urandom(1024))
        os.chmod(key, 0o600)
        r = subprocess.run(
            [_munged(), f"--socket={self.socket}", f"--key-file={key}",
             f"--pid-file={self.pidfile}",
             f"--log-file={self.dir / 'munged.log'}",
             f"--seed-file={self.dir / 'munged.seed'}", "--force"],
            capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            raise ClusterError(f"private munged: {r.stderr.strip()}")
        wait_until(self.socket.exists, 10, "the private munged's socket")

    def mint(self, msg_type, body):
        return mint(self.socket, msg_type, body)

    def stop(self):
        try:
            os.kill(int(self.pidfile.read_text().split()[0]), 15)
        except (OSError, ValueError, IndexError):
            pass


def _munged():
    for path in ("/usr/sbin/munged", "/usr/local/sbin/munged",
                 "/sbin/munged"):
        if os.access(path, os.X_OK):
            return path
    raise ClusterError("no munged installed")


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt(header, claims, key):
    """A JWT with 'header' and 'claims', HS256-signed with 'key' (bytes),
    or with an empty signature when key is None."""
    head = b64url(json.dumps(header).encode())
    body = b64url(json.dumps(claims).encode())
    sig = b"" if key is None else hmac.new(
        key, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{b64url(sig)}"


def forged_jwts(user="root"):
    """{"jwt_other_key": ..., "jwt_alg_none": ...}: tokens naming 'user',
    unexpired, one signed with a key that is not the cluster's, one with
    alg none and no signature."""
    now = int(time.time())
    claims = {"sun": user, "iat": now, "exp": now + 600}
    return {
        "jwt_other_key": jwt({"alg": "HS256", "typ": "JWT"}, claims,
                             b"x" * 32),
        "jwt_alg_none": jwt({"alg": "none", "typ": "JWT"}, claims, None),
    }
