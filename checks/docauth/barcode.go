package docauth

import (
	"context"
	"fmt"
	"strings"

	"github.com/makiuchi-d/gozxing"
	"github.com/makiuchi-d/gozxing/qrcode"
	"github.com/tambua/tambua/idv"
	"github.com/tambua/tambua/vision"
)

// Finding codes of the barcode layer.
const (
	CodeBarcodeUnreadable = "doc_barcode_unreadable"
	CodeBarcodeMismatch   = "doc_barcode_mismatch"
)

// barcode decodes the barcode the definition declares and looks for the
// printed values of the fields it encodes in its text. The text's own
// layout is the issuer's (ours is config|field=value, others differ), so
// values are searched for, not parsed by position: a date in any of the
// common orders, names and numbers as printed.
func barcode(ctx context.Context, in inputs) layerResult {
	lr := layerResult{name: layerBarcode}
	bd := in.def.Barcode
	if bd == nil {
		lr.skipped = "the document has no barcode"
		return lr
	}
	if bd.Kind != "qr" {
		// gozxing, the decoder we have, reads QR, Data Matrix, Aztec and
		// 1D codes but not PDF417.
		lr.skipped = "no decoder for " + bd.Kind + " barcodes"
		return lr
	}
	side := in.front
	if bd.Zone.Side == "back" {
		side = in.back
	}
	if side == nil {
		lr.skipped = "the " + bd.Zone.Side + " was not captured"
		return lr
	}
	if err := ctx.Err(); err != nil {
		lr.skipped = err.Error()
		return lr
	}
	crop := vision.Crop(side, grow(bd.Zone))
	bmp, err := gozxing.NewBinaryBitmapFromImage(crop)
	if err != nil {
		lr.skipped = "the barcode region could not be prepared: " + err.Error()
		return lr
	}
	hints := map[gozxing.DecodeHintType]any{gozxing.DecodeHintType_TRY_HARDER: true}
	res, err := qrcode.NewQRCodeReader().Decode(bmp, hints)
	if err != nil {
		// Blur and glare make genuine codes unreadable (a medium-level
		// Ghana voter card on seed 17): the layer did not run, which
		// weighs nothing either way; the other layers decide.
		lr.skipped = "the declared QR code did not decode (" + CodeBarcodeUnreadable + ")"
		return lr
	}
	text := res.GetText()
	compared, agreed := 0, 0
	var missing []string
	// A printed value the reader came by weakly is no evidence: it is not
	// looked for in the code.
	firm, weak := firmFields(in.readings, in.fields, bd.Fields)
	lr.unexamined = weak
	for _, name := range bd.Fields {
		v := firm[name]
		if v == "" {
			continue
		}
		if !containsValue(text, v) && letterField(in.def, name) && misreadWords(v, text) {
			lr.unexamined = append(lr.unexamined, fmt.Sprintf("%s read %q: the barcode's words misread, not other words", name, v))
			continue
		}
		compared++
		if containsValue(text, v) {
			agreed++
		} else {
			missing = append(missing, name)
		}
	}
	if compared == 0 {
		lr.skipped = "none of the fields the barcode encodes was read from the print"
		if len(weak) > 0 {
			lr.skipped = "could not examine: none of the fields the barcode encodes was read firmly from the print"
		}
		return lr
	}
	lr.score = float64(agreed) / float64(compared)
	if len(missing) > 0 {
		lr.score = 0
		lr.findings = append(lr.findings, finding{code: CodeBarcodeMismatch,
			note: fmt.Sprintf("printed %s not found in the barcode", strings.Join(missing, ", "))})
	}
	return lr
}

// containsValue: the printed value appears in the barcode text, a date
// (DD.MM.YYYY) also as YYYY-MM-DD, YYYYMMDD or DDMMYYYY.
func containsValue(text, v string) bool {
	text, v = strings.ToUpper(text), strings.ToUpper(v)
	if strings.Contains(text, v) {
		return true
	}
	if t, ok := dotDay(v); ok {
		for _, f := range []string{"2006-01-02", "20060102", "02012006", "02/01/2006"} {
			if strings.Contains(text, t.Format(f)) {
				return true
			}
		}
	}
	return false
}

// letterField: the definition prints the field in letters only (a name,
// not a code or a number): its charset holds no digit.
func letterField(d *idv.DocumentDefinition, name string) bool {
	for _, f := range d.Fields {
		if f.Name == name {
			return f.Type == "text" && f.Charset != "" && !strings.ContainsAny(f.Charset, "0123456789")
		}
	}
	return false
}

// misreadWords: every word of a printed value the barcode lacks is one of
// the barcode's words with letters misread as OCR misreads genuine print
// (nameWord: one letter in four or five, a third from six) or several run
// together, as cross_check judges a name against the MRZ. The code is
// decoded with its error correction, so its words are the issuer's;
// "KWESIT KWADWO" read for KWESI KWADWO sent a genuine medium
// ghana_voter_id of seed 6113 to review. A forger who changes a name by a
// letter is missed here, as by cross_check.
func misreadWords(v, text string) bool {
	split := func(s string) []string {
		return strings.FieldsFunc(strings.ToUpper(s), func(r rune) bool { return r < 'A' || r > 'Z' })
	}
	codeWords := split(text)
	words := split(v)
	if len(words) == 0 {
		return false
	}
	for _, w := range words {
		if !nameWord(w, codeWords) && !concatenation(w, codeWords) {
			return false
		}
	}
	return true
}
