package address

import "image"

// column lays texts out as a page would print them one under another.
func column(texts ...string) []Line {
	var out []Line
	for i, t := range texts {
		out = append(out, Line{Text: t, Box: image.Rect(100, 100+i*40, 100+len(t)*14, 128+i*40)})
	}
	return out
}

// grid lays rows of cells out in columns 700 pixels apart.
func grid(rows ...[]string) []Line {
	var out []Line
	for i, r := range rows {
		for j, t := range r {
			if t == "" {
				continue
			}
			x := 100 + j*700
			out = append(out, Line{Text: t, Box: image.Rect(x, 100+i*40, x+len(t)*14, 128+i*40)})
		}
	}
	return out
}
