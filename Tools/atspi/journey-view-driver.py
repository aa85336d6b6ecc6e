#!/usr/bin/python3
"""Drives `larder journey present --window` through the accessibility tree, as a screen reader
user would: run under `dbus-run-session` (a session bus of its own, on which the first to ask
for the accessibility bus, this driver or the command's GTK, has D-Bus start it:
at-spi-bus-launcher, with the registry), it starts the command given after `--`, and then:

  1. waits for the window's error state: a push button named "Try again" (reports the tree);
  2. presses it through its accessible action ("click");
  3. waits for the loading state: a progress bar named "Loading" (reports the tree);
  4. waits for the flow: neither of them left (reports the tree);
  5. sends the command SIGTERM (the window closes, the presentation ends) and reports its exit.

Each report is one JSON line appended to the --events file, as it happens, so the test can act
between steps (the origin held in step 3 answers once the loading state was seen). Every wait
is bounded (--timeout seconds); a wait that runs out reports {"error": ...}, kills the command
and exits 1.

Needs Debian's at-spi2-core and python3-pyatspi (Tools/setup.sh installs them).
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import time

import pyatspi


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", required=True, help="the file JSON lines are appended to")
    parser.add_argument("--stdout", required=True, help="where the command's standard output goes")
    parser.add_argument("--stderr", required=True, help="where the command's standard error goes")
    parser.add_argument("--timeout", type=float, default=60.0, help="the longest each wait may take, in seconds")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    arguments = parser.parse_args()
    command = arguments.command[1:] if arguments.command[:1] == ["--"] else arguments.command
    events = open(arguments.events, "a", buffering=1)

    def report(**fields):
        events.write(json.dumps(fields) + "\n")

    with open(arguments.stdout, "wb") as out, open(arguments.stderr, "wb") as err:
        larder = subprocess.Popen(command, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
    try:
        steps(larder, report, arguments.timeout)
    except Failure as failure:
        report(error=str(failure))
        larder.kill()
        larder.wait()
        return 1
    return 0


class Failure(Exception):
    pass


def steps(larder, report, timeout):
    def until(what, condition):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if larder.poll() is not None:
                raise Failure(f"the command exited with {larder.returncode} while waiting for {what}")
            found = condition()
            if found:
                return found
            time.sleep(0.1)
        raise Failure(f"no {what} within {timeout} s; the tree: {tree_text(application(larder.pid))}")

    app = until("application on the accessibility bus", lambda: application(larder.pid))
    retry = until("'Try again' button", lambda: find(app, "push button", "Try again"))
    report(state="error", tree=tree_text(app), nodes=nodes(app))
    retry.queryAction().doAction(0)
    report(step="pressed", action=retry.queryAction().getName(0))
    until("loading indicator", lambda: find(app, "progress bar", "Loading"))
    report(state="loading", tree=tree_text(app), nodes=nodes(app))
    until("flow", lambda: not find(app, "progress bar", "Loading") and not find(app, "push button", "Try again")
          and find(app, "frame", None))
    report(state="ready", tree=tree_text(app), nodes=nodes(app))
    larder.send_signal(signal.SIGTERM)
    try:
        status = larder.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failure(f"the command did not exit within {timeout} s of SIGTERM")
    report(exit=status)


def application(pid):
    """The accessible application of process `pid`, or None."""
    desktop = pyatspi.Registry.getDesktop(0)
    for index in range(desktop.childCount):
        app = desktop.getChildAtIndex(index)
        try:
            if app is not None and app.get_process_id() == pid:
                return app
        except Exception:
            continue
    return None


def walk(node, depth=0):
    """Every showing node under `node` (itself included) with its depth."""
    if node is None:
        return
    try:
        states = node.getState()
        if depth > 0 and not states.contains(pyatspi.STATE_SHOWING):
            return
        yield node, depth
        for index in range(node.childCount):
            yield from walk(node.getChildAtIndex(index), depth + 1)
    except Exception:
        return


def find(app, role, name):
    for node, _ in walk(app):
        try:
            if node.getRoleName() == role and (name is None or node.name == name):
                return node
        except Exception:
            continue
    return None


def nodes(app):
    return [[node.getRoleName(), node.name, node.description, depth] for node, depth in walk(app)]


def tree_text(app):
    if app is None:
        return "(no application)"
    lines = []
    for node, depth in walk(app):
        text = f"{'  ' * depth}[{node.getRoleName()}] {node.name!r}"
        if node.description:
            text += f" ({node.description})"
        lines.append(text)
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
