package notebook

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
)

// nbformat 4.5 made every cell carry an "id" (nbformat's
// v4/nbformat.v4.5.schema.json: ^[a-zA-Z0-9-_]+$, 1 to 64 characters,
// unique in the notebook). Validators that read strictly (nbformat's
// validate, JupyterLab on load) warn on or rewrite a 4.5 notebook whose
// cells lack one, so every notebook this package writes has them.
var cellIDPattern = regexp.MustCompile(`^[a-zA-Z0-9-_]{1,64}$`)

// ensureCellIDs gives every cell of cells that has no valid id, or one
// an earlier cell already took, an id, and leaves the others alone, so a
// notebook's ids survive every run: a re-run changes outputs, never ids.
// A new id is the first 8 hex digits of the SHA-256 of the cell's type and
// source (deterministic: the same notebook gets the same ids on every
// machine; sha256sum agrees), with -2, -3, … after it when two cells would collide.
func ensureCellIDs(cells []any) error {
	taken := make(map[string]bool, len(cells))
	var missing []int
	for i, c := range cells {
		cell, ok := c.(map[string]any)
		if !ok {
			return fmt.Errorf("notebook: cell %d is not an object", i)
		}
		id, _ := cell["id"].(string)
		if !cellIDPattern.MatchString(id) || taken[id] {
			missing = append(missing, i)
			continue
		}
		taken[id] = true
	}
	for _, i := range missing {
		cell := cells[i].(map[string]any)
		src, err := source(cell["source"])
		if err != nil {
			return fmt.Errorf("notebook: cell %d: %w", i, err)
		}
		typ, _ := cell["cell_type"].(string)
		sum := sha256.Sum256([]byte(typ + "\x00" + src))
		base := hex.EncodeToString(sum[:4])
		id := base
		for n := 2; taken[id]; n++ {
			id = base + "-" + strconv.Itoa(n)
		}
		taken[id] = true
		cell["id"] = id
	}
	return nil
}

// setMinor4_5 marks doc as nbformat 4.5 (the first minor with cell ids)
// when it says less.
func setMinor4_5(doc map[string]any) {
	if v, _ := doc["nbformat_minor"].(float64); v < 5 {
		doc["nbformat_minor"] = 5
	}
}
