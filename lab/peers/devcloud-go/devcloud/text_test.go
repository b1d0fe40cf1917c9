package devcloud

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestUTF16Len(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
	}{{"", 0}, {"abc", 3}, {"é", 1}, {"日本", 2}, {"😀", 2}, {"a😀b", 4}} {
		if got := utf16Len(c.in); got != c.want {
			t.Errorf("utf16Len(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestTruncateUTF16(t *testing.T) {
	long := strings.Repeat("é", 300)
	if got := truncateUTF16(long, 255); got != strings.Repeat("é", 255) {
		t.Errorf("truncated to %d runes, want 255", len([]rune(got)))
	}
	if got := truncateUTF16("ab😀", 3); got != "ab" {
		t.Errorf("cut inside a surrogate pair: got %q, want %q", got, "ab")
	}
	if got := truncateUTF16("ab😀", 4); got != "ab😀" {
		t.Errorf("got %q", got)
	}
}

// parseOptions, as devcloud and the plugin: 255 two-byte characters (510 bytes) are 255 characters, accepted.
func TestDescriptionCountsCharacters(t *testing.T) {
	svc := func(d string) *v1.Service {
		return &v1.Service{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default", Annotations: map[string]string{annDescription: d}},
			Spec:       v1.ServiceSpec{Ports: []v1.ServicePort{{Port: 80, NodePort: 30080, Protocol: v1.ProtocolTCP}}},
		}
	}
	opts, err := parseOptions(svc(strings.Repeat("é", 255)), "kubernetes")
	if err != nil {
		t.Fatalf("a 255-character description is refused: %v", err)
	}
	if opts.description != strings.Repeat("é", 255) {
		t.Errorf("description changed: %q", opts.description)
	}
	if _, err := parseOptions(svc(strings.Repeat("😀", 128)), "kubernetes"); err == nil {
		t.Error("a description of 256 UTF-16 code units is accepted")
	}
}
