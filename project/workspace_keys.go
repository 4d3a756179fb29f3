package project

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// checkWorkspaceKeys walks the JSON text of a project file and rejects what
// encoding/json would silently accept: a key that occurs twice in one
// object (the decoder keeps the last), and a key that matches a field only
// when case is ignored (the decoder folds case). The project file is
// edited by hand now and then; both would make the file mean something
// other than what the curator reads in it. Unknown keys are left to the
// decoder (DisallowUnknownFields). It returns a *WorkspaceError naming the
// line, column and key, or nil; syntax errors are left to the decoder.
func checkWorkspaceKeys(data []byte, name string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	w := keyWalker{dec: dec, data: data, name: name}
	err := w.value(reflect.TypeFor[Workspace](), "")
	if _, ok := err.(*WorkspaceError); ok {
		return err
	}
	return nil // malformed JSON: the decoder reports it with its own position
}

type keyWalker struct {
	dec  *json.Decoder
	data []byte
	name string
}

var jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// value consumes one JSON value whose Go destination has type t (nil when
// unknown or custom-decoded: then only duplicate keys are checked).
func (w *keyWalker) value(t reflect.Type, path string) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && reflect.PointerTo(t).Implements(jsonUnmarshalerType) {
		t = nil
	}
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '[':
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i := 0; w.dec.More(); i++ {
			if err := w.value(elem, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err = w.dec.Token() // ']'
		return err
	case '{':
		return w.object(t, path)
	}
	return nil
}

func (w *keyWalker) object(t reflect.Type, path string) error {
	var fields map[string]reflect.Type // exact JSON name → field type
	var elem reflect.Type
	if t != nil {
		switch t.Kind() {
		case reflect.Struct:
			fields = jsonFields(t)
		case reflect.Map:
			elem = t.Elem()
		}
	}
	seen := map[string]bool{}
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		full := key
		if path != "" {
			full = path + "." + key
		}
		if seen[key] {
			return w.errorAt(full, fmt.Sprintf("key %q appears twice in one object; a JSON reader would silently keep only the last value", key))
		}
		seen[key] = true
		ft := elem
		if fields != nil {
			var ok bool
			if ft, ok = fields[key]; !ok {
				for name := range fields {
					if strings.EqualFold(name, key) {
						return w.errorAt(full, fmt.Sprintf("key %q must be spelled %q (keys are case-sensitive)", key, name))
					}
				}
			}
		}
		if err := w.value(ft, full); err != nil {
			return err
		}
	}
	_, err := w.dec.Token() // '}'
	return err
}

// errorAt returns a *WorkspaceError at the decoder's current offset (just
// after the offending key).
func (w *keyWalker) errorAt(field, rule string) error {
	off := w.dec.InputOffset()
	// Point at the start of the key rather than after it.
	if i := bytes.LastIndexByte(w.data[:off], '"'); i > 0 {
		if j := bytes.LastIndexByte(w.data[:i], '"'); j >= 0 {
			off = int64(j)
		}
	}
	line, col := lineCol(w.data, off)
	return &WorkspaceError{File: w.name, Line: line, Column: col, Field: field, Rule: rule}
}

// jsonFields maps the JSON names of t's exported fields to their types, as
// encoding/json names them (tag name, else the Go name).
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}
