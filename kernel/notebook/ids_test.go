package notebook

import (
	"encoding/json"
	"testing"
)

func TestCellIDs(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []string
	}{
		{"kept", `[{"cell_type":"code","id":"a-1","source":"x"},{"cell_type":"markdown","id":"b_2","source":"y"}]`, []string{"a-1", "b_2"}},
		{"made from the source", `[{"cell_type":"code","source":"x"}]`, []string{"c06806b8"}},
		{"the same source twice", `[{"cell_type":"code","source":"x"},{"cell_type":"code","source":["x"]}]`, []string{"c06806b8", "c06806b8-2"}},
		{"type counts", `[{"cell_type":"markdown","source":"x"}]`, []string{"c4f683aa"}},
		{"a duplicate id replaced, the first kept", `[{"cell_type":"code","id":"same","source":"x"},{"cell_type":"code","id":"same","source":"y"}]`, []string{"same", "494081e7"}},
		{"an invalid id replaced", `[{"cell_type":"code","id":"has space","source":"x"},{"cell_type":"code","id":"","source":"y"}]`, []string{"c06806b8", "494081e7"}},
		{"a made id never takes a kept one", `[{"cell_type":"code","source":"x"},{"cell_type":"code","id":"c06806b8","source":"z"}]`, []string{"c06806b8-2", "c06806b8"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cells []any
			if err := json.Unmarshal([]byte(tc.in), &cells); err != nil {
				t.Fatal(err)
			}
			if err := ensureCellIDs(cells); err != nil {
				t.Fatal(err)
			}
			for i, c := range cells {
				if got := c.(map[string]any)["id"]; got != tc.want[i] {
					t.Errorf("cell %d: id %v, want %s", i, got, tc.want[i])
				}
			}
		})
	}
}

// TestRunKeepsIDs: a notebook without ids gets them on its first run and
// keeps them on the next, with nbformat_minor 5.
func TestRunKeepsIDs(t *testing.T) {
	s := session(t)
	in := []byte(`{"nbformat":4,"nbformat_minor":4,"metadata":{},"cells":[{"cell_type":"markdown","metadata":{},"source":"# hi"},{"cell_type":"code","metadata":{},"outputs":[],"source":"1+1"}]}`)
	once, err := Run(in, s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	twice, err := Run(once, s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, out := range [][]byte{once, twice} {
		var doc struct {
			Minor int `json:"nbformat_minor"`
			Cells []struct {
				ID string `json:"id"`
			} `json:"cells"`
		}
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Minor != 5 || len(doc.Cells) != 2 || doc.Cells[0].ID == "" || doc.Cells[1].ID == "" || doc.Cells[0].ID == doc.Cells[1].ID {
			t.Fatalf("minor %d, cells %+v: want 4.5 with two distinct ids", doc.Minor, doc.Cells)
		}
	}
	n1, err := Normalize(once)
	if err != nil {
		t.Fatal(err)
	}
	if string(n1) != string(once) {
		t.Errorf("Normalize changed a notebook Run wrote")
	}
}
