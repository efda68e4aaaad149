"""The Jupyter project's kernel conformance suite (jupyter_kernel_test,
Debian's python3-jupyter-kernel-test) against the veclab kernel.

Every test of the suite is given Go code, so none skips for want of a
sample. Prints one JSON object: the tally and each failure, error and skip.
Run by kernel/conformance_test.go (TestConformance) with the kernelspec
installed in a temporary prefix.
"""
import json
import sys
import unittest

import jupyter_kernel_test as jkt
from jupyter_kernel_test.msgspec_v5 import validate_message

TIMEOUT = 30

DISPLAY = 'import "github.com/veclab/veclab/kernel/display"\n'


class VeclabKernelTests(jkt.KernelTests):
    kernel_name = sys.argv[1] if len(sys.argv) > 1 else "veclab"
    language_name = "go"
    file_extension = ".go"

    code_hello_world = 'fmt.Println("hello, world")'
    code_stderr = 'import "os"\nfmt.Fprintln(os.Stderr, "to stderr")'
    completion_samples = [
        {"text": "fmt.Sprin", "matches": {"Sprint", "Sprintf", "Sprintln"}},
        {"text": "fmt.Errorf"},
    ]
    complete_code_samples = ["x := 1", "fmt.Println(1)", "func f() int { return 1 }"]
    incomplete_code_samples = ["for {", "func f() {", "x := []int{1,"]
    invalid_code_samples = [")", "}}"]
    code_page_something = "fmt.Println?"
    code_generate_error = 'panic("boom")'
    code_execute_result = [
        {"code": "6*7", "result": "42"},
        {"code": '"go" + "pher"', "result": "gopher"},
    ]
    code_display_data = [
        {"code": DISPLAY + 'display.HTML("<b>hi</b>")', "mime": "text/html"},
        {"code": DISPLAY + 'display.Markdown("*hi*")', "mime": "text/markdown"},
    ]
    code_history_pattern = "6*7"
    supported_history_operations = ("tail", "range", "search")
    code_inspect_sample = "fmt.Println"
    code_clear_output = DISPLAY + 'fmt.Println("soon gone")\ndisplay.ClearOutput(false)'


    # veclab's own cases, in jupyter_kernel_test's manner: magics, standard
    # input, the optional features of kernel_info.

    def stdout_of(self, msgs):
        return "".join(m["content"]["text"] for m in msgs
                       if m["msg_type"] == "stream" and m["content"]["name"] == "stdout")

    def test_veclab_magic_timeit(self):
        self.flush_channels()
        reply, msgs = self.execute_helper(code="%timeit -n 20 -r 3 6*7")
        self.assertEqual(reply["content"]["status"], "ok")
        self.assertRegex(self.stdout_of(msgs),
                         r"^[0-9.]+ [nµm]?s ± [0-9.]+ [nµm]?s per loop \(mean ± std\. dev\. of 3 runs, 20 loops each\)\n$")

    def test_veclab_magic_time(self):
        self.flush_channels()
        reply, msgs = self.execute_helper(code="%time 6*7")
        self.assertEqual(reply["content"]["status"], "ok")
        self.assertRegex(self.stdout_of(msgs),
                         r"^CPU times: user [0-9.]+ [nµm]?s, sys: [0-9.]+ [nµm]?s, total: [0-9.]+ [nµm]?s\nWall time: [0-9.]+ [nµm]?s\n$")
        results = [m for m in msgs if m["msg_type"] == "execute_result"]
        self.assertEqual(len(results), 1)
        self.assertEqual(results[0]["content"]["data"]["text/plain"], "42")

    def test_veclab_magic_whos(self):
        self.flush_channels()
        self.execute_helper(code="magicVar := 7")
        reply, msgs = self.execute_helper(code="%whos int")
        self.assertEqual(reply["content"]["status"], "ok")
        self.assertRegex(self.stdout_of(msgs), r"(?m)^Variable +Type +Data/Info\n-+\n(.*\n)*magicVar +int +7\n")

    def test_veclab_magic_lsmagic(self):
        self.flush_channels()
        reply, msgs = self.execute_helper(code="%lsmagic")
        self.assertEqual(reply["content"]["status"], "ok")
        self.assertIn("Available line magics:\n%env  %lsmagic  %time  %timeit  %who  %whos\n", self.stdout_of(msgs))

    def test_veclab_magic_unknown(self):
        self.flush_channels()
        reply, msgs = self.execute_helper(code="%nope 1")
        self.assertEqual(reply["content"]["status"], "error")
        self.assertEqual(reply["content"]["ename"], "UsageError")
        self.assertIn("Line magic function `%nope` not found", reply["content"]["evalue"])
        errors = [m for m in msgs if m["msg_type"] == "error"]
        self.assertEqual(len(errors), 1)

    def test_veclab_magic_is_complete(self):
        for code, status in (("%timeit f()", "complete"), ("%%timeit", "incomplete"), ("%%time\nfor {", "incomplete")):
            self.flush_channels()
            msg_id = self.kc.is_complete(code)
            reply = self.get_non_kernel_info_reply(timeout=TIMEOUT)
            validate_message(reply, "is_complete_reply", msg_id)
            self.assertEqual(reply["content"]["status"], status, code)

    def test_veclab_input_request(self):
        # A cell reading os.Stdin is answered through input_request on the
        # stdin channel (messaging spec: prompt a string, password a boolean;
        # jupyter_kernel_test 0.4.5's schema types password as a number,
        # which no kernel's boolean passes, so the content is checked here).
        self.flush_channels()
        msg_id = self.kc.execute('var name string\nfmt.Scanln(&name)\n"hello " + name', allow_stdin=True)
        req = self.kc.get_stdin_msg(timeout=TIMEOUT)
        self.assertEqual(req["msg_type"], "input_request")
        self.assertEqual(req["parent_header"]["msg_id"], msg_id)
        self.assertIsInstance(req["content"]["prompt"], str)
        self.assertIs(req["content"]["password"], False)
        self.kc.input("Ada")
        reply = self.get_non_kernel_info_reply(timeout=TIMEOUT)
        validate_message(reply, "execute_reply", msg_id)
        self.assertEqual(reply["content"]["status"], "ok")
        while True:
            msg = self.kc.get_iopub_msg(timeout=TIMEOUT)
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "execute_result":
                self.assertEqual(msg["content"]["data"]["text/plain"], "hello Ada")
                break

    def test_veclab_stdin_not_allowed(self):
        # allow_stdin false: the read sees end of input, no input_request.
        self.flush_channels()
        msg_id = self.kc.execute('var got string\n_, err := fmt.Scanln(&got)\nerr != nil', allow_stdin=False)
        reply = self.get_non_kernel_info_reply(timeout=TIMEOUT)
        validate_message(reply, "execute_reply", msg_id)
        self.assertEqual(reply["content"]["status"], "ok")
        while True:
            msg = self.kc.get_iopub_msg(timeout=TIMEOUT)
            if msg["parent_header"].get("msg_id") == msg_id and msg["msg_type"] == "execute_result":
                self.assertEqual(msg["content"]["data"]["text/plain"], "true")
                break
        with self.assertRaises(Exception):  # queue.Empty: nothing was asked
            self.kc.get_stdin_msg(timeout=0.5)

    def test_veclab_supported_features(self):
        # JEP 92: the optional features the kernel supports, and the older
        # debugger flag saying the same.
        self.flush_channels()
        msg_id = self.kc.kernel_info()
        reply = self.kc.get_shell_msg(timeout=TIMEOUT)
        validate_message(reply, "kernel_info_reply", msg_id)
        feats = reply["content"]["supported_features"]
        self.assertIsInstance(feats, list)
        self.assertEqual("debugger" in feats, reply["content"]["debugger"])

    def debug(self, command, arguments=None, seq=[0]):
        # One debug_request on the control channel, as JupyterLab's
        # debugger sends it; its debug_reply (validated as a reply to it).
        seq[0] += 1
        msg = self.kc.session.msg("debug_request", {
            "seq": seq[0], "type": "request", "command": command, "arguments": arguments or {}})
        self.kc.control_channel.send(msg)
        reply = self.kc.get_control_msg(timeout=TIMEOUT)
        self.assertEqual(reply["msg_type"], "debug_reply")
        self.assertEqual(reply["parent_header"]["msg_id"], msg["header"]["msg_id"])
        c = reply["content"]
        self.assertEqual((c["type"], c["command"], c["request_seq"]), ("response", command, seq[0]))
        return c

    def test_veclab_debug_variables(self):
        # The debug requests of JupyterLab's variables panel: initialize
        # (then the initialized event on IOPub), attach, debugInfo saying
        # no breakpoints, inspectVariables listing a cell's variable with
        # its Go type and value, richInspectVariables as a MIME bundle,
        # setBreakpoints answered unverified, disconnect.
        self.flush_channels()
        self.execute_helper(code="ef := 80")
        c = self.debug("initialize", {"clientID": "jkt", "adapterID": "go"})
        self.assertTrue(c["success"])
        while True:
            msg = self.kc.get_iopub_msg(timeout=TIMEOUT)
            if msg["msg_type"] == "debug_event":
                self.assertEqual(msg["content"]["event"], "initialized")
                break
        self.assertTrue(self.debug("attach")["success"])
        info = self.debug("debugInfo")["body"]
        self.assertTrue(info["isStarted"])
        self.assertEqual((info["breakpoints"], info["breakpointsSupported"]), ([], False))
        vs = {v["name"]: v for v in self.debug("inspectVariables")["body"]["variables"]}
        self.assertEqual((vs["ef"]["type"], vs["ef"]["value"]), ("int", "80"))
        rich = self.debug("richInspectVariables", {"variableName": "ef"})
        self.assertEqual(rich["body"]["data"]["text/plain"], "80")
        bps = self.debug("setBreakpoints", {"source": {"path": "cell.go"}, "breakpoints": [{"line": 1}]})
        self.assertIs(bps["body"]["breakpoints"][0]["verified"], False)
        self.assertTrue(self.debug("disconnect", {"restart": False, "terminateDebuggee": True})["success"])
        self.assertFalse(self.debug("debugInfo")["body"]["isStarted"])


class Result(unittest.TextTestResult):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.ok = []

    def addSuccess(self, test):
        super().addSuccess(test)
        self.ok.append(test.id())


def main():
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(VeclabKernelTests)
    runner = unittest.TextTestRunner(stream=sys.stderr, verbosity=2, resultclass=Result)
    res = runner.run(suite)
    short = lambda t: t.id().rsplit(".", 1)[-1]
    out = {
        "run": res.testsRun,
        "passed": sorted(i.rsplit(".", 1)[-1] for i in res.ok),
        "failures": [[str(t), tb] for t, tb in res.failures],
        "errors": [[str(t), tb] for t, tb in res.errors],
        "skipped": [[short(t), why] for t, why in res.skipped],
    }
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
