// Package yamlline puts the right line number on a YAML syntax error.
//
// go.yaml.in/yaml/v3 reports a parser error at the line where the enclosing
// collection began (its context mark), so a bad item on line 4 of a list that
// starts on line 1 is said to be on line 1. Parsing ever longer prefixes of
// the document finds the first line at which the same error appears.
package yamlline

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// maxLines bounds the quadratic search: past it the parser's line stands.
const maxLines = 2000

var syntaxError = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// Error is a YAML syntax error with the line where it was found.
type Error struct {
	Line    int
	Message string
}

func (e *Error) Error() string { return fmt.Sprintf("not valid YAML: line %d: %s", e.Line, e.Message) }

// Fix returns err with its line corrected when it is a syntax error of data,
// as an *Error; any other error comes back unchanged.
func Fix(data []byte, err error) error {
	m := syntaxError.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	line, _ := strconv.Atoi(m[1])
	message := m[2]
	if at := firstFailingLine(data, message); at > 0 {
		line = at
	}
	return &Error{Line: line, Message: message}
}

// firstFailingLine is the smallest n such that the first n lines of data
// fail to parse with message; 0 when none does within maxLines.
func firstFailingLine(data []byte, message string) int {
	end := 0
	for n := 1; n <= maxLines && end < len(data); n++ {
		next := bytes.IndexByte(data[end:], '\n')
		if next < 0 {
			end = len(data)
		} else {
			end += next + 1
		}
		if err := parseAll(data[:end]); err != nil {
			if m := syntaxError.FindStringSubmatch(err.Error()); m != nil && m[2] == message {
				return n
			}
		}
	}
	return 0
}

func parseAll(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
