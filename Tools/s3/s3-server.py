#!/usr/bin/env python3
"""A throwaway S3 server on 127.0.0.1 for Larder's tests: moto's S3 (Tools/setup.sh installs
moto 5.2.5 in /opt/larder-moto), with a request log and injected faults.

    /opt/larder-moto/bin/python Tools/s3/s3-server.py <run-dir> [--bucket NAME]... [--auth]

Picks a free port, creates the buckets, and with --auth creates an IAM user allowed
everything, writes its keys to <run-dir>/credentials (two lines: access key id, secret) and an
assumed role's temporary ones to <run-dir>/session (id, secret, session token), and from then on checks every request's AWS Signature V4 (moto's INITIAL_NO_AUTH_ACTION_COUNT).
Then writes <run-dir>/port and serves until SIGTERM. <run-dir>/requests.log gets one line per
request: `METHOD /path?query STATUS`.

Faults, for the next COUNT requests whose method is METHOD and whose path contains TEXT:

    POST /_larder/fault?method=PUT&contains=objects/&count=3&action=500|slowdown|drop|delay
    POST /_larder/clear

`drop` closes the connection without an answer, after reading the request's body; `delay`
answers as usual but holds the answer back for 500 ms (so two clients read the same state).
"""
import argparse
import os
import signal
import socket
import sys
import threading
import time
import urllib.parse

from moto import settings
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import make_server

faults = []
faults_lock = threading.Lock()


def take_fault(method, path):
    with faults_lock:
        for fault in faults:
            if fault["count"] > 0 and fault["method"] == method and fault["contains"] in path:
                fault["count"] -= 1
                return fault["action"]
    return None


# moto checks signatures for every request or for none (INITIAL_NO_AUTH_ACTION_COUNT), and
# fails an anonymous request with 500 while it checks them; devices read a public-read bucket
# anonymously. So with --auth, requests run one at a time, an anonymous one with the check
# off (moto then applies the object's ACL, as S3 does: 403 unless public-read).
auth = {"enabled": False}
app_lock = threading.Lock()


def call_app(app, environ, start_response):
    if not auth["enabled"]:
        return app(environ, start_response)
    anonymous = "HTTP_AUTHORIZATION" not in environ and "X-Amz-Signature" not in environ.get("QUERY_STRING", "")
    with app_lock:
        settings.INITIAL_NO_AUTH_ACTION_COUNT = float("inf") if anonymous else 0
        try:
            return list(app(environ, start_response))
        finally:
            settings.INITIAL_NO_AUTH_ACTION_COUNT = 0


def middleware(app, log_path):
    log = open(log_path, "a", buffering=1)
    log_lock = threading.Lock()

    def handle(environ, start_response):
        method = environ["REQUEST_METHOD"]
        path = environ.get("PATH_INFO", "")
        query = environ.get("QUERY_STRING", "")
        if path.startswith("/_larder/"):
            arguments = dict(urllib.parse.parse_qsl(query))
            with faults_lock:
                if path == "/_larder/clear":
                    faults.clear()
                else:
                    faults.append({
                        "method": arguments.get("method", "PUT"), "contains": arguments.get("contains", ""),
                        "count": int(arguments.get("count", "1")), "action": arguments.get("action", "500"),
                    })
            start_response("204 No Content", [])
            return [b""]
        action = take_fault(method, path)
        if action == "delay":
            result = call_app(app, environ, start_response)
            with log_lock:
                log.write(f"{method} {path}{'?' + query if query else ''} delayed\n")
            time.sleep(0.5)
            return result
        if action is not None:
            length = int(environ.get("CONTENT_LENGTH") or 0)
            if length:
                environ["wsgi.input"].read(length)
            with log_lock:
                log.write(f"{method} {path}{'?' + query if query else ''} fault-{action}\n")
            if action == "drop":
                sock = environ.get("werkzeug.socket")
                if sock is not None:
                    sock.shutdown(socket.SHUT_RDWR)
                raise ConnectionAbortedError("dropped by the test")
            if action == "slowdown":
                body = b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>'
                start_response("503 Slow Down", [("Content-Type", "application/xml"), ("x-amz-request-id", "fault"), ("Content-Length", str(len(body)))])
                return [body]
            body = b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>'
            start_response("500 Internal Server Error", [("Content-Type", "application/xml"), ("x-amz-request-id", "fault"), ("Content-Length", str(len(body)))])
            return [body]
        status_holder = {}

        def recording_start_response(status, headers, exc_info=None):
            status_holder["status"] = status.split(" ", 1)[0]
            return start_response(status, headers, exc_info)

        result = call_app(app, environ, recording_start_response)
        with log_lock:
            log.write(f"{method} {path}{'?' + query if query else ''} {status_holder.get('status', '?')}\n")
        return result

    return handle


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("run")
    parser.add_argument("--bucket", action="append", default=[])
    parser.add_argument("--auth", action="store_true")
    arguments = parser.parse_args()
    os.makedirs(arguments.run, exist_ok=True)

    app = DomainDispatcherApplication(create_backend_app)
    server = make_server("127.0.0.1", 0, middleware(app, os.path.join(arguments.run, "requests.log")), threaded=True)
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()

    import boto3  # moto depends on it

    endpoint = f"http://127.0.0.1:{port}"
    session = boto3.session.Session(aws_access_key_id="setup", aws_secret_access_key="setup", region_name="us-east-1")
    s3 = session.client("s3", endpoint_url=endpoint)
    for bucket in arguments.bucket:
        s3.create_bucket(Bucket=bucket)
    if arguments.auth:
        iam = session.client("iam", endpoint_url=endpoint)
        iam.create_user(UserName="larder")
        iam.put_user_policy(
            UserName="larder", PolicyName="everything",
            PolicyDocument='{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}')
        key = iam.create_access_key(UserName="larder")["AccessKey"]
        with open(os.path.join(arguments.run, "credentials.tmp"), "w") as file:
            file.write(key["AccessKeyId"] + "\n" + key["SecretAccessKey"] + "\n")
        os.rename(os.path.join(arguments.run, "credentials.tmp"), os.path.join(arguments.run, "credentials"))
        # Temporary credentials too (an assumed role's, with a session token moto checks).
        iam.create_role(
            RoleName="larder-publisher",
            AssumeRolePolicyDocument='{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"AWS": "*"}, "Action": "sts:AssumeRole"}]}')
        iam.put_role_policy(
            RoleName="larder-publisher", PolicyName="everything",
            PolicyDocument='{"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}')
        sts = session.client("sts", endpoint_url=endpoint)
        role = sts.assume_role(RoleArn="arn:aws:iam::123456789012:role/larder-publisher", RoleSessionName="tests")["Credentials"]
        with open(os.path.join(arguments.run, "session.tmp"), "w") as file:
            file.write(role["AccessKeyId"] + "\n" + role["SecretAccessKey"] + "\n" + role["SessionToken"] + "\n")
        os.rename(os.path.join(arguments.run, "session.tmp"), os.path.join(arguments.run, "session"))
        settings.INITIAL_NO_AUTH_ACTION_COUNT = 0
        auth["enabled"] = True
    with open(os.path.join(arguments.run, "port.tmp"), "w") as file:
        file.write(f"{port}\n")
    os.rename(os.path.join(arguments.run, "port.tmp"), os.path.join(arguments.run, "port"))

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    sys.exit(0)


if __name__ == "__main__":
    main()
