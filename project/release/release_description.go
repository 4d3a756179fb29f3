package release

import (
	"errors"

	"github.com/bernsteinrelease/bernstein/project/synopsis"
)

// checkDescription validates the curator's public title and note with the
// synopsis rules (synopsis.CheckText: valid UTF-8, at most maxTitleRunes and
// maxNoteRunes characters, no control characters; the note may hold line
// breaks and tabs). It runs where they enter, in Prepare, and reports a
// *RequestError: a bad title is a mistake in the request (the CLI's exit
// code 2), not a malformed synopsis (exit code 3, verification failed).
func checkDescription(title, note string) error {
	if err := synopsis.CheckText("title", title, synopsis.MaxTitleRunes, false); err != nil {
		return asRequestError(err)
	}
	if err := synopsis.CheckText("note", note, synopsis.MaxNoteRunes, true); err != nil {
		return asRequestError(err)
	}
	return nil
}

// asRequestError turns a synopsis *FormatError about a request field into
// a *RequestError naming the same field and rule.
func asRequestError(err error) error {
	var fe *synopsis.FormatError
	if errors.As(err, &fe) {
		return reqErr(fe.Field, "%s", fe.Rule)
	}
	return err
}
