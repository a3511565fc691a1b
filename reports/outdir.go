package reports

import (
	"errors"
	"fmt"
	"os"
)

// checkPrefix names CheckOutDir's probe file (removed by WriteAll should a
// run be killed between its creation and removal).
const checkPrefix = ".mcpconform-write-check-"

// CheckOutDir makes sure reports can be written to dir before a run starts,
// so that an unwritable -o costs nothing and cannot hide a verdict: it
// creates dir (and its parents) when missing, then creates and removes a
// file in it. The error is one line naming dir and the cause.
func CheckOutDir(dir string) error {
	if dir == "" {
		return errors.New("the report directory is empty")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create the report directory %s: %w", dir, cause(dir, err))
	}
	f, err := os.CreateTemp(dir, checkPrefix+"*")
	if err != nil {
		return fmt.Errorf("cannot write to the report directory %s: %w", dir, cause(dir, err))
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("cannot remove a file from the report directory %s: %w", dir, cause(dir, err))
	}
	return nil
}

// cause drops the operation and path of a *PathError about dir itself (the
// message names dir already): "permission denied"; an error about another
// path (a parent that is a regular file) keeps it.
func cause(dir string, err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) && pe.Path == dir {
		return pe.Err
	}
	return err
}
