// Package wwwauth reads WWW-Authenticate challenges (RFC 9110 §11.6.1): the
// one parser of the reference client, which acts on them, and of the server
// authorization family, which judges them. A leaf.
package wwwauth

import (
	"fmt"
	"net/http"
	"strings"
)

// Challenge is one challenge of a WWW-Authenticate header (RFC 9110
// §11.6.1): its scheme and auth-params, names lowercased.
type Challenge struct {
	Scheme string
	Params map[string]string
}

// Parse reads every challenge of the header's values, and says
// what breaks RFC 9110's grammar (§11.6.1: auth-param = token BWS "=" BWS
// ( token / quoted-string ), challenges and params separated by commas),
// such as an unescaped quote inside a quoted-string. What it read up to
// the break is kept, so a judge can still look at it.
func Parse(values []string) ([]Challenge, error) {
	var out []Challenge
	var bad error
	for _, v := range values {
		s := v
		var cur *Challenge
		for {
			s = strings.TrimLeft(s, " \t,")
			if s == "" {
				break
			}
			name := takeToken(&s)
			if name == "" {
				bad = fmt.Errorf("%q: no token where a scheme or a parameter starts (at %q)", v, s)
				break
			}
			rest := strings.TrimLeft(s, " \t")
			if cur != nil && strings.HasPrefix(rest, "=") && !strings.HasPrefix(strings.TrimLeft(rest[1:], " \t"), "=") {
				s = strings.TrimLeft(rest[1:], " \t")
				value, err := takeValue(&s)
				cur.Params[strings.ToLower(name)] = value
				if err == nil {
					if after := strings.TrimLeft(s, " \t"); after != "" && !strings.HasPrefix(after, ",") {
						err = fmt.Errorf("parameter %s is followed by %q, not a comma", name, after)
					}
				}
				if err != nil {
					bad = fmt.Errorf("%q: %v", v, err)
					break
				}
				continue
			}
			if strings.HasPrefix(rest, "=") {
				// token68 of a new challenge's scheme (not a param of ours)
				s = strings.TrimLeft(rest, "=")
				continue
			}
			out = append(out, Challenge{Scheme: name, Params: map[string]string{}})
			cur = &out[len(out)-1]
			s = rest
		}
	}
	return out, bad
}

func takeToken(s *string) string {
	i := 0
	for i < len(*s) && strings.IndexByte(" \t,=\"", (*s)[i]) < 0 {
		i++
	}
	tok := (*s)[:i]
	*s = (*s)[i:]
	return tok
}

func takeValue(s *string) (string, error) {
	if !strings.HasPrefix(*s, `"`) {
		v := takeToken(s)
		if v == "" {
			return "", fmt.Errorf("a parameter without a value")
		}
		return v, nil
	}
	var b strings.Builder
	for i := 1; i < len(*s); i++ {
		c := (*s)[i]
		switch {
		case c == '\\' && i+1 < len(*s):
			i++
			b.WriteByte((*s)[i])
		case c == '"':
			*s = (*s)[i+1:]
			return b.String(), nil
		default:
			b.WriteByte(c)
		}
	}
	*s = ""
	return b.String(), fmt.Errorf("a quoted-string without its closing quote")
}

// Find is the first challenge of one of the schemes (compared without
// case) in the header's WWW-Authenticate values, as far as they parse.
func Find(h http.Header, schemes ...string) (Challenge, bool) {
	all, _ := Parse(h.Values("WWW-Authenticate"))
	for _, c := range all {
		for _, s := range schemes {
			if strings.EqualFold(c.Scheme, s) {
				return c, true
			}
		}
	}
	return Challenge{}, false
}
