package devcloud

import "unicode/utf16"

// Devcloud and the plugin measure a description in UTF-16 code units (JavaScript's and AssemblyScript's
// String.length), not in bytes: "é" is one, an emoji two.

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// truncateUTF16 keeps at most max UTF-16 code units of s. It cuts between runes: where the plugin's substring would
// split a surrogate pair (a lone surrogate a Go string cannot hold), the whole rune is dropped.
func truncateUTF16(s string, max int) string {
	n := 0
	for i, r := range s {
		n += utf16.RuneLen(r)
		if n > max {
			return s[:i]
		}
	}
	return s
}
