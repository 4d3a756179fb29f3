package aggregate

import "fmt"

// CountQuery returns the query that counts the records of src in dialect
// d: "SELECT count(*) AS n FROM …". The embedded DuckDB runs it when the
// curator did not declare n for a records file: the row count is public,
// as on the in-memory path, where n is the number of rows read (every row
// is kept, none dropped).
func CountQuery(src Source, d Dialect) (string, error) {
	from, err := src.from(d)
	if err != nil {
		return "", err
	}
	return "SELECT count(*) AS n FROM " + from, nil
}

// HeadQuery returns the query that reads the first rows records of src
// in dialect d, every column as text: what a window shows of a source
// too large to read into memory (the curator's eyes only).
func HeadQuery(src Source, d Dialect, rows int) (string, error) {
	from, err := src.from(d)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("SELECT * FROM %s LIMIT %d", from, max(rows, 0)), nil
}
