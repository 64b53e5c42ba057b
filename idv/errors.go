package idv

import (
	"errors"
	"fmt"
)

// Error codes of the application error. The server maps each to an HTTP
// status and a v_field39 code; the CLI maps invalid input to exit status 2.
const (
	EInvalid     = "invalid"     // bad input from the caller
	ENotFound    = "not_found"   // unknown workflow, config, client...
	EUnavailable = "unavailable" // a check named by the workflow is not in this build
	ETooLarge    = "too_large"   // an input over a documented limit
	EInternal    = "internal"
)

// Error is the application error: a code callers branch on and a message
// for people.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return "idv: " + e.Message }

// Errorf returns an *Error with the given code.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err, EInvalid for validation errors and
// EInternal for anything else.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	var ve *ValidationError
	if errors.As(err, &ve) {
		return EInvalid
	}
	if err == nil {
		return ""
	}
	return EInternal
}
