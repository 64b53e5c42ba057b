package webhook

import (
	"encoding/csv"
	"io"
	"strconv"
	"strings"
)

// CSVHeader is the first row of an exported log.
var CSVHeader = []string{"timestamp", "event_type", "status", "response_code", "response_time_ms", "error_message", "attempt", "event_id", "delivery_id"}

// WriteCSV exports log entries as CSV (RFC 4180), one row per attempt.
// Cells that a spreadsheet would run as a formula are prefixed with a
// quote.
func WriteCSV(w io.Writer, entries []LogEntry) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CSVHeader); err != nil {
		return err
	}
	for _, e := range entries {
		code := ""
		if e.ResponseCode != 0 {
			code = strconv.Itoa(e.ResponseCode)
		}
		row := []string{e.Timestamp.UTC().Format(TimestampLayout), SafeCell(e.Event), SafeCell(e.Status), code,
			strconv.FormatInt(e.ResponseTimeMS, 10), SafeCell(e.Error), strconv.Itoa(e.Attempt), SafeCell(e.EventID), SafeCell(e.DeliveryID)}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// SafeCell prefixes a text cell that starts like a formula (OWASP's list:
// = + - @, tab and carriage return) with a quote. Every text cell goes
// through it: event names and ids come from stored rows, which a bug or
// a hostile database row must not turn into a formula either.
func SafeCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
