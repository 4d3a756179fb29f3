package aggregate

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
