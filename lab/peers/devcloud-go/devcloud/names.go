package devcloud

import "strings"

const maxName = 63
const hashDigits = 10

func fnv1a64(s string) uint64 {
	h := uint64(0xcbf29ce484222325)
	for _, b := range []byte(s) {
		h ^= uint64(b)
		h *= 0x100000001b3
	}
	return h
}

func hexPrefix(v uint64, digits int) string {
	const alphabet = "0123456789abcdef"
	var b strings.Builder
	for i := 0; i < digits; i++ {
		b.WriteByte(alphabet[(v>>(60-uint(i)*4))&0xf])
	}
	return b.String()
}

// sanitize lower-cases, turns anything outside [a-z0-9-] into '-' and trims '-' (per UTF-16 unit, like the plugin:
// the plugin is AssemblyScript, whose strings are UTF-16).
func sanitize(raw string) string {
	var b strings.Builder
	for _, r := range raw {
		n := 1
		if r > 0xffff {
			n = 2
		}
		c := r
		if c >= 'A' && c <= 'Z' {
			c += 32
		}
		ok := (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'
		for i := 0; i < n; i++ {
			if ok {
				b.WriteRune(c)
			} else {
				b.WriteByte('-')
			}
		}
	}
	return strings.Trim(b.String(), "-")
}

func cloudName(raw, identity string) string {
	clean := sanitize(raw)
	if len(clean) > 0 && len(clean) <= maxName {
		return clean
	}
	suffix := hexPrefix(fnv1a64(identity), hashDigits)
	cut := clean
	if len(cut) > maxName-hashDigits-1 {
		cut = cut[:maxName-hashDigits-1]
	}
	prefix := strings.Trim(cut, "-")
	if prefix == "" {
		return "x-" + suffix
	}
	return prefix + "-" + suffix
}

func loadBalancerName(cluster, namespace, service string) string {
	return cloudName(cluster+"-"+namespace+"-"+service, cluster+"/"+namespace+"/"+service)
}

func routeName(cluster, nameHint, destination string) string {
	tag := hexPrefix(fnv1a64(destination), 8)
	return cloudName(cluster+"-"+nameHint+"-"+tag, cluster+"/"+nameHint+"/"+destination)
}

func isAlnum(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

func isLabelToken(s string, allowEmpty bool) bool {
	if s == "" {
		return allowEmpty
	}
	if len(s) > 63 || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func isDNSSubdomain(s string) bool {
	if s == "" || len(s) > 253 {
		return false
	}
	for _, p := range strings.Split(s, ".") {
		if p == "" || len(p) > 63 {
			return false
		}
		for j := 0; j < len(p); j++ {
			c := p[j]
			lowerAlnum := (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
			if !lowerAlnum && !(c == '-' && j > 0 && j < len(p)-1) {
				return false
			}
		}
	}
	return true
}

func isLabelKey(key string) bool {
	slash := strings.Index(key, "/")
	if slash < 0 {
		return isLabelToken(key, false)
	}
	return isDNSSubdomain(key[:slash]) && isLabelToken(key[slash+1:], false)
}

func isIPv4(s string) bool {
	parts := strings.Split(s, ".")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 3 || (len(p) > 1 && p[0] == '0') {
			return false
		}
		v := 0
		for i := 0; i < len(p); i++ {
			if p[i] < '0' || p[i] > '9' {
				return false
			}
			v = v*10 + int(p[i]-'0')
		}
		if v > 255 {
			return false
		}
	}
	return true
}
