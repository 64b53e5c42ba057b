package htmlcards

import (
	"fmt"
	"html"
	"strconv"
	"strings"
)

// pxPerMM is the resolution of the flat documents (an ID-1 card is
// 1027x648 px).
const pxPerMM = 12.0

func px(mm float64) string { return strconv.FormatFloat(mm*pxPerMM, 'f', 1, 64) + "px" }

// blk is one absolutely placed box of a side, in mm from the top left.
// What fills it depends on kind.
type blk struct {
	x, y, w, h float64
	kind       string // fields, text, photo, ghost, sig, mrz, barcode, emblem, chip, flag, print, holo, stamp
	// fields: rows of field names, a row's fields side by side; a name
	// may end in ":N" to take N shares of the row's width, and start
	// with "x:" for a value the definition does not name (extra).
	rows [][]string
	mode string // fields: below (caption over value), right (caption then value on one line), table
	// text: the lines, and a class for each (title, country, small...);
	// a table: a class of its own ("two": two pairs a row)
	lines []string
	cls   string
	align string // left, center, right
	// gap is the vertical gap between rows (mm); 0 spreads them evenly.
	gap float64
}

// sideDoc is one side: its size and boxes.
type sideDoc struct {
	wmm, hmm float64
	blocks   []blk
}

// pageInput is everything a side's HTML is made from.
type pageInput struct {
	side    sideDoc
	look    *look
	h       *holder
	labels  map[string]string // caption printed per field (and extra)
	photo   string            // data URI of the portrait
	sig     string            // SVG of the signature
	barcode string            // data URI
	bg      string            // CSS background of the card
	overlay string            // SVG drawn over the background, under the print
}

// fieldName splits "name:2" into the name and its share.
func fieldName(s string) (string, float64) {
	name, share, ok := strings.Cut(s, ":")
	if !ok || name == "x" {
		if strings.HasPrefix(s, "x:") {
			n, sh, ok2 := strings.Cut(strings.TrimPrefix(s, "x:"), ":")
			if ok2 {
				f, _ := strconv.ParseFloat(sh, 64)
				return "x:" + n, f
			}
			return s, 1
		}
		return s, 1
	}
	f, err := strconv.ParseFloat(share, 64)
	if err != nil || f <= 0 {
		f = 1
	}
	return name, f
}

// pageHTML writes one side as a standalone HTML page.
func pageHTML(in pageInput) string {
	lk := in.look
	W, H := in.side.wmm*pxPerMM, in.side.hmm*pxPerMM
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><meta charset=\"utf-8\"><style>\n")
	fmt.Fprintf(&b, `html,body{margin:0;padding:0;background:#fff;overflow:hidden}
#card{position:relative;width:%.0fpx;height:%.0fpx;overflow:hidden;background:%s;-webkit-font-smoothing:antialiased}
#art{position:absolute;left:0;top:0;width:100%%;height:100%%}
.b{position:absolute;box-sizing:border-box}
.fields{display:flex;flex-direction:column;justify-content:%s}
.row{display:flex;align-items:flex-start;column-gap:%.1fpx}
.f{display:flex;flex-direction:column;align-items:flex-start;min-width:0;flex-basis:0}
.f .vw{align-self:stretch}
.f.r{flex-direction:row;align-items:baseline;column-gap:%.1fpx}
.f.r .vw{flex:1 1 0}
.vw{min-width:0;overflow:visible;white-space:nowrap}
.c{font-family:%s;font-weight:%d;font-size:%.1fpx;color:%s;letter-spacing:%.3fem;white-space:nowrap;line-height:1.15;%s}
.v{display:inline-block;font-family:%s;font-weight:%d;font-size:%.1fpx;color:%s;white-space:nowrap;line-height:1.12;letter-spacing:%.3fem;transform-origin:0 50%%}
.tbl .c{white-space:normal;max-width:%.0fpx;line-height:1.05}
.tbl{display:grid;align-content:%s;column-gap:%.1fpx;row-gap:%.1fpx;align-items:baseline}
.t{white-space:nowrap;line-height:1.1}
.tx{display:inline-block}
.title{font-family:%s;font-weight:800;color:%s;letter-spacing:.04em}
.country{font-family:%s;font-weight:700;color:%s;letter-spacing:.06em}
.small{font-family:%s;font-weight:400;color:%s}
.mrz{font-family:"OCR B";color:#111;white-space:pre;display:flex;flex-direction:column;justify-content:space-evenly}
.mrz div{line-height:1;font-size:%.1fpx}
img{display:block}
`, W, H, in.bg, justify(lk.spread), lk.colGap, lk.inlineGap,
		lk.captionFont, lk.captionWeight, lk.captionPx(), lk.captionInk, lk.captionSpacing, lk.captionExtraCSS,
		lk.valueFont, lk.valueWeight, lk.valuePx, lk.valueInk, lk.valueSpacing,
		0.3*W, justify(lk.spread), lk.colGap, lk.tableRowGap,
		lk.titleFont, lk.titleInk, lk.titleFont, lk.countryInk, lk.captionFont, lk.captionInk,
		mrzFontPx)
	b.WriteString(lk.extraCSS)
	b.WriteString("</style></head><body><div id=\"card\">")
	if in.overlay != "" {
		b.WriteString(`<div id="art">` + in.overlay + `</div>`)
	}
	for i, bl := range in.side.blocks {
		writeBlock(&b, i, bl, in)
	}
	b.WriteString("</div><script>\n")
	b.WriteString(settleJS)
	b.WriteString("</script></body></html>")
	return b.String()
}

// mrzFontPx is OCR-B's size for an MRZ: ICAO 9303 asks for about 2.4 mm
// character height (OCR-B's capitals are about 0.7 em), at 10 characters
// per 25.4 mm, which the page's script sets by letter spacing.
const mrzFontPx = 3.45 * pxPerMM

func justify(spread bool) string {
	if spread {
		return "space-between"
	}
	return "flex-start"
}

func esc(s string) string { return html.EscapeString(s) }

func pos(bl blk) string {
	return fmt.Sprintf("left:%s;top:%s;width:%s;height:%s", px(bl.x), px(bl.y), px(bl.w), px(bl.h))
}

func writeBlock(b *strings.Builder, i int, bl blk, in pageInput) {
	lk := in.look
	id := fmt.Sprintf("b%d", i)
	switch bl.kind {
	case "fields":
		if bl.mode == "table" {
			writeTable(b, id, bl, in)
			return
		}
		gap := ""
		if !lk.spread {
			gap = ";row-gap:" + px(lk.rowGap)
		}
		fmt.Fprintf(b, `<div class="b fields" data-check="1" id="%s" style="%s%s">`, id, pos(bl), gap)
		for _, row := range bl.rows {
			b.WriteString(`<div class="row">`)
			for _, cell := range row {
				name, share := fieldName(cell)
				if name == "-" {
					fmt.Fprintf(b, `<div class="f" style="flex-grow:%g"></div>`, share)
					continue
				}
				cls := "f"
				if bl.mode == "right" {
					cls = "f r"
				}
				fmt.Fprintf(b, `<div class="%s" style="flex-grow:%g" data-f="%s"><div class="c">%s</div><div class="vw"><span class="v">%s</span></div></div>`,
					cls, share, esc(name), esc(in.labels[name]), esc(valueOf(in.h, name)))
			}
			b.WriteString(`</div>`)
		}
		b.WriteString(`</div>`)
	case "text":
		align := bl.align
		if align == "" {
			align = "center"
		}
		fmt.Fprintf(b, `<div class="b" data-check="1" id="%s" style="%s;text-align:%s;display:flex;flex-direction:column;justify-content:center">`, id, pos(bl), align)
		classes := strings.Fields(bl.cls)
		for k, line := range bl.lines {
			c := "small"
			if k < len(classes) {
				c = classes[k]
			}
			size := map[string]float64{"title": lk.titlePx, "country": lk.countryPx, "small": lk.smallPx}[c]
			fmt.Fprintf(b, `<div class="t %s" style="font-size:%.1fpx"><span class="tx">%s</span></div>`, c, size, esc(line))
		}
		b.WriteString(`</div>`)
	case "photo", "ghost":
		filter := lk.photoFilter
		style := ""
		if bl.kind == "ghost" {
			filter = "grayscale(1) contrast(.55) brightness(1.35)"
			style = "opacity:.45;"
		}
		fmt.Fprintf(b, `<div class="b solid" data-kind="photo" id="%s" style="%s;%soverflow:hidden;border-radius:%s;background:%s"><img src="%s" style="width:100%%;height:100%%;object-fit:cover;object-position:50%% 35%%;filter:%s"></div>`,
			id, pos(bl), style, px(lk.photoRadius), lk.photoBack, in.photo, filter)
	case "sig":
		fmt.Fprintf(b, `<div class="b solid" data-kind="signature" id="%s" style="%s">%s</div>`, id, pos(bl), in.sig)
	case "mrz":
		fmt.Fprintf(b, `<div class="b mrz" data-check="1" id="%s" style="%s">`, id, pos(bl))
		for _, l := range in.h.mrz {
			fmt.Fprintf(b, `<div class="ml">%s</div>`, esc(l))
		}
		b.WriteString(`</div>`)
	case "barcode":
		fmt.Fprintf(b, `<div class="b solid" data-kind="barcode" id="%s" style="%s;display:flex;align-items:center;justify-content:center;background:#fff;padding:%s"><img src="%s" style="max-width:100%%;max-height:100%%;image-rendering:pixelated;width:100%%;height:100%%;object-fit:contain"></div>`,
			id, pos(bl), px(0.8), in.barcode)
	case "emblem", "chip", "flag", "print", "holo", "stamp":
		solid := " solid"
		if bl.kind == "holo" {
			solid = "" // a translucent patch, over the photo's corner
		}
		fmt.Fprintf(b, `<div class="b%s" data-kind="%s" id="%s" style="%s">%s</div>`, solid, bl.kind, id, pos(bl), decoration(bl, in))
	}
}

// writeTable lays the fields out as a grid of caption and value cells,
// captions in their own column: rows of one field, or of two side by
// side.
func writeTable(b *strings.Builder, id string, bl blk, in pageInput) {
	cols := 1
	for _, row := range bl.rows {
		cols = max(cols, len(row))
	}
	tpl := strings.TrimSpace(strings.Repeat("max-content minmax(0,1fr) ", cols))
	cls := "b tbl"
	if bl.cls != "" {
		cls += " " + bl.cls
	}
	fmt.Fprintf(b, `<div class="%s" data-check="1" id="%s" style="%s;grid-template-columns:%s">`, cls, id, pos(bl), tpl)
	for _, row := range bl.rows {
		for k, cell := range row {
			name, _ := fieldName(cell)
			span := ""
			if k == len(row)-1 && len(row) < cols {
				span = fmt.Sprintf(";grid-column:span %d", 2*(cols-len(row))+1)
			}
			fmt.Fprintf(b, `<div class="c" data-f="%s">%s</div><div class="vw" data-f="%s" style="min-width:0%s"><span class="v">%s</span></div>`,
				esc(name), esc(in.labels[name]), esc(name), span, esc(valueOf(in.h, name)))
		}
	}
	b.WriteString(`</div>`)
}

// valueOf is the printed value of a field, or of an extra ("x:name").
func valueOf(h *holder, name string) string {
	if n, ok := strings.CutPrefix(name, "x:"); ok {
		return h.extra[n]
	}
	return h.printed[name]
}

// settleJS waits for fonts and images, fits every value and caption to
// its box (smaller type down to three quarters, then condensed, as card
// printers do with long names), sets the MRZ pitch, and reports text
// that leaves its box or touches other text, and where each field's
// caption and value landed.
const settleJS = `
window.settle = async function() {
  await document.fonts.ready;
  await Promise.all([...document.images].map(i => i.decode().catch(() => {})));
  const fit = (el, limit, minPx) => {
    const cs = getComputedStyle(el);
    let size = parseFloat(cs.fontSize);
    const start = size;
    const over = () => el.getBoundingClientRect().width - limit;
    while (over() > 0.5 && size > Math.max(minPx, start * 0.75)) {
      size -= 0.5;
      el.style.fontSize = size + 'px';
    }
    const w = el.getBoundingClientRect().width;
    if (w > limit + 0.5) {
      el.style.transform = 'scaleX(' + (limit / w).toFixed(4) + ')';
      // a printer condenses type a little, not to a sliver
      if (limit / w < 0.62) squeezed.push(el);
    }
  };
  const squeezed = [];
  for (const vw of document.querySelectorAll('.vw')) {
    const v = vw.querySelector('.v');
    fit(v, vw.getBoundingClientRect().width, 14);
  }
  for (const c of document.querySelectorAll('.f > .c')) {
    const f = c.parentElement;
    if (f.classList.contains('r')) continue;
    c.style.display = 'inline-block';
    c.style.transformOrigin = '0 50%';
    fit(c, f.getBoundingClientRect().width, 11);
  }
  for (const t of document.querySelectorAll('.tx')) {
    const al = getComputedStyle(t.closest('.b')).textAlign;
    t.style.transformOrigin = (al === 'center' ? '50%' : al === 'right' ? '100%' : '0') + ' 50%';
    fit(t, t.parentElement.getBoundingClientRect().width, 11);
  }
  for (const m of document.querySelectorAll('.mrz')) {
    const width = m.getBoundingClientRect().width;
    for (const l of m.querySelectorAll('.ml')) {
      const n = l.textContent.length;
      l.style.letterSpacing = '0px';
      const w = l.getBoundingClientRect().width;
      // ICAO pitch: 2.54 mm per character, or what the box allows
      const pitch = Math.min(2.54 * 12, width / n);
      l.style.letterSpacing = ((pitch * n - w) / n).toFixed(3) + 'px';
    }
  }
  const problems = squeezed.map(e => 'condensed too far: ' + e.className + ' "' + e.textContent.slice(0, 30) + '"');
  const card = document.getElementById('card').getBoundingClientRect();
  const texts = [...document.querySelectorAll('.c, .v, .tx, .ml')].filter(e => e.textContent.trim() !== '');
  const rect = e => {
    const r = e.getBoundingClientRect();
    // the ink, not the line box: a line box is taller than the letters
    const fs = parseFloat(getComputedStyle(e).fontSize);
    const pad = Math.max(0, (r.height - fs) / 2);
    return {x: r.left, y: r.top + pad, r: r.right, b: r.bottom - pad, e: e};
  };
  const rs = texts.map(rect);
  const name = e => (e.closest('[data-f]') ? e.closest('[data-f]').dataset.f + ' ' : '') + e.className + ' "' + e.textContent.slice(0, 24) + '"';
  for (const r of rs) {
    if (r.x < card.left - 0.5 || r.y < card.top - 0.5 || r.r > card.right + 0.5 || r.b > card.bottom + 0.5) {
      problems.push('off the card: ' + name(r.e));
    }
    const blk = r.e.closest('.b');
    if (blk && blk.dataset.check) {
      const br = blk.getBoundingClientRect();
      if (r.x < br.left - 1 || r.r > br.right + 1 || r.y < br.top - 1 || r.b > br.bottom + 1) {
        problems.push('out of its box ' + blk.id + ': ' + name(r.e));
      }
    }
  }
  for (let i = 0; i < rs.length; i++) {
    for (let j = i + 1; j < rs.length; j++) {
      const a = rs[i], b = rs[j];
      if (a.e.contains(b.e) || b.e.contains(a.e)) continue;
      if (a.x < b.r - 0.5 && b.x < a.r - 0.5 && a.y < b.b - 0.5 && b.y < a.b - 0.5) {
        problems.push('overlap: ' + name(a.e) + ' / ' + name(b.e));
      }
    }
  }
  // pictures (photo, signature, barcode, chip, emblem, flag, stamp)
  // must not sit on text either
  for (const p of document.querySelectorAll('.solid')) {
    const q = p.getBoundingClientRect();
    for (const r of rs) {
      if (r.x < q.right - 0.5 && q.left < r.r - 0.5 && r.y < q.bottom - 0.5 && q.top < r.b - 0.5) {
        problems.push('text on ' + p.dataset.kind + ': ' + name(r.e));
      }
    }
  }
  const boxes = {}, captions = {};
  const bx = e => { const r = e.getBoundingClientRect(); return {X: r.left, Y: r.top, W: r.width, H: r.height}; };
  for (const e of document.querySelectorAll('[data-f]')) {
    const f = e.dataset.f;
    const c = e.classList.contains('c') ? e : e.querySelector(':scope > .c');
    const v = e.classList.contains('vw') ? e.querySelector('.v') : e.querySelector('.v');
    if (c) { boxes[f + '/label'] = bx(c); captions[f] = c.textContent; }
    if (v) { boxes[f + '/value'] = bx(v); }
  }
  return {problems: problems, boxes: boxes, captions: captions};
};
`
