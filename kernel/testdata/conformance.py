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
