"""What the jupyter_client check scripts (widgets_check.py, knobs_check.py)
share: a started kernel and client, the checks list, and a cell's execution
read back as a front end reads it (the shell reply, then the IOPub messages
under it up to the idle status).
"""
import time

import jupyter_client


class Client:
    def __init__(self, kernel_name, timeout):
        self.km, self.kc = jupyter_client.manager.start_new_kernel(kernel_name=kernel_name, startup_timeout=120)
        self.timeout = timeout  # seconds a cell may take
        self.checks = []

    def check(self, name, ok, detail=""):
        self.checks.append([name, bool(ok), str(detail)[:2000]])

    def collect(self, msg_id, timeout=None):
        """The IOPub messages whose parent is msg_id, up to its idle status."""
        kc, out = self.kc, []
        deadline = time.time() + (timeout or self.timeout)
        while time.time() < deadline:
            try:
                m = kc.get_iopub_msg(timeout=max(0.1, deadline - time.time()))
            except Exception:
                break
            if m["parent_header"].get("msg_id") != msg_id:
                continue
            if m["msg_type"] == "status":
                if m["content"]["execution_state"] == "idle":
                    return out
                continue
            out.append(m)
        raise RuntimeError("no idle status for %s; got %s" % (msg_id, [x["msg_type"] for x in out]))

    def execute(self, code, reply_timeout):
        msg_id = self.kc.execute(code)
        reply = self.kc.get_shell_msg(timeout=reply_timeout)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = self.kc.get_shell_msg(timeout=reply_timeout)
        return reply["content"], self.collect(msg_id)
