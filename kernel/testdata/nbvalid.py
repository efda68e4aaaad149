"""Validate notebooks as Jupyter's own tools do, strictly.

Started by kernel/nbformat_test.go (TestNotebooksValid) with the schema
directory of the ipywidgets project's @jupyter-widgets/schema (npm) and the
notebook paths. For each notebook: nbformat's validator (Debian's
python3-nbformat) against the schema of the notebook's own nbformat
version, without repairs (a 4.5 notebook whose cells lack an "id" fails);
the saved widget state (metadata.widgets, application/vnd.jupyter.
widget-state+json) against the schema's v2/state.schema.json, and every
widget view output (application/vnd.jupyter.widget-view+json) against
v2/view.schema.json, with jsonschema. Prints one JSON object:
{"notebooks": [{"path", "minor", "cells", "errors": [...], "widgets", "views"}]}.
"""
import json
import os
import sys
import warnings

import jsonschema
from nbformat import validator

schema_dir = sys.argv[1]
with open(os.path.join(schema_dir, "v2", "state.schema.json")) as f:
    state_schema = json.load(f)
with open(os.path.join(schema_dir, "v2", "view.schema.json")) as f:
    view_schema = json.load(f)

report = []
for path in sys.argv[2:]:
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    errors = []
    # nbformat warns (MissingIDFieldWarning) and repairs on read; validate
    # the dict as written, with warnings as errors, so nothing is repaired.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            validator.validate(nb, version=nb.get("nbformat"), version_minor=nb.get("nbformat_minor"))
        except Exception as e:  # ValidationError or a warning turned error
            errors.append("nbformat: %s" % str(e).splitlines()[0])
    widgets = 0
    state = nb.get("metadata", {}).get("widgets", {}).get("application/vnd.jupyter.widget-state+json")
    if state is not None:
        try:
            jsonschema.validate(state, state_schema)
        except jsonschema.ValidationError as e:
            errors.append("widget state: %s at %s" % (e.message, "/".join(map(str, e.absolute_path))))
        widgets = len(state.get("state", {}))
    views = 0
    for i, cell in enumerate(nb.get("cells", [])):
        for out in cell.get("outputs", []) or []:
            view = out.get("data", {}).get("application/vnd.jupyter.widget-view+json")
            if view is None:
                continue
            views += 1
            try:
                jsonschema.validate(view, view_schema)
            except jsonschema.ValidationError as e:
                errors.append("cell %d: widget view: %s" % (i, e.message))
            if state is not None and view.get("model_id") not in state.get("state", {}):
                errors.append("cell %d: widget view of model %s, which the saved state lacks" % (i, view.get("model_id")))
    report.append({"path": path, "minor": nb.get("nbformat_minor"), "cells": len(nb.get("cells", [])),
                   "errors": errors, "widgets": widgets, "views": views})
json.dump({"notebooks": report}, sys.stdout)
