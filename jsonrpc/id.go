package jsonrpc

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSON-RPC 2.0 §5: "The Server MUST reply with the same value in the id
// member", and MCP (basic/index.mdx#responses): "Responses MUST include the
// same ID as the request they correspond to". Same value, not same bytes: a
// conformant Node or Python server re-encodes the id it parsed, so an id
// "q&a" may come back as "q\u0026a" and "città" as "citt\u00e0". Every
// place that correlates or compares ids goes through Key, the id's
// canonical form:
//
//   - a string is its text, however escaped, re-encoded one way;
//   - a number is its value, exactly (no float rounding): 42, 42.0 and
//     4.2e1 are one value, 9007199254740993 is not 9007199254740992;
//   - a string never equals a number ("42" is not 42);
//   - anything else (null, text that is not JSON, a string that is not
//     UTF-8) is its own bytes, white space around it trimmed.

// Key is the id's canonical form (see above), usable as a map key: two ids
// have the same Key exactly when they are the same JSON value.
func (id ID) Key() string {
	b := bytes.TrimSpace(id)
	if len(b) == 0 {
		return ""
	}
	switch c := b[0]; {
	case c == '"':
		if s, ok := canonicalString(b); ok {
			return s
		}
	case c == '-' || (c >= '0' && c <= '9'):
		if s, ok := canonicalNumber(b); ok {
			return s
		}
	}
	return string(b)
}

// Equal reports whether two ids are the same JSON value (Key).
func (id ID) Equal(other ID) bool { return id.Key() == other.Key() }

// canonicalString decodes a JSON string and encodes its text one way:
// UTF-8 as is, without HTML escaping. Text that is not UTF-8 is not
// decoded (encoding/json would turn every bad byte into U+FFFD, making
// different ids one).
func canonicalString(b []byte) (string, bool) {
	if !utf8.Valid(b) || !json.Valid(b) {
		return "", false
	}
	// Already canonical when nothing is escaped and nothing would be.
	if bytes.IndexByte(b, '\\') < 0 && !bytes.Contains(b, []byte("\u2028")) && !bytes.Contains(b, []byte("\u2029")) {
		return string(b), true
	}
	var s string
	if json.Unmarshal(b, &s) != nil {
		return "", false
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) != nil {
		return "", false
	}
	return strings.TrimSuffix(buf.String(), "\n"), true
}

// maxPlainDigits bounds the integers Key spells out digit by digit; beyond
// it (and for fractions) the value is digits and an exponent: 1e400 costs
// no 400-digit string.
const maxPlainDigits = 40

// canonicalNumber writes a JSON number's exact value one way: an integer
// of up to maxPlainDigits digits plainly ("42", "-7", "0"), any other
// value as its significant digits and an exponent ("15e-1" for 1.5). No
// arithmetic: the digits are rearranged, so no precision is lost and no
// huge exponent is expanded.
func canonicalNumber(b []byte) (string, bool) {
	if !json.Valid(b) {
		return "", false
	}
	s := string(b)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mantissa, expText, hasExp := strings.Cut(strings.ToLower(s), "e")
	exp := int64(0)
	if hasExp {
		e, err := strconv.ParseInt(strings.TrimPrefix(expText, "+"), 10, 64)
		if err != nil || e > 1<<40 || e < -(1<<40) {
			return "", false // an exponent no id has: compared as bytes
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mantissa, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	exp -= int64(len(frac))
	if digits == "" {
		return "0", true // 0, -0, 0.0, 0e5
	}
	trimmed := strings.TrimRight(digits, "0")
	exp += int64(len(digits) - len(trimmed))
	digits = trimmed
	sign := ""
	if neg {
		sign = "-"
	}
	if exp >= 0 && int64(len(digits))+exp <= maxPlainDigits {
		return sign + digits + strings.Repeat("0", int(exp)), true
	}
	return sign + digits + "e" + strconv.FormatInt(exp, 10), true
}
