package licenses

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/veclab/veclab/internal/checkout"
)

// TestUpToDate regenerates the list and requires the committed file to be
// byte-identical. It reads package-lock.json files, not node_modules, so
// it passes on a fresh clone without npm trees.
func TestUpToDate(t *testing.T) {
	root, err := checkout.Find()
	if err != nil {
		t.Fatal(err)
	}
	want, err := Render(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(root, FileName))
	if err != nil {
		t.Fatalf("%v: run go generate ./internal/licenses", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run go generate ./internal/licenses", FileName)
	}
	// The list is not vacuous: the module's best-known dependencies and
	// an npm tree are in it.
	for _, s := range []string{"| github.com/cosmos72/gomacro |", "| MPL-2.0 |", "| golang.org/x/sys |", "### lab/pglive/server/package-lock.json", "| @electric-sql/pglite |"} {
		if !bytes.Contains(want, []byte(s)) {
			t.Errorf("%s lacks %q", FileName, s)
		}
	}
	if lic, err := os.ReadFile(filepath.Join(root, "LICENSE")); err != nil || !bytes.Contains(lic, []byte("Apache License")) || !bytes.Contains(lic, []byte("END OF TERMS AND CONDITIONS")) {
		t.Errorf("LICENSE is not the full Apache-2.0 text: %v", err)
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"                                 Apache License\n                           Version 2.0, January 2004\n", "Apache-2.0"},
		{"Mozilla Public License Version 2.0\n==================================\n", "MPL-2.0"},
		{"The MIT License (MIT)\n\nPermission is hereby granted, free of charge, to any person obtaining a copy\nof this software", "MIT"},
		{"Copyright (c) 2009 The Go Authors.\n\nRedistribution and use in source and binary forms, with or without\nmodification, are permitted ... Neither the name of Google Inc. nor", "BSD-3-Clause"},
		{"Redistribution and use in source and binary forms, with or without modification, are permitted provided that", "BSD-2-Clause"},
		{"ISC License\n\nPermission to use, copy, modify, and/or distribute this software for any\npurpose with or without fee", "ISC"},
		{"This Font Software is licensed under the SIL Open Font License,\nVersion 1.1.", "OFL-1.1"},
		{"Creative Commons Attribution 4.0 International Public License", "CC-BY-4.0"},
		{"This is free and unencumbered software released into the public domain.", "Unlicense"},
	} {
		if got, err := Classify(tc.text); err != nil || got != tc.want {
			t.Errorf("Classify(%.40q) = %q, %v; want %q", tc.text, got, err, tc.want)
		}
	}
	for _, text := range []string{"", "All rights reserved. Do not copy.", "GNU GENERAL PUBLIC LICENSE Version 3"} {
		if got, err := Classify(text); !errors.Is(err, ErrUnknown) {
			t.Errorf("Classify(%q) = %q, %v; want ErrUnknown", text, got, err)
		}
	}
}

func TestParseLock(t *testing.T) {
	const lock = `{
  "name": "site", "lockfileVersion": 3,
  "packages": {
    "": {"name": "site", "license": "Apache-2.0"},
    "node_modules/b": {"version": "2.0.0", "license": "MIT", "dev": true},
    "node_modules/@scope/a": {"version": "1.0.0", "license": "(MIT OR Apache-2.0)"},
    "node_modules/c/node_modules/b": {"version": "2.0.0", "license": "MIT", "dev": true},
    "node_modules/d": {"version": "0.1.0"},
    "node_modules/e": {"version": "3.0.0", "license": {"type": "BSD-3-Clause"}},
    "packages/local": {"link": true}
  }
}`
	l, err := ParseLock("x/package-lock.json", []byte(lock))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range l.Packages {
		got = append(got, strings.Join([]string{p.Name, p.Version, p.License, map[bool]string{true: "dev"}[p.Dev]}, " "))
	}
	want := []string{"@scope/a 1.0.0 (MIT OR Apache-2.0) ", "b 2.0.0 MIT dev", "d 0.1.0 not recorded in the lock file ", "e 3.0.0 BSD-3-Clause "}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("packages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	for _, tc := range []struct{ name, lock, want string }{
		{"not JSON", `{"lockfileVersion": 3,`, "x/package-lock.json: unexpected end of JSON input"},
		{"version 1", `{"lockfileVersion": 1, "dependencies": {}}`, "lockfileVersion 1 has no"},
		{"bad licence field", `{"lockfileVersion": 3, "packages": {"node_modules/a": {"license": 7}}}`, "a: license field 7"},
	} {
		if _, err := ParseLock("x/package-lock.json", []byte(tc.lock)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestLicenceFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := licenceFiles(dir); !errors.Is(err, ErrUnknown) {
		t.Fatalf("a module without licence files: %v", err)
	}
	for name, text := range map[string]string{
		"LICENSE":     "Permission is hereby granted, free of charge, to any person obtaining a copy",
		"COPYING.txt": "Apache License Version 2.0",
		"README.md":   "not a licence",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fs, err := licenceFiles(dir)
	if err != nil || len(fs) != 2 || fs[0] != (File{"COPYING.txt", "Apache-2.0"}) || fs[1] != (File{"LICENSE", "MIT"}) {
		t.Fatalf("licenceFiles = %v, %v", fs, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "LICENSE-extra"), []byte("proprietary"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := licenceFiles(dir); !errors.Is(err, ErrUnknown) || !strings.Contains(err.Error(), "LICENSE-extra") {
		t.Fatalf("an unknown licence text: %v", err)
	}
}
